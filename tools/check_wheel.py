"""The installed package's check (`make check-wheel`, docs/python.md,
"pip install"): run with a venv's python, outside the source tree.

`traced` must come from the venv (not the source tree or build/python);
the tools and the CUDA runtime it finds are its own (traced/bin,
traced/lib); it traces torchvision resnet18, compiles it for this CPU and
runs it against torch eager; a module saved as bytecode loads back (the untrusted
bytecode path runs the package's own traced-opt in a child); and the
console scripts traced-opt and traced-translate run the bundled tools.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import torch
import torchvision

import traced


def main(example):
    prefix = os.path.realpath(sys.prefix)
    package = os.path.dirname(os.path.realpath(traced.__file__))
    assert package.startswith(prefix + os.sep), (
        f"traced comes from {package}, not the venv {prefix}")
    print(f"traced from {package}")
    tool = traced._tools.tool_path("traced-opt")
    assert tool == os.path.join(package, "bin", "traced-opt"), tool
    assert traced._sandbox_tool() == tool, traced._sandbox_tool()
    runtime = os.path.join(package, "lib", "libtraced_cuda_runtime.so")
    if os.path.exists(runtime):  # built where the CUDA toolkit was found
        assert traced.compiler._cuda_runtime() == runtime

    torch.manual_seed(0)
    model = torchvision.models.resnet18().eval()
    x = torch.randn(1, 3, 64, 64)
    start = time.perf_counter()
    m = traced.trace(model, x)
    compiled = traced.compile(m)
    got = compiled(x)
    with torch.no_grad():
        expected = model(x)
    torch.testing.assert_close(got, expected, rtol=1e-4, atol=1e-5)
    print(f"resnet18 traced, compiled and run in "
          f"{time.perf_counter() - start:.1f} s: matches torch "
          f"(largest difference {(got - expected).abs().max().item():.1e})")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "resnet18.mlirbc")
        m.save(path)
        back = traced.load(path)  # untrusted: the bundled traced-opt first
        assert str(back) == str(m)
    print("bytecode round trip through the bundled traced-opt: same module")

    bin_dir = os.path.dirname(sys.executable)
    for script in ("traced-opt", "traced-translate"):
        path = shutil.which(script, path=bin_dir)
        assert path, f"no console script {script} in {bin_dir}"
        help_text = subprocess.run([path, "--help"], check=True,
                                   capture_output=True, text=True).stdout
        assert "USAGE" in help_text, help_text[:200]
    out = subprocess.run([os.path.join(bin_dir, "traced-opt"), example],
                         check=True, capture_output=True, text=True).stdout
    assert "traced.module" in out, out[:200]
    print("console scripts traced-opt and traced-translate run")


if __name__ == "__main__":
    main(sys.argv[1])
