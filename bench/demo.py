"""`make demo`: trace torchvision resnet18 (random weights), print its graph,
save it as bytecode and read it back with the weights bit-identical."""
import os
import tempfile
import time

import numpy as np
import torch
import torchvision

import traced


def main():
    torch.manual_seed(0)
    model = torchvision.models.resnet18().eval()
    x = torch.randn(1, 3, 224, 224)
    start = time.perf_counter()
    m = traced.trace(model, x)
    print(f"traced resnet18 in {(time.perf_counter() - start) * 1e3:.0f} ms")
    lines = str(m.graph).splitlines()
    print("\n".join(lines[:8] + ["        ..."] + lines[-3:]))
    print()
    print(m.layer1.__getattr__("0").graph)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "resnet18.mlirbc")
        m.save(path)
        back = traced.load(path)
        back.verify()
        same = np.array_equal(back.conv1.weight, model.conv1.weight.detach().numpy())
        print(f"saved {os.path.getsize(path) / 1e6:.1f} MB of bytecode; read back, "
              f"verified, conv1.weight bit-identical: {same}")


if __name__ == "__main__":
    main()
