"""The GPU pipeline's CI-level checks (no GPU here): resnet18's kernels
assemble with ptxas for sm_90, and a model library links against
libtraced_cuda_runtime with every mgpu* call resolved by it. Running on a
GPU is bench/gpu/run.sh's job."""
import os
import pathlib
import re
import shutil
import subprocess

import pytest
import torch
import torchvision

import traced
from models import MLP, Call

BUILD = pathlib.Path(__file__).resolve().parents[2] / "build"
TRANSLATE = BUILD / "bin" / "traced-translate"
RUNTIME = BUILD / "lib" / "libtraced_cuda_runtime.so"
PTXAS = shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas")
    else None)


def _assemble_all(tmp_path, modules, chip="sm_90"):
    """ptxas accepts each kernel module of `modules` for `chip`."""
    for i, ptx in enumerate(modules):
        src = tmp_path / f"k{i}.ptx"
        src.write_text(ptx)
        result = subprocess.run([PTXAS, f"-arch={chip}", str(src), "-o",
                                 str(tmp_path / f"k{i}.cubin")],
                                capture_output=True, text=True)
        assert result.returncode == 0, result.stderr


def _assemble_without_spills(tmp_path, ptx, chip):
    """ptxas accepts the kernel module `ptx` for `chip`, spilling nothing."""
    src = tmp_path / "one.ptx"
    src.write_text(ptx)
    result = subprocess.run([PTXAS, f"-arch={chip}", "-v", str(src), "-o",
                             str(tmp_path / "one.cubin")],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "0 bytes spill stores" in result.stderr, result.stderr


def _ptx_modules(path, chip="sm_90", *flags):
    text = subprocess.run([str(TRANSLATE), "--traced-gpu-ptx",
                           f"--gpu-chip={chip}", *flags, str(path)],
                          check=True, capture_output=True, text=True).stdout
    return [m for m in re.split(r"^// kernel module .*$", text, flags=re.M)
            if m.strip()]


@pytest.mark.skipif(PTXAS is None, reason="no ptxas (CUDA toolkit) here")
def test_resnet18_ptx_assembles_for_sm90(tmp_path):
    model = torchvision.models.resnet18().eval()
    tm = traced.trace(model, torch.randn(1, 3, 224, 224))
    # (Text: traced-translate reads files through mlir-translate's main,
    # which does not align bytecode buffers for its 64-byte resources.)
    tm.save(tmp_path / "resnet18.mlir")
    modules = _ptx_modules(tmp_path / "resnet18.mlir")
    # One kernel per remaining (fused) linalg op: convolutions, pools,
    # elementwise chains, the classifier.
    assert len(modules) > 40
    # The convolutions and the classifier are tiled kernels, named for
    # what they compute (traced-gpu-tile-contractions).
    entries = [re.search(r"\.entry (\w+)", ptx).group(1) for ptx in modules]
    assert sum(e.startswith("forward_conv_") for e in entries) == 20
    assert sum(e.startswith("forward_gemm_") for e in entries) == 1
    for ptx in modules:
        assert ".target sm_90" in ptx and ".entry forward_" in ptx
    _assemble_all(tmp_path, modules)


@pytest.mark.skipif(PTXAS is None, reason="no ptxas (CUDA toolkit) here")
def test_fused_epilogues_assemble(tmp_path):
    """--gpu-fuse-epilogues (on by default; compile_cuda's fuse_epilogues): resnet18's
    convolutions take in their padding and, unless K is split over blocks,
    their zero fill and the bias / ReLU / residual generic after them (59
    kernels instead of 99); those with K split add into C atomically and
    leave the epilogue to a kernel of its own (split-k-epilogues is off:
    docs/gpu.md). Every kernel assembles for sm_90."""
    model = torchvision.models.resnet18().eval()
    tm = traced.trace(model, torch.randn(1, 3, 224, 224))
    tm.save(tmp_path / "resnet18.mlir")
    plain = _ptx_modules(tmp_path / "resnet18.mlir", "sm_90",
                         "--gpu-fuse-epilogues=false")
    fused = _ptx_modules(tmp_path / "resnet18.mlir")  # the default
    assert len(plain) == 99 and len(fused) == 59
    convs = [m for m in fused if ".entry forward_conv_" in m]
    assert len(convs) == 20
    split = [m for m in convs if "atom.global.add.f32" in m]
    assert len(split) >= 10
    # No last-block epilogue (its GPU-scope fence) by default.
    assert not any("membar.gl" in m for m in convs)
    # The others store the epilogue's result: no atomics.
    assert any("atom." not in m for m in convs)
    _assemble_all(tmp_path, fused)
    with pytest.raises(traced.Error):  # no GPU here: loading fails
        traced.compiler.compile_cuda(tm, fuse_epilogues=True,
                                     library=tmp_path / "libr18.so")
    assert (tmp_path / "libr18.so").exists()


@pytest.mark.skipif(PTXAS is None, reason="no ptxas (CUDA toolkit) here")
@pytest.mark.parametrize("chip", ["sm_90", "sm_90a"])
@pytest.mark.parametrize("shapes", [((256, 512), (512, 384)),
                                    ((3, 100, 40), (3, 40, 136))])
def test_bfloat16_matmul_runs_on_tensor_cores(tmp_path, shapes, chip):
    """A bfloat16 matmul (and a batch matmul off the tiles) becomes one
    tensor-core kernel: asynchronous copies, then ldmatrix and mma.sync on
    bfloat16 (sm_90), or warpgroup MMAs (sm_90a, with --gpu-tma=false: the
    copies by every thread rather than the default TMA loads); ptxas
    assembles it without spilling."""
    a, b = (torch.zeros(s, dtype=torch.bfloat16) for s in shapes)
    tm = traced.trace(Call(torch.matmul), a, b)
    tm.save(tmp_path / "mm.mlir")
    modules = _ptx_modules(tmp_path / "mm.mlir", chip, "--gpu-tma=false")
    mma = [m for m in modules if ".entry forward_mma_" in m]
    assert len(mma) == 1
    ptx = mma[0]
    assert f".target {chip}\n" in ptx
    assert "cp.async.cg.shared.global" in ptx
    if chip == "sm_90a":
        assert "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16" in ptx
        assert "fence.proxy.async.shared::cta" in ptx
        assert "mma.sync" not in ptx
    else:
        assert "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in ptx
        assert "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in ptx
    # The index arithmetic's constants are folded into the kernel (no
    # division by a parameter).
    assert not re.search(r"\bdiv\.|\brem\.", ptx)
    _assemble_without_spills(tmp_path, ptx, chip)


@pytest.mark.skipif(PTXAS is None, reason="no ptxas (CUDA toolkit) here")
@pytest.mark.parametrize("tile", [[], ["--gpu-mma-block-m=128",
                                       "--gpu-mma-block-n=256"]])
@pytest.mark.parametrize("shapes", [((256, 512), (512, 384)),
                                    ((3, 100, 40), (3, 40, 136))])
def test_bfloat16_matmul_with_tma_assembles(tmp_path, shapes, tile):
    """By default on sm_90a: a producer warpgroup loads the tiles by TMA
    (2-D maps, 3-D for a batch) and hands them over through mbarriers; the
    multiplying warpgroups take its registers (setmaxnreg). ptxas assembles
    it without spilling, 384 threads a block."""
    a, b = (torch.zeros(s, dtype=torch.bfloat16) for s in shapes)
    tm = traced.trace(Call(torch.matmul), a, b)
    tm.save(tmp_path / "mm.mlir")
    modules = _ptx_modules(tmp_path / "mm.mlir", "sm_90a", *tile)
    mma = [m for m in modules if ".entry forward_mma_" in m]
    assert len(mma) == 1
    ptx = mma[0]
    rank = len(shapes[0])
    assert f"cp.async.bulk.tensor.{rank}d.shared::cluster.global" in ptx
    assert "cp.async.cg.shared.global" not in ptx
    assert re.search(r"setmaxnreg\.dec\.sync\.aligned\.u32\s+40;", ptx)
    assert re.search(r"setmaxnreg\.inc\.sync\.aligned\.u32\s+232;", ptx)
    assert "mbarrier.try_wait.parity" in ptx
    assert ".maxntid 384, 1, 1" in ptx
    n = 256 if tile else 128
    assert f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.bf16.bf16" in ptx
    assert not re.search(r"\bdiv\.|\brem\.", ptx)
    _assemble_without_spills(tmp_path, ptx, "sm_90a")


@pytest.mark.skipif(not RUNTIME.exists(),
                    reason="libtraced_cuda_runtime not built (no cuda.h)")
def test_model_library_links_against_the_runtime(tmp_path):
    tm = traced.trace(MLP().eval(), torch.randn(8, 16))
    tm.save(tmp_path / "mlp.mlir")
    obj = tmp_path / "mlp.o"
    subprocess.run([str(TRANSLATE), "--traced-gpu-object", str(tmp_path / "mlp.mlir"),
                    "-o", str(obj)], check=True)
    lib = tmp_path / "libmlp_gpu.so"
    linker = shutil.which("clang-22") or "/usr/lib/llvm-22/bin/clang"
    subprocess.run([linker, "-shared", str(obj), "-o", str(lib),
                    f"-L{RUNTIME.parent}", "-ltraced_cuda_runtime",
                    "-Wl,-rpath,$ORIGIN"], check=True)
    nm = lambda *args: subprocess.run(["nm", "-D", *args], check=True,
                                      capture_output=True, text=True).stdout
    needed = set(re.findall(r"U (mgpu\w+)", nm("--undefined-only", str(lib))))
    provided = set(re.findall(r"T (mgpu\w+)", nm("--defined-only", str(RUNTIME))))
    assert needed, "the model calls no mgpu* functions?"
    assert needed <= provided, f"missing in the runtime: {needed - provided}"
    assert "traced_forward" in nm("--defined-only", str(lib))
    # What CudaCompiledModule calls to run on torch's current stream.
    exported = nm("--defined-only", str(RUNTIME))
    assert "T traced_gpu_set_stream" in exported
    assert "T traced_gpu_unset_stream" in exported
    assert "T traced_gpu_graph_call" in exported
    assert "T traced_gpu_graph_release" in exported
    dynamic = subprocess.run(["readelf", "-d", str(lib)], check=True,
                             capture_output=True, text=True).stdout
    assert "libtraced_cuda_runtime.so" in dynamic
    # The runtime itself needs only libcuda and the C/C++ runtime.
    deps = subprocess.run(["readelf", "-d", str(RUNTIME)], check=True,
                          capture_output=True, text=True).stdout
    assert "libcuda.so" in deps and "libMLIR" not in deps and "libLLVM" not in deps


STUB = pathlib.Path("/usr/local/cuda/lib64/stubs/libcuda.so")


@pytest.mark.skipif(not RUNTIME.exists() or not STUB.exists(),
                    reason="libtraced_cuda_runtime or the libcuda stub missing")
def test_compile_cuda_reports_cuda_errors(tmp_path):
    """traced.compile(target="cuda") compiles and links here; loading the
    kernels needs a GPU driver. Without libcuda.so.1 the error says so; with
    the toolkit's stub driver, CUDA's own error (cuInit: the stub library)
    comes back as traced.Error rather than an abort."""
    script = r"""
import sys, torch, traced
sys.path.insert(0, %r)
from models import MLP, Call
m = traced.trace(MLP().eval(), torch.randn(8, 16))
try:
    traced.compile(m, target="cuda")
except traced.Error as e:
    print("ERROR:", e)
""" % str(pathlib.Path(__file__).parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(BUILD / "python")
    run = lambda: subprocess.run(["/usr/bin/python3", "-c", script], env=env,
                                 capture_output=True, text=True, timeout=300)
    env["LD_LIBRARY_PATH"] = str(tmp_path)  # no libcuda.so.1 there
    out = run()
    assert out.returncode == 0, out.stderr
    if "cannot load the compiled GPU library" in out.stdout:
        assert "libcuda.so.1" in out.stdout
    (tmp_path / "libcuda.so.1").symlink_to(STUB)
    out = run()
    assert out.returncode == 0, out.stderr
    assert "ERROR: loading the GPU kernels: cuInit failed" in out.stdout
    assert "stub library" in out.stdout


@pytest.mark.skipif(PTXAS is None, reason="no ptxas (CUDA toolkit) here")
@pytest.mark.parametrize("case", ["softmax", "layer_norm", "sum_all", "sum_rows_short"])
def test_reductions_are_warp_or_block_parallel(tmp_path, case):
    """traced-gpu-reductions: softmax's max and sum, LayerNorm's mean and
    variance are reduced by a warp per row (shfl.sync.bfly), with the
    elementwise ops around them, in one row kernel; a full sum of a large
    tensor by blocks (their warps meet in shared memory behind a barrier)
    whose parts a second kernel adds; a reduction of 16 elements stays one
    thread per output. Every kernel assembles for sm_90."""
    x = torch.randn(64, 1000)
    model, expect_shuffles, expect_barrier = {
        "softmax": (Call(lambda t: torch.softmax(t, 1)), 0, False),
        "layer_norm": (torch.nn.LayerNorm(1000).eval(), 0, False),
        "sum_all": (Call(lambda t: t.sum()), 1, True),
        "sum_rows_short": (Call(lambda t: t.sum(1)), 0, False),
    }[case]
    if case == "sum_rows_short":
        x = torch.randn(64, 16)
    tm = traced.trace(model, x)
    tm.save(tmp_path / "m.mlir")
    # (Row kernels are the default; --gpu-row-kernels=false, four kernels.)
    modules = _ptx_modules(tmp_path / "m.mlir", "sm_90")
    reduce = [m for m in modules if re.search(r"\.entry forward_reduce_\d+\(", m)]
    assert len(reduce) == expect_shuffles
    for ptx in reduce:
        # 5 butterfly steps per warp (twice with the block's second stage).
        shuffles = len(re.findall(r"shfl\.sync\.bfly\.b32", ptx))
        assert shuffles == (10 if expect_barrier else 5), ptx
        assert ("bar.sync" in ptx) == expect_barrier
    # Softmax and LayerNorm: one row kernel, two reductions of 5 steps.
    rows = [m for m in modules if re.search(r"\.entry forward_rows_\d+\(", m)]
    assert len(rows) == (1 if case in ("softmax", "layer_norm") else 0)
    for ptx in rows:
        assert len(re.findall(r"shfl\.sync\.bfly\.b32", ptx)) == 10, ptx
        assert "bar.sync" not in ptx
    # The long sum is split over blocks; a second kernel adds their parts.
    parts = [m for m in modules if ".entry forward_reduce_0_parts(" in m]
    assert len(parts) == (1 if expect_barrier else 0)
    _assemble_all(tmp_path, modules)


@pytest.mark.skipif(PTXAS is None, reason="no ptxas (CUDA toolkit) here")
def test_tf32_matmul_is_opt_in(tmp_path):
    """--gpu-tf32 (compile_cuda's allow_tf32): a float32 matmul on 128 x 128
    tiles multiplies with mma.sync m16n8k8 on operands rounded to TF32, and
    assembles for sm_90 without spills; by default it stays exact (FMAs)."""
    tm = traced.trace(Call(torch.matmul), torch.zeros(512, 256),
                      torch.zeros(256, 384))
    tm.save(tmp_path / "mm.mlir")
    gemm = [m for m in _ptx_modules(tmp_path / "mm.mlir", "sm_90", "--gpu-tf32")
            if ".entry forward_gemm_" in m]
    assert len(gemm) == 1
    ptx = gemm[0]
    assert len(re.findall(r"mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.tf32"
                          r"\.tf32\.f32", ptx)) == 16
    assert "cvt.rna.tf32.f32" in ptx
    _assemble_without_spills(tmp_path, ptx, "sm_90")
    default = [m for m in _ptx_modules(tmp_path / "mm.mlir", "sm_90")
               if ".entry forward_gemm_" in m]
    assert "mma.sync" not in default[0] and "tf32" not in default[0]
    # The Python entry point takes the option and still compiles and links.
    with pytest.raises(traced.Error):  # no GPU here: loading fails
        traced.compiler.compile_cuda(tm, allow_tf32=True,
                                     library=tmp_path / "libmm.so")
    assert (tmp_path / "libmm.so").exists()


def _run_on_stub_driver(tmp_path, script):
    """`script` run by /usr/bin/python3 with the toolkit's stub libcuda as
    libcuda.so.1 (and the build's traced package); its finished process."""
    (tmp_path / "libcuda.so.1").symlink_to(STUB)
    env = dict(os.environ, LD_LIBRARY_PATH=str(tmp_path),
               PYTHONPATH=str(BUILD / "python"))
    out = subprocess.run(["/usr/bin/python3", "-c", script], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out


@pytest.mark.skipif(not RUNTIME.exists() or not STUB.exists(),
                    reason="libtraced_cuda_runtime or the libcuda stub missing")
def test_graph_call_without_a_driver_calls_plainly(tmp_path):
    """traced_gpu_graph_call (CudaCompiledModule's CUDA graphs) over the
    stub driver: no context, so no graph: the entry is called once, on the
    caller's own arguments, its status comes back and cuInit's error is
    recorded rather than raised or aborted on."""
    script = r"""
import ctypes
rt = ctypes.CDLL(%r)
rt.traced_cuda_last_error.restype = ctypes.c_char_p
vp, u64 = ctypes.c_void_p, ctypes.c_uint64
Entry = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.POINTER(vp), ctypes.POINTER(vp))
seen = []
def entry(ins, outs):
    seen.append((ins[0], ins[1], outs[0]))
    return 7
cb = Entry(entry)
rt.traced_gpu_graph_call.argtypes = [vp, ctypes.POINTER(vp), ctypes.POINTER(u64),
    ctypes.c_int32, ctypes.POINTER(vp), ctypes.POINTER(u64), ctypes.c_int32, vp]
ins = (vp * 2)(4096, 8192)
outs = (vp * 1)(12288)
sizes = (u64 * 2)(16, 16)
status = rt.traced_gpu_graph_call(ctypes.cast(cb, vp), ins, sizes, 2, outs, sizes, 1, None)
print("status", status, "seen", seen)
print("error", rt.traced_cuda_last_error().decode())
rt.traced_gpu_graph_release.argtypes = [vp]
rt.traced_gpu_graph_release(ctypes.cast(cb, vp))  # no graph: nothing to do
print("released")
""" % str(RUNTIME)
    out = _run_on_stub_driver(tmp_path, script)
    assert "status 7 seen [(4096, 8192, 12288)]" in out.stdout
    assert "error cuInit failed" in out.stdout
    assert "released" in out.stdout


@pytest.mark.skipif(not RUNTIME.exists() or not STUB.exists(),
                    reason="libtraced_cuda_runtime or the libcuda stub missing")
def test_cuda_library_graph_calls_reach_the_entry(tmp_path):
    """compile_cuda's library wrapper (_CudaLibrary) over a stand-in model
    library, under the stub driver: a call with `graph_bytes` goes through
    traced_gpu_graph_call (no context here, so the entry is called plainly
    on the caller's pointers and writes its output), and collecting the
    wrapper releases the entry's graph through its finalizer."""
    source = tmp_path / "model.c"
    source.write_text(r'''
const char traced_forward_signature[] = "(tensor<4xf32>) -> tensor<4xf32>";
int traced_forward(void **inputs, void **outputs) {
  const float *x = inputs[0];
  float *y = outputs[0];
  for (int i = 0; i < 4; ++i)
    y[i] = 2 * x[i];
  return 0;
}
''')
    lib = tmp_path / "libmodel.so"
    compiler = shutil.which("clang-22") or "/usr/lib/llvm-22/bin/clang"
    subprocess.run([compiler, "-shared", "-fPIC", str(source), "-o", str(lib)],
                   check=True)
    script = r"""
import gc, numpy as np
from traced.compiler import _CudaLibrary
cl = _CudaLibrary(%r, %r, "forward")
print("signature", cl.signature)
x = np.arange(4, dtype=np.float32)
y = np.zeros(4, dtype=np.float32)
try:
    cl.run([x.ctypes.data], [y.ctypes.data], stream=0, graph_bytes=([16], [16]))
except Exception as e:
    print("raised", type(e).__name__, str(e)[:60])
print("y", y.tolist())
del cl
gc.collect()
print("collected")
""" % (str(lib), str(RUNTIME))
    out = _run_on_stub_driver(tmp_path, script)
    assert "signature ([([4], 'f32')], [([4], 'f32')])" in out.stdout
    # The plain call ran (the entry doubled x); the recorded cuInit error
    # is raised as for any call without a driver.
    assert "y [0.0, 2.0, 4.0, 6.0]" in out.stdout
    assert "raised Error running the compiled GPU code: cuInit failed" in out.stdout
    assert "collected" in out.stdout
