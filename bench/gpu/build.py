"""Builds what bench/gpu/run.py needs on a GPU machine (run it here).

    PYTHONPATH=build/python /usr/bin/python3 bench/gpu/build.py [out_dir]

For the five models of the tests (python/tests/models.py: seed 000's
SimpleModule, the MLP, resnet18, mobilenet_v2, the TransformerEncoderLayer;
torch.manual_seed(0) weights, BatchNorm statistics randomized), resnet18 at
batch 32 and a 4096^3 matmul in float32 and bfloat16: a shared library per
case compiled by traced-gpu-pipeline for sm_90a (cubin and PTX in a fatbin
when ptxas is on PATH, else PTX the driver JIT-compiles) and linked against
libtraced_cuda_runtime, which is copied beside them; the input and the
reference interpreter's output as .npy; a manifest.

The device tool carries at most 64 MiB, and resnet18's weights alone are
47 MB twice (batch 1 and 32). So each weight and input tensor is rounded to
255 evenly spaced levels of its range (the values stay random and of the
same scale, and the interpreter's reference is computed on the rounded
model), and the libraries and inputs are stored xz-compressed: 8 bits of
entropy per float compress about 4x. The matmuls' operands are made on the
GPU machine (run.py) and checked there against torch or numpy.
Default out_dir: build/gpu-artifacts. With TRACED_GPU_REUSE=DIR, a case
whose input and reference files DIR holds, for the same weights and inputs
(the manifest's "digest"), takes them from there instead of running the
interpreter.
"""
import hashlib
import json
import lzma
import os
import pathlib
import shutil
import subprocess
import sys
import time

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python" / "tests"))
import traced  # noqa: E402
from models import Call, real_models  # noqa: E402


def digest(model, inputs):
    """A fingerprint of a case's weights and inputs (TRACED_GPU_REUSE takes
    a reference only for the same one)."""
    h = hashlib.sha1()
    for t in list(model.state_dict().values()) + list(inputs):
        h.update(str((t.dtype, tuple(t.shape))).encode())
        h.update(t.detach().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


def quantized(t):
    """`t` rounded to 255 levels of its range (compressible, still random)."""
    if not t.dtype.is_floating_point or t.numel() == 0:
        return t
    scale = float(t.abs().max()) / 127 or 1.0
    return torch.round(t / scale) * scale


class RMSNorm(torch.nn.Module):
    """x / sqrt(mean(x^2) + eps) * weight, as LLaMA's RMSNorm."""

    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.weight = torch.nn.Parameter(1 + 0.1 * torch.randn(dim))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class PaddedBlock(torch.nn.Module):
    """Off the kernels' tiles, what traced-gpu-tile-contractions takes in:
    an asymmetric padding by 0.5 (F.pad) read through by a convolution
    whose epilogue is bias + relu, then a padded convolution with a
    residual add and a scale, and a Linear + relu after a flatten."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(5, 7, 3)
        self.conv2 = torch.nn.Conv2d(7, 7, 3, padding=1)
        self.fc = torch.nn.Linear(7 * 18 * 20, 33)

    def forward(self, x):
        y = torch.relu(self.conv1(torch.nn.functional.pad(x, (2, 1, 0, 3), value=0.5)))
        z = (self.conv2(y) + y) * 2
        return torch.relu(self.fc(z.flatten(1)))


class Bfloat16(torch.nn.Module):
    """`model` in bfloat16 between float32 input and output: the input
    rounded to bfloat16, every op computed as torch computes bfloat16 (float32
    sums, bfloat16 results), the output widened, so that run.py compares
    float32 arrays."""

    def __init__(self, model):
        super().__init__()
        self.model = model.to(torch.bfloat16)

    def forward(self, x):
        return self.model(x.to(torch.bfloat16)).float()


class LinearBlock(torch.nn.Module):
    """h = LayerNorm(x); h + fc2(gelu(fc1(h)))."""

    def __init__(self, d, hidden):
        super().__init__()
        self.norm = torch.nn.LayerNorm(d)
        self.fc1 = torch.nn.Linear(d, hidden)
        self.fc2 = torch.nn.Linear(hidden, d)

    def forward(self, x):
        h = self.norm(x)
        return h + self.fc2(torch.nn.functional.gelu(self.fc1(h)))


def bfloat16_cases():
    """bfloat16 convolutions (traced-gpu-tile-contractions: exact TF32 tensor
    cores) off the tiles and in a model: resnet50 at batch 32."""
    import torchvision
    torch.manual_seed(0)
    out = {}
    convs = {
        # 70 output channels (64 x 128 tiles, M edge), K = 45 (K tail),
        # stride 2, padding 1, bias + relu after it.
        "conv_bf16_odd": (torch.nn.Sequential(
            torch.nn.Conv2d(5, 70, 3, stride=2, padding=1), torch.nn.ReLU()),
            torch.randn(3, 5, 19, 23)),
        # 128 x 128 tiles with K split over blocks (8 tiles, K = 2304).
        "conv_bf16_split_k": (torch.nn.Conv2d(256, 256, 3, padding=1),
                              torch.randn(2, 256, 14, 14)),
        # A bottleneck: 1x1, 3x3, 1x1 with BatchNorm, relu and the residual.
        "bottleneck_bf16": (torchvision.models.resnet.Bottleneck(256, 64),
                            torch.randn(2, 256, 28, 28)),
    }
    for name, (model, x) in convs.items():
        model = randomized(model.eval())
        out[name] = (Bfloat16(model).eval(), quantized(x))
        out[name + "_unfused"] = out[name]
    # float32 on TF32 tensor cores (opt-in, --gpu-tf32) beside the exact
    # default, on the split-K convolution's shape.
    out["conv_256"] = (randomized(torch.nn.Conv2d(256, 256, 3, padding=1).eval()),
                       quantized(torch.randn(2, 256, 14, 14)))
    out["conv_256_tf32"] = out["conv_256"]
    resnet50 = randomized(torchvision.models.resnet50().eval())
    out["resnet50_bf16_b32"] = (Bfloat16(resnet50).eval(),
                                quantized(torch.randn(32, 3, 224, 224)))
    out["resnet50_bf16_b32_unfused"] = out["resnet50_bf16_b32"]
    # Two layers of a BERT-base encoder (d 768, 12 heads, FFN 3072, GELU) at
    # batch 32, sequence 128: its matmuls on the bfloat16 tensor-core
    # kernels; twelve layers' weights (170 MB) would not fit a device call.
    layer = torch.nn.TransformerEncoderLayer(768, 12, 3072, activation="gelu",
                                             batch_first=True, dropout=0.0)
    bert2 = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    out["bert2_bf16"] = (Bfloat16(randomized(bert2.eval())).eval(),
                         quantized(torch.randn(32, 128, 768)))
    out["bert2_bf16_norows"] = out["bert2_bf16"]
    out["bert2_bf16_cp_async"] = out["bert2_bf16"]
    # The convolutions on float32 FMAs (no tensor cores), to compare.
    out["resnet50_bf16_b32_simt"] = out["resnet50_bf16_b32"]
    # (New cases go last: a case's weights come from the random stream
    # after those of the cases before it, which must not change.)
    # bfloat16 linears whose inputs exist only as the float32 widening of a
    # rounded result (a LayerNorm's, a GELU's): the tensor-core kernel reads
    # a bfloat16 buffer their writer makes (narrowAtWriter). The LayerNorm's
    # output is also read by the residual add (written twice); 3 x 37 rows
    # are off the 128-row tiles.
    out["bf16_linear_block"] = (Bfloat16(randomized(LinearBlock(72, 200).eval())).eval(),
                                quantized(torch.randn(3, 37, 72)))
    # The same at BERT-base's sizes (8 sequences of 128), and one BERT-base
    # layer, with the tensor-core kernels reading through every thread's
    # copies (_cp_async) as well as TMA.
    out["ffn768_bf16"] = (Bfloat16(randomized(LinearBlock(768, 3072).eval())).eval(),
                          quantized(torch.randn(8, 128, 768)))
    out["ffn768_bf16_cp_async"] = out["ffn768_bf16"]
    bert_layer = torch.nn.TransformerEncoderLayer(768, 12, 3072, activation="gelu",
                                                  batch_first=True, dropout=0.0)
    out["bert1_bf16"] = (Bfloat16(randomized(bert_layer.eval())).eval(),
                         quantized(torch.randn(8, 128, 768)))
    out["bert1_bf16_cp_async"] = out["bert1_bf16"]
    return out


def randomized(model, affine=True):
    """`model` with BatchNorm statistics (and with `affine` its weight and
    bias) randomized and every parameter rounded to 255 levels
    (compressible, still random)."""
    with torch.no_grad():
        for mod in model.modules():
            if isinstance(mod, torch.nn.modules.batchnorm._BatchNorm):
                mod.running_mean.uniform_(-0.5, 0.5)
                mod.running_var.uniform_(0.5, 2.0)
                if affine:
                    mod.weight.uniform_(0.5, 1.5)
                    mod.bias.uniform_(-0.5, 0.5)
        for p in list(model.parameters()) + list(model.buffers()):
            p.copy_(quantized(p))
    return model


def cases():
    torch.manual_seed(0)
    models = real_models()
    out = {}
    for name, (model, x) in models.items():
        # (The models' BatchNorm weights and biases as they were built, so
        # that these cases' references stay those of earlier runs.)
        out[name] = (randomized(model, affine=False), quantized(x))
        if name == "resnet18":
            out["resnet18_b32"] = (model, quantized(torch.randn(32, 3, 224, 224)))
            # With padding, zero fills and epilogues as kernels of their own
            # (--gpu-fuse-epilogues=false), beside the default that fuses
            # them into the tiled kernels.
            out["resnet18_unfused"] = out["resnet18"]
            out["resnet18_b32_unfused"] = out["resnet18_b32"]
    # Shapes off the kernels' tiles: edges, a strided and dilated
    # convolution, a batch matmul, a convolution whose K is split.
    odd = {
        "odd_matmul": (Call(torch.matmul), (torch.randn(100, 33), torch.randn(33, 70))),
        "odd_bmm": (Call(torch.bmm), (torch.randn(3, 17, 5), torch.randn(3, 5, 130))),
        "conv_dilated": (torch.nn.Conv2d(5, 7, (3, 2), stride=(2, 1), dilation=2,
                                         padding=3).eval(), torch.randn(2, 5, 19, 23)),
        "conv_split_k": (torch.nn.Conv2d(512, 512, 3, padding=1).eval(),
                         torch.randn(1, 512, 7, 7)),
        "padded_block": (PaddedBlock().eval(), torch.randn(2, 5, 17, 19)),
    }
    # Reductions (traced-gpu-reductions: a warp per output, blocks for a
    # few long ones; int64 sums and float64 var as 32-bit halves) and one
    # left to one thread per output (argmax: two outputs).
    odd.update({
        "softmax": (Call(lambda t: torch.softmax(t, 1)), torch.randn(64, 1000)),
        "log_softmax_odd": (Call(lambda t: torch.log_softmax(t, 1)), torch.randn(13, 300)),
        "layer_norm": (torch.nn.LayerNorm(1000).eval(), torch.randn(64, 1000)),
        "sum_all": (Call(lambda t: t.sum()), torch.randn(1000, 1000)),
        "sum_8m": (Call(lambda t: t.sum()), torch.randn(2048, 4096)),
        "amax_all_odd": (Call(lambda t: torch.amax(t)), torch.randn(1003, 997)),
        "sum_rows_long": (Call(lambda t: t.sum(1)), torch.randn(4, 100000)),
        "var_all": (Call(lambda t: torch.var(t)), torch.randn(8, 512, 512)),
        "amax_dim0": (Call(lambda t: torch.amax(t, 0)), torch.randn(1000, 64)),
        "amin_rows": (Call(lambda t: torch.amin(t, 1)), torch.randn(64, 1000)),
        "mean_hw": (Call(lambda t: t.mean((2, 3))), torch.randn(8, 64, 7, 7)),
        "prod_rows": (Call(lambda t: torch.prod(t, 1)), 1 + torch.rand(64, 40) / 64),
        "logsumexp": (Call(lambda t: torch.logsumexp(t, 1)), torch.randn(64, 1000)),
        "argmax_rows": (Call(lambda t: torch.argmax(t, 1)), torch.randn(64, 1000)),
        # Row kernels (one kernel a softmax / norm, a warp per row): RMSNorm
        # as LLaMA writes it, a LayerNorm over 3-d rows, a long softmax.
        "rms_norm": (RMSNorm(768).eval(), torch.randn(4, 50, 768)),
        "layer_norm_3d": (torch.nn.LayerNorm(100).eval(), torch.randn(4, 7, 100)),
        "softmax_long": (Call(lambda t: torch.softmax(t, -1)), torch.randn(2, 12, 128, 128)),
        "int_sum_rows": (Call(lambda t: t.sum(1)),
                         torch.randint(-1000, 1000, (13, 300), dtype=torch.int32)),
    })
    for name, (model, x) in odd.items():
        with torch.no_grad():
            for p in model.parameters():
                p.copy_(quantized(p))
        xs = x if isinstance(x, tuple) else (x,)
        out[name] = (model, tuple(quantized(t) for t in xs) if isinstance(x, tuple)
                     else quantized(x))
    for dtype in (torch.float32, torch.bfloat16):
        n = 4096
        a = torch.zeros(n, n, dtype=dtype)
        out[f"matmul_{str(dtype).split('.')[1]}_{n}"] = (Call(torch.matmul), (a, a))
    # The tensor-core kernel off its tiles: M, N and K edges, a K tail
    # shorter than a step, a batch; and a Linear-sized product.
    for name, sa, sb in (("matmul_bfloat16_odd", (200, 264), (264, 72)),
                         ("matmul_bfloat16_bmm_odd", (3, 100, 40), (3, 40, 136)),
                         ("matmul_bfloat16_768x3072", (1024, 768), (768, 3072))):
        out[name] = (Call(torch.matmul), (torch.zeros(sa, dtype=torch.bfloat16),
                                          torch.zeros(sb, dtype=torch.bfloat16)))
    # Variants of the tiled kernel, to compare (traced-translate's --gpu-*
    # options, VARIANTS below).
    for variant in VARIANTS:
        if variant not in ("thread_per_output", "norows"):
            out[f"matmul_float32_4096_{variant}"] = out["matmul_float32_4096"]
    # TF32 off the tiles: M, N edges, a K that is no multiple of 8, a batch.
    for name, sa, sb in (("matmul_float32_odd_tf32", (200, 136), (136, 300)),
                         ("matmul_float32_bmm_odd_tf32", (3, 130, 100), (3, 100, 260))):
        out[name] = (Call(torch.matmul), (torch.zeros(sa), torch.zeros(sb)))
    for base in ("softmax", "layer_norm", "sum_all"):
        out[f"{base}_thread_per_output"] = out[base]
    for base in ("softmax", "log_softmax_odd", "layer_norm", "rms_norm",
                 "layer_norm_3d", "logsumexp", "softmax_long",
                 "transformer_encoder_layer"):
        out[f"{base}_norows"] = out[base]
    for base in ("mobilenet_v2", "mlp", "transformer_encoder_layer",
                 "conv_dilated", "conv_split_k", "padded_block", "odd_matmul"):
        out[f"{base}_unfused"] = out[base]
    for variant in BF16_VARIANTS:
        out[f"matmul_bfloat16_4096_{variant}"] = out["matmul_bfloat16_4096"]
    out.update(bfloat16_cases())
    for base in ("matmul_bfloat16_odd", "matmul_bfloat16_bmm_odd"):
        for variant in ("mma_sync", "cp_async", "m128_n256"):
            out[f"{base}_{variant}"] = out[base]
    return out


#: Case-name suffix -> traced-translate options of a kernel variant.
VARIANTS = {
    "interleaved": ["--gpu-contiguous-thread-tiles=false"],
    "untiled": ["--gpu-tile-contractions=false"],
    "k8_any_blocks": ["--gpu-tile-k-step=8", "--gpu-tile-min-blocks=0"],
    "k16_any_blocks": ["--gpu-tile-k-step=16", "--gpu-tile-min-blocks=0"],
    "k16": ["--gpu-tile-k-step=16"],
    # Reductions as before traced-gpu-reductions: one thread per output.
    "thread_per_output": ["--gpu-block-reductions=false"],
    # float32 on TF32 tensor cores (opt-in).
    "tf32": ["--gpu-tf32"],
    # Softmax, norms and the like as one kernel, a warp per row (off by
    # default until run on a GPU).
    "norows": ["--gpu-row-kernels=false"],
    # Padding, zero fills and epilogues as kernels of their own (taken in
    # by the tiled kernels by default).
    "unfused": ["--gpu-fuse-epilogues=false"],
}
#: Variants of the bfloat16 matmul. The default for sm_90a is the wgmma
#: kernel with TMA loads by a producer warpgroup (256 x 128 x 64 tiles, 4
#: buffers); "cp_async" is the same kernel with every thread copying.
BF16_VARIANTS = {
    "simt": ["--gpu-tensor-cores=false"],
    "mma_sync": ["--gpu-wgmma=false"],
    "cp_async": ["--gpu-tma=false"],
    "m128_n256": ["--gpu-mma-block-m=128", "--gpu-mma-block-n=256"],
    "m128_stages6": ["--gpu-mma-block-m=128", "--gpu-mma-stages=6"],
    "stages3": ["--gpu-mma-stages=3"],
}


#: The H100/H200 build: sm_90a has the warpgroup MMAs (the pipeline's
#: default, sm_90, is the portable one: its PTX also runs on later chips).
CHIP = "sm_90a"


def xz(path):
    with open(path, "rb") as f, lzma.open(str(path) + ".xz", "wb", preset=6) as g:
        shutil.copyfileobj(f, g)
    path.unlink()


def main():
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1
                       else ROOT / "build" / "gpu-artifacts").resolve()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    build = ROOT / "build"
    runtime = build / "lib" / "libtraced_cuda_runtime.so"
    if not runtime.exists():
        sys.exit("build/lib/libtraced_cuda_runtime.so is missing: the CUDA "
                 "toolkit (cuda.h) was not found at configure time")
    shutil.copy(runtime, out / runtime.name)
    subprocess.run([shutil.which("clang-22") or "/usr/lib/llvm-22/bin/clang",
                    "-O2", str(ROOT / "bench" / "gpu" / "loader.c"), "-o",
                    str(out / "traced-gpu-run"), "-ldl"], check=True)
    env = dict(os.environ)
    env["PATH"] = "/usr/local/cuda/bin:" + env.get("PATH", "")
    fmt = "fatbin" if shutil.which("ptxas", path=env["PATH"]) else "isa"
    manifest = {"format": fmt, "chip": CHIP, "models": {}}
    only = set(sys.argv[2:])
    reuse = os.environ.get("TRACED_GPU_REUSE")
    reuse = pathlib.Path(reuse) if reuse else None
    # An earlier build's cases, by name: their references are reused only
    # for the same weights and inputs (the digest; adding a case before
    # another changes the other's random weights).
    reused = (json.loads((reuse / "manifest.json").read_text())["models"]
              if reuse and (reuse / "manifest.json").exists() else {})
    # Variants of a case (the same model and input) share its input and
    # reference files: "data" names the case that has them.
    first = {}
    for name, (model, x) in cases().items():
        if only and name not in only:
            continue
        data = first.setdefault((id(model), id(x)), name)
        start = time.time()
        inputs = x if isinstance(x, tuple) else (x,)
        tm = traced.trace(model, *inputs)
        info = {"inputs": [[list(t.shape), str(t.dtype).split(".")[1]] for t in inputs],
                "digest": digest(model, inputs)}
        if isinstance(model, Bfloat16):
            # bfloat16 results round to 8 bits: one op's result may differ
            # from the interpreter's by an ulp (2^-8 of it) where float32
            # sums in another order round the other way, and a deep model
            # carries such differences through its layers.
            info["tolerance"] = (2e-2 if name.startswith(("resnet50", "bert"))
                                 else 8e-3)
        elif name.endswith("_tf32"):  # 10-bit mantissas in the products
            info["tolerance"] = 5e-3
        if name.startswith("matmul_"):  # operands made on the GPU machine
            info["generated"] = True
        elif data != name:
            info["data"] = data
        elif reuse and reused.get(name, {}).get("digest") == info["digest"] and (
                reuse / f"{name}_interpreter.npy").exists():
            # The same inputs (the cases are seeded) and their reference
            # from an earlier build (TRACED_GPU_REUSE): the interpreter
            # takes minutes on the larger bfloat16 models.
            for f in reuse.glob(f"{name}_input*.npy.xz"):
                shutil.copy(f, out / f.name)
            shutil.copy(reuse / f"{name}_interpreter.npy", out)
            info["output"] = list(np.load(out / f"{name}_interpreter.npy").shape)
        else:
            reference = tm.interpret(*[t.numpy() for t in inputs])
            reference = reference[0] if isinstance(reference, (list, tuple)) else reference
            for i, t in enumerate(inputs):
                np.save(out / f"{name}_input{i}.npy", t.numpy())
                xz(out / f"{name}_input{i}.npy")
            np.save(out / f"{name}_interpreter.npy", reference)
            info["output"] = list(reference.shape)
        obj = out / f"{name}.o"
        mlir = out / f"{name}.mlir"
        tm.save(mlir)
        # The longest variant suffix of the name (wgmma_n256, not n256).
        options = max(((len(v), o) for v, o in {**VARIANTS, **BF16_VARIANTS}.items()
                       if name.endswith("_" + v)), default=(0, []))[1]
        if not any(o.startswith("--gpu-chip=") for o in options):
            options = [f"--gpu-chip={CHIP}"] + options
        subprocess.run([str(build / "bin" / "traced-translate"),
                        "--traced-gpu-object", f"--gpu-format={fmt}",
                        str(mlir), "-o", str(obj)] + options,
                       check=True, env=env)
        lib = out / f"lib{name}.so"
        subprocess.run([shutil.which("clang-22") or "/usr/lib/llvm-22/bin/clang",
                        "-shared", str(obj), "-o", str(lib), f"-L{out}",
                        "-ltraced_cuda_runtime", "-Wl,-rpath,$ORIGIN"],
                       check=True)
        obj.unlink()
        mlir.unlink()
        size = lib.stat().st_size
        xz(lib)
        manifest["models"][name] = info
        print(f"{name}: lib{name}.so {size / 1e6:.1f} MB, "
              f"{(out / f'lib{name}.so.xz').stat().st_size / 1e6:.1f} MB xz "
              f"({time.time() - start:.0f} s)", flush=True)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2))
    total = sum(f.stat().st_size for f in out.iterdir())
    print(f"artifacts in {out}: {total / 1e6:.1f} MB")
    parts = split_into_parts(out, manifest)
    if parts:
        print(f"more than one device-tool call carries (64 MiB with the "
              f"working tree): {len(parts)} parts of at most {PART_MIB} MiB, "
              f"a call each:")
        for part in parts:
            rel = os.path.relpath(part, ROOT)
            print(f'  carry=["{rel}"], command '
                  f'"ART={rel} bash bench/gpu/device_check.sh"')


#: What one device-tool call may carry beside the working tree (64 MiB in
#: all, the repository's tracked files about 6).
PART_MIB = 56


def split_into_parts(out, manifest):
    """Moves the cases into out/part0, out/part1, ... of at most PART_MIB
    each (a case with the files its variants share), each with its own
    manifest and the runtime and loader, when they do not fit one call;
    returns the part folders (none when they fit)."""
    def files(name):
        return [f for f in out.iterdir()
                if f.name.startswith(f"lib{name}.so") or f.name.startswith(f"{name}_input")
                or f.name == f"{name}_interpreter.npy"]
    shared = [out / "libtraced_cuda_runtime.so", out / "traced-gpu-run"]
    limit = PART_MIB * 2**20 - sum(f.stat().st_size for f in shared)
    if sum(f.stat().st_size for f in out.iterdir()) <= PART_MIB * 2**20:
        return []
    groups = {}  # data case -> the cases reading its files
    for name, info in manifest["models"].items():
        groups.setdefault(info.get("data", name), []).append(name)
    sized = sorted(((sum(f.stat().st_size for n in names for f in files(n)), names)
                    for names in groups.values()), reverse=True)
    bins = []  # [size, names]
    for size, names in sized:
        if size > limit:
            sys.exit(f"{names}: {size / 2**20:.1f} MiB, more than a part holds")
        for b in bins:
            if b[0] + size <= limit:
                b[0] += size
                b[1] += names
                break
        else:
            bins.append([size, list(names)])
    parts = []
    for k, (_, names) in enumerate(bins):
        part = out / f"part{k}"
        part.mkdir()
        for name in names:
            for f in files(name):
                f.rename(part / f.name)
        for f in shared:
            shutil.copy(f, part / f.name)
        sub = dict(manifest, models={n: manifest["models"][n] for n in names})
        (part / "manifest.json").write_text(json.dumps(sub, indent=2))
        parts.append(part)
    (out / "manifest.json").unlink()
    return parts


if __name__ == "__main__":
    main()
