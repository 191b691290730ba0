"""Weight tying (docs/python.md, "Weight tying"): a tensor that several
module attributes hold is one blob in the IR, one root declaration after
traced-flatten, and written for every holder."""
import numpy as np
import pytest
import torch

import traced

PIPELINE = "traced-flatten,traced-normalize,traced-fuse-conv-bn,canonicalize,traced-dce"


class Tied(torch.nn.Module):
    """An embedding-style tie: `head` uses `emb`'s weight."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Linear(4, 4, bias=False)
        self.head = torch.nn.Linear(4, 4, bias=False)
        self.head.weight = self.emb.weight
        self.block = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
        self.other = torch.nn.Linear(4, 4)
        with torch.no_grad():                 # two equal biases, not tied
            self.block[0].bias.zero_()
            self.other.bias.zero_()

    def forward(self, x):
        return self.head(self.block(self.emb(x))) + self.other(x)


class SharedConv(torch.nn.Module):
    """Two convolutions sharing one weight, each with its own BatchNorm."""

    def __init__(self):
        super().__init__()
        self.a = torch.nn.Conv2d(3, 3, 3, padding=1)
        self.b = torch.nn.Conv2d(3, 3, 3, padding=1, bias=False)
        self.b.weight = self.a.weight
        self.bn_a = torch.nn.BatchNorm2d(3)
        self.bn_b = torch.nn.BatchNorm2d(3)
        for bn in (self.bn_a, self.bn_b):
            bn.running_mean.uniform_(-1, 1)
            bn.running_var.uniform_(0.5, 2)
            bn.weight.data.uniform_(0.5, 2)

    def forward(self, x):
        return self.bn_a(self.a(x)) + self.bn_b(self.b(x))


def decls(m):
    """(module symbol, declaration name, blob) of every parameter/buffer."""
    out = []
    current = None
    for line in str(m).splitlines():
        line = line.strip()
        if line.startswith("traced.module"):
            current = line.split()[1] if line.split()[1] != "root" else line.split()[2]
        for kind in ("parameter ", "buffer "):
            if line.startswith(kind):
                name = line.split()[1]
                blob = line.split("dense_resource<")[1].split(">")[0]
                out.append((current, name, blob))
    return out


def test_trace_keeps_the_tie():
    torch.manual_seed(0)
    model = Tied().eval()
    x = torch.randn(2, 4)
    m = traced.trace(model, x)
    blobs = {(sym, name): blob for sym, name, blob in decls(m)}
    assert blobs[("@emb", "@weight")] == blobs[("@head", "@weight")]
    # Equal values are not ties.
    assert blobs[("@other", "@bias")] != blobs[("@block_0", "@bias")]
    assert str(m).count("emb_weight: \"0x") == 1
    np.testing.assert_allclose(m.interpret(x.numpy())[0], model(x).detach().numpy(),
                               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("suffix", [".mlir", ".mlirbc"])
def test_tie_survives_saving(tmp_path, suffix):
    m = traced.trace(Tied().eval(), torch.randn(2, 4))
    path = tmp_path / f"m{suffix}"
    m.save(path)
    back = {(s, n): b for s, n, b in decls(traced.load(path))}
    assert back[("@emb", "@weight")] == back[("@head", "@weight")]


def test_flatten_declares_a_tied_weight_once():
    torch.manual_seed(0)
    model = Tied().eval()
    x = torch.randn(2, 4)
    m = traced.trace(model, x)
    m.run_passes("traced-flatten")
    root = [d for d in decls(m) if d[0] == "@Tied"]
    tied_blob = dict(((s, n), b) for s, n, b in decls(m))[("@emb", "@weight")]
    assert [n for _, n, b in root if b == tied_blob] == ['@emb.weight']
    text = str(m.graph)
    assert 'getattr(self, "emb.weight")' in text
    assert "head.weight" not in text
    # The untied equal biases stay two declarations.
    assert {n for _, n, _ in root} >= {"@block.0.bias", "@other.bias"}
    np.testing.assert_allclose(m.interpret(x.numpy())[0], model(x).detach().numpy(),
                               rtol=1e-6, atol=1e-6)
    compiled = traced.compile(m)
    np.testing.assert_allclose(compiled(x.numpy()), model(x).detach().numpy(),
                               rtol=1e-5, atol=1e-5)


def test_writing_a_tied_weight_writes_every_holder():
    torch.manual_seed(0)
    model = Tied().eval()
    x = torch.randn(2, 4)
    m = traced.trace(model, x)
    m.head.weight = m.head.weight * 2          # through one holder
    np.testing.assert_array_equal(m.emb.weight, m.head.weight)
    with torch.no_grad():
        model.head.weight.mul_(2)                # torch: one shared Parameter
    np.testing.assert_allclose(m.interpret(x.numpy())[0], model(x).detach().numpy(),
                               rtol=1e-6, atol=1e-6)
    # After flattening too: the one root declaration.
    m.run_passes("traced-flatten")
    root = m.module(m.root_name)
    setattr(root, "emb.weight", getattr(root, "emb.weight") + 1)
    with torch.no_grad():
        model.emb.weight.add_(1)
    np.testing.assert_allclose(m.interpret(x.numpy())[0], model(x).detach().numpy(),
                               rtol=1e-6, atol=1e-6)


def test_fusing_a_shared_conv_weight_unties_it():
    # conv+bn fusion folds each BatchNorm into a new weight of its own; the
    # shared weight is not rewritten under the other convolution.
    torch.manual_seed(0)
    model = SharedConv().eval()
    x = torch.randn(1, 3, 8, 8)
    m = traced.trace(model, x)
    before = m.interpret(x.numpy())[0]
    m.run_passes(PIPELINE)
    text = str(m.graph)
    assert "batch_norm" not in text and text.count("conv2d(") == 2
    after = m.interpret(x.numpy())[0]
    expected = model(x).detach().numpy()
    np.testing.assert_allclose(before, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(after, expected, rtol=1e-5, atol=1e-5)
