"""Runs the compiled GPU models on an NVIDIA GPU (run it there).

    python3 bench/gpu/run.py [artifacts_dir] [--runs N] [--out FILE]
        [--case-timeout S] [--progress FILE] [--kernels N] [names...]

Needs only numpy, the artifacts of bench/gpu/build.py (xz-compressed model
libraries, libtraced_cuda_runtime beside them) and the CUDA driver. For
each case: loads the library (the kernels load with it), runs it once (the
weights are uploaded then), compares the output with the CPU interpreter's
(fails above 1e-4 of the largest magnitude; matmuls: against torch CUDA
without TF32, or numpy), then times it: the median of `--runs` (100) calls
after 3 warm-up calls, each call copying the inputs in from and the outputs
out to host memory. With torch CUDA there, the same architecture (its own
random weights) is timed in torch eager too, and torch's matmuls give the
reference TFLOP/s. Writes a markdown table to --out (default stdout only).
Exit status 1 when an output differs.

A device lease is short and a kernel that deadlocks (a wrong barrier count,
say) would spend it: with --case-timeout, a case still running after S
seconds is reported as TIMEOUT and the process ends with status 3 (a
watchdog thread; ctypes calls release the GIL). With --progress FILE, each
case is recorded in FILE as it starts and ends, and cases already started
there are skipped, so run.sh starts the run again after a timeout and goes
on with the next case.
"""
import ctypes
import json
import lzma
import os
import pathlib
import shutil
import statistics
import sys
import tempfile
import threading
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent


def median_ms(fn, runs, sync=lambda: None):
    for _ in range(3):
        fn()
    sync()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def kernel_ms(fn, runs, torch):
    """Median device time of each kernel `fn` launches, by CUPTI (torch's
    profiler sees the kernels of every library in the process): {name:
    (median ms, launches)}; empty when the profiler is unavailable."""
    try:
        from torch.profiler import ProfilerActivity, profile
        fn()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(runs):
                fn()
            torch.cuda.synchronize()
        times = {}
        for e in prof.events():
            t = getattr(e, "device_time", None)
            if t is None:
                t = getattr(e, "cuda_time", 0)
            if t:
                times.setdefault(e.name, []).append(t / 1e3)
        return {k: (statistics.median(v), len(v)) for k, v in times.items()}
    except Exception as e:  # noqa: BLE001 (a missing CUPTI must not stop the run)
        print(f"(no kernel times: {e})", file=sys.stderr)
        return {}


def torch_cuda():
    if os.environ.get("TRACED_GPU_NO_TORCH"):
        return None
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def torch_model(torch, name):
    """The case's architecture in torch (random weights), or None."""
    sys.path.insert(0, str(HERE.parents[1] / "python" / "tests"))
    try:
        from models import real_models
    except ImportError:
        return None
    base = name.replace("_b32", "")
    if not hasattr(torch_model, "models"):
        torch_model.models = real_models()
    models = torch_model.models
    return models[base][0].cuda().eval() if base in models else None


def unxz(src, dst):
    with lzma.open(src) as f, open(dst, "wb") as g:
        shutil.copyfileobj(f, g)
    return dst


class Library:
    def __init__(self, path, runtime):
        self.runtime = runtime
        self.lib = ctypes.CDLL(str(path))
        self.check("loading the kernels")
        self.entry = self.lib.traced_forward
        self.entry.argtypes = [ctypes.POINTER(ctypes.c_void_p)] * 2
        self.entry.restype = ctypes.c_int

    def check(self, what):
        message = self.runtime.traced_cuda_last_error()
        if message:
            raise RuntimeError(f"{what}: {message.decode()}")

    def caller(self, inputs, outputs):
        return self.caller_ptrs([a.ctypes.data for a in inputs],
                                [a.ctypes.data for a in outputs])

    def caller_ptrs(self, inputs, outputs):
        ins = (ctypes.c_void_p * len(inputs))(*inputs)
        outs = (ctypes.c_void_p * len(outputs))(*outputs)
        def run():
            if self.entry(ins, outs) != 0:
                raise RuntimeError("a run-time check failed")
        return run


def on_torch_stream(torch, runtime, lib, ins_d, expected, scale, tol, runs):
    """The call on torch's current stream (traced_gpu_set_stream), with no
    synchronization before it: torch writes the inputs, the call reads
    them and torch reads the output, all queued on one stream. Returns
    (note for the table, whether the output matched)."""
    if not hasattr(runtime, "traced_gpu_set_stream"):
        return "", True
    runtime.traced_gpu_set_stream.argtypes = [ctypes.c_void_p]
    stream = torch.cuda.current_stream().cuda_stream
    staged = [torch.zeros_like(x) for x in ins_d]
    out_s = torch.zeros(expected.shape, device="cuda")
    call = lib.caller_ptrs([x.data_ptr() for x in staged], [out_s.data_ptr()])

    def run_s():
        runtime.traced_gpu_set_stream(stream)
        try:
            call()
        finally:
            runtime.traced_gpu_unset_stream()

    torch.cuda.synchronize()
    # Ordering: the inputs are filled by torch just before the call, and
    # the output read just after, with no synchronization in between.
    for dst, src in zip(staged, ins_d):
        torch.cuda._sleep(1_000_000)  # keep the stream busy before the copy
        dst.copy_(src)
    run_s()
    got = out_s.clone().cpu().numpy()
    lib.check("the call on torch's stream")
    err = float(np.abs(got.astype(np.float64) - expected).max()) / scale
    good = err <= tol
    t_s = median_ms(run_s, runs, torch.cuda.synchronize)
    return (f"; on torch's stream {t_s:.3f} ms (error {err:.1e}"
            + ("" if good else ", DIFFERS") + ")"), good


def as_graph(runtime, lib, inputs, out, expected, scale, tol, runs):
    """The call as a CUDA graph (traced_gpu_graph_call) on CUDA's default
    stream, arguments in device memory the runtime allocates (no torch
    needed, so memcheck runs it too): four calls alternating the case's
    inputs with their elements reversed (a plain call, a capture, two
    replays), the first inputs' results against the interpreter, the
    others' against a plain call's. Returns (note for the table, whether
    everything matched)."""
    if not hasattr(runtime, "traced_gpu_graph_call"):
        return "", True
    vp, u64 = ctypes.c_void_p, ctypes.c_uint64
    call = runtime.traced_gpu_graph_call
    call.argtypes = [vp, ctypes.POINTER(vp), ctypes.POINTER(u64), ctypes.c_int32,
                     ctypes.POINTER(vp), ctypes.POINTER(u64), ctypes.c_int32, vp]
    call.restype = ctypes.c_int32
    runtime.mgpuMemAlloc.argtypes = [u64, vp, ctypes.c_bool]
    runtime.mgpuMemAlloc.restype = vp
    runtime.mgpuMemcpy.argtypes = [vp, vp, ctypes.c_size_t, vp]
    runtime.mgpuMemFree.argtypes = [vp, vp]
    runtime.mgpuStreamSynchronize.argtypes = [vp]

    def sync():
        runtime.mgpuStreamSynchronize(None)

    reversed_inputs = [np.ascontiguousarray(x.reshape(-1)[::-1]).reshape(x.shape)
                       for x in inputs]
    blocks = []

    def device(nbytes):
        blocks.append(runtime.mgpuMemAlloc(max(nbytes, 1), None, False))
        return blocks[-1]

    def upload(arrays):
        ptrs = [device(a.nbytes) for a in arrays]
        for p, a in zip(ptrs, arrays):
            runtime.mgpuMemcpy(p, a.ctypes.data, a.nbytes, None)
        return ptrs

    def download(ptrs):
        """The outputs at `ptrs`, once the stream has finished."""
        arrays = [np.empty_like(out) for _ in ptrs]
        for a, p in zip(arrays, ptrs):
            runtime.mgpuMemcpy(a.ctypes.data, p, out.nbytes, None)
        sync()
        return arrays

    try:
        ins = [upload(inputs), upload(reversed_inputs)]
        outs = [device(out.nbytes) for _ in range(4)]
        in_bytes = (u64 * len(inputs))(*[a.nbytes for a in inputs])
        out_bytes = (u64 * 1)(out.nbytes)
        entry = ctypes.cast(lib.entry, vp)

        def graph_call(which, dst):
            status = call(entry, (vp * len(inputs))(*ins[which]), in_bytes,
                          len(inputs), (vp * 1)(dst), out_bytes, 1, None)
            if status != 0:
                raise RuntimeError(f"a run-time check failed (status {status})")

        for i in range(4):
            graph_call(i % 2, outs[i])
        got = download(outs) + [np.empty_like(out)]
        lib.check("the graph calls")
        lib.caller(reversed_inputs, [got[4]])()
        lib.check("the plain call on the reversed inputs")
        err = max(float(np.abs(got[i].astype(np.float64) - expected).max()) / scale
                  for i in (0, 2))
        other_scale = float(np.abs(got[4].astype(np.float64)).max()) or 1.0
        err_other = max(float(np.abs(got[i].astype(np.float64) - got[4]).max())
                        / other_scale for i in (1, 3))
        good = err <= tol and err_other <= tol
        t = median_ms(lambda: graph_call(0, outs[0]), runs, sync)
        lib.check("the timed graph calls")
        if hasattr(runtime, "traced_gpu_graph_release"):
            # Released, the entry starts over (a plain call, a capture).
            runtime.traced_gpu_graph_release.argtypes = [vp]
            runtime.traced_gpu_graph_release(entry)
            for i in range(2):
                graph_call(1, outs[1 + 2 * i])
            again = download([outs[1], outs[3]])
            lib.check("the graph calls after a release")
            err_again = max(float(np.abs(g.astype(np.float64) - got[4]).max())
                            / other_scale for g in again)
            good &= err_again <= tol
            err_other = max(err_other, err_again)
        return (f"; as a CUDA graph {t:.3f} ms (error {err:.1e}, "
                f"reversed inputs vs a plain call {err_other:.1e}, "
                f"released and called again"
                + ("" if good else ", DIFFERS") + ")"), good
    finally:
        sync()
        for p in blocks:
            runtime.mgpuMemFree(p, None)


def bf16_bits(x):
    """float32 array -> bfloat16 bits (round to nearest even) as uint16."""
    bits = x.astype(np.float32).view(np.uint32)
    rounding = ((bits >> 16) & 1) + 0x7FFF
    return ((bits + rounding) >> 16).astype(np.uint16)


def bf16_value(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def main():
    argv = sys.argv[1:]

    def option(flag, convert, default=None):
        """The value after `flag` in argv (removed from it), else default."""
        if flag not in argv:
            return default
        i = argv.index(flag)
        value = convert(argv[i + 1])
        del argv[i:i + 2]
        return value

    runs = option("--runs", int, 100)
    out_file = option("--out", str)
    case_timeout = option("--case-timeout", float)
    progress = option("--progress", pathlib.Path)
    # With --kernels N: each model case's N kernels of most device time.
    detail = option("--kernels", int, 0)
    # --no-graphs: skip the CUDA graph calls (traced_gpu_graph_call).
    graphs = "--no-graphs" not in argv
    if not graphs:
        argv.remove("--no-graphs")

    def record(event, name):
        """Appends `event name` to the progress file, if there is one."""
        if progress is not None:
            with progress.open("a") as f:
                f.write(f"{event} {name}\n")

    started = set()
    if progress is not None and progress.exists():
        started = {line.split(" ", 1)[1] for line in progress.read_text().splitlines()
                   if line.startswith("start ")}
    art = pathlib.Path(argv[0] if argv else "build/gpu-artifacts")
    only = set(argv[1:])
    manifest = json.loads((art / "manifest.json").read_text())
    work = pathlib.Path(tempfile.mkdtemp(prefix="traced-gpu-"))
    shutil.copy(art / "libtraced_cuda_runtime.so", work)
    runtime = ctypes.CDLL(str(work / "libtraced_cuda_runtime.so"))
    runtime.traced_cuda_last_error.restype = ctypes.c_char_p
    torch = torch_cuda()
    lines = [f"kernels: {manifest['format']} for {manifest['chip']}; torch CUDA: "
             f"{torch.__version__ + ' on ' + torch.cuda.get_device_name() if torch else 'not available'}",
             ""]
    header = ["case", "max error / max abs", "first call", "traced (median)",
              "torch CUDA eager (median)", "note"]
    rows = []
    ok = True
    for name, info in manifest["models"].items():
        if (only and name not in only) or name in started:
            continue
        row = [name, "-", "-", "-", "-", ""]
        rows.append(row)
        record("start", name)
        watchdog = None
        if case_timeout:
            def expire(name=name):
                print(f"{name} | TIMEOUT: still running after {case_timeout:g} s",
                      flush=True)
                record("timeout", name)
                os._exit(3)
            watchdog = threading.Timer(case_timeout, expire)
            watchdog.daemon = True
            watchdog.start()
        try:
            lib_path = unxz(art / f"lib{name}.so.xz", work / f"lib{name}.so")
            start = time.perf_counter()
            lib = Library(lib_path, runtime)
            load_ms = (time.perf_counter() - start) * 1e3
            matmul = info.get("generated", False)
            if matmul:
                (shape, dtype), (shape_b, _) = info["inputs"]
                out_shape = np.matmul(np.zeros(shape, np.float32),
                                      np.zeros(shape_b, np.float32)).shape
                flops = 2 * int(np.prod(out_shape)) * shape[-1]
                rng = np.random.default_rng(0)
                a32 = rng.standard_normal(shape, dtype=np.float32)
                b32 = rng.standard_normal(shape_b, dtype=np.float32)
                if dtype == "bfloat16":
                    a, b = bf16_bits(a32), bf16_bits(b32)
                    a32, b32 = bf16_value(a), bf16_value(b)
                    out = np.empty(out_shape, np.uint16)
                else:
                    a, b, out = a32, b32, np.empty(out_shape, np.float32)
                inputs = [a, b]
            else:
                # A variant of another case reads that case's data.
                data = info.get("data", name)
                inputs = []
                for i in range(len(info["inputs"])):
                    inputs.append(np.ascontiguousarray(np.load(unxz(
                        art / f"{data}_input{i}.npy.xz", work / f"{data}_input{i}.npy"))))
                expected = np.load(art / f"{data}_interpreter.npy")
                out = np.empty(expected.shape, expected.dtype)
            run = lib.caller(inputs, [out])
            start = time.perf_counter()
            run()
            lib.check("the first call")
            row[2] = f"{(time.perf_counter() - start) * 1e3:.1f} ms (load {load_ms:.0f} ms)"
            if matmul:
                got = bf16_value(out) if dtype == "bfloat16" else out
                if torch is not None:
                    torch.backends.cuda.matmul.allow_tf32 = False
                    ta = torch.from_numpy(a32).cuda()
                    tb = torch.from_numpy(b32).cuda()
                    expected = (ta.double() @ tb.double()).float().cpu().numpy()
                else:
                    expected = a32 @ b32
                # TF32 keeps 10 bits of mantissa (bfloat16: 7).
                tol = (1e-2 if dtype == "bfloat16" else
                       5e-3 if name.endswith("_tf32") else 1e-4)
            else:
                got, tol = out, info.get("tolerance", 1e-4)
            scale = float(np.abs(expected).max()) or 1.0
            err = float(np.abs(got.astype(np.float64) - expected).max()) / scale
            row[1] = f"{err:.1e}"
            if not err <= tol:
                ok = False
                row[5] = f"DIFFERS (tolerance {tol:g})"
            first = float(row[2].split()[0])
            n = runs if first < 50 else max(10, int(5000 / first))
            ours = median_ms(run, n)
            lib.check("the timed calls")
            row[3] = f"{ours:.3f} ms"
            if matmul:
                row[5] += f" {flops / ours / 1e9:.1f} TFLOP/s with host copies (x{n})"
                if torch is not None:
                    # Operands and result in device memory (CUDA tensors).
                    dev = [torch.from_numpy(x.view(np.int16) if x.dtype == np.uint16
                                            else x).cuda() for x in (a, b)]
                    out_d = torch.empty(out_shape, dtype=dev[0].dtype, device="cuda")
                    torch.cuda.synchronize()
                    run_d = lib.caller_ptrs([x.data_ptr() for x in dev],
                                            [out_d.data_ptr()])
                    run_d()
                    lib.check("the call on CUDA tensors")
                    got_d = out_d.cpu().numpy()
                    same = np.array_equal(got_d.view(out.dtype), out)
                    # Views 128 bytes into larger tensors: device memory the
                    # kernels cannot use in place (traced_gpu_in_place wants
                    # 256-byte alignment), so the call copies; same result.
                    def shifted(t):
                        flat = torch.zeros(t.numel() + 64, dtype=t.dtype, device="cuda")
                        view = flat[64:].view(t.shape)
                        view.copy_(t)
                        return view
                    dev_s = [shifted(x) for x in dev]
                    out_s = shifted(torch.zeros_like(out_d))
                    torch.cuda.synchronize()
                    lib.caller_ptrs([x.data_ptr() for x in dev_s], [out_s.data_ptr()])()
                    lib.check("the call on unaligned CUDA tensors")
                    unaligned_same = np.array_equal(out_s.cpu().numpy().view(out.dtype), out)
                    t_d = median_ms(run_d, max(10, min(n, int(3000 / max(ours, 1e-3)))))
                    row[3] = f"{t_d:.3f} ms on device ({ours:.1f} ms with host copies)"
                    row[5] = (f" {flops / t_d / 1e9:.1f} TFLOP/s device-resident"
                              + ("" if same else " (DIFFERS from the host-copy run)")
                              + ("" if unaligned_same else " (unaligned views DIFFER)"))
                    # The product's kernel alone (the call also sets up the
                    # tensor maps, launches and waits for its stream).
                    for kname, (kms, count) in sorted(kernel_ms(run_d, 20, torch).items()):
                        if "_mma_" in kname or "_gemm_" in kname:
                            row[5] += (f"; kernel {kname} {kms:.3f} ms = "
                                       f"{flops / kms / 1e9:.1f} TFLOP/s (CUPTI, x{count})")
                    ok &= same and unaligned_same
                    tdt = torch.bfloat16 if dtype == "bfloat16" else torch.float32
                    ta, tb = ta.to(tdt), tb.to(tdt)
                    t = median_ms(lambda: ta @ tb, 20, torch.cuda.synchronize)
                    row[4] = f"{t:.3f} ms ({flops / t / 1e9:.1f} TFLOP/s, device-resident)"
            else:
                row[5] += f" x{n} runs"
                if graphs:
                    graph_note, graph_ok = as_graph(runtime, lib, inputs, out,
                                                    expected, scale, tol, n)
                    row[5] += graph_note
                    ok &= graph_ok
                if torch is not None and expected.dtype == np.float32:
                    # torch CUDA tensors in and out: the runtime copies
                    # device to device, nothing goes through host memory
                    # (what CudaCompiledModule does with CUDA tensors).
                    ins_d = [torch.from_numpy(x).cuda() for x in inputs]
                    out_d = torch.empty(expected.shape, device="cuda")
                    torch.cuda.synchronize()
                    run_d = lib.caller_ptrs([x.data_ptr() for x in ins_d],
                                            [out_d.data_ptr()])
                    run_d()
                    lib.check("the call on CUDA tensors")
                    same = np.array_equal(out_d.cpu().numpy(), out) or (
                        float(np.abs(out_d.cpu().numpy() - expected).max()) / scale <= tol)
                    t_d = median_ms(run_d, n)
                    row[5] += (f"; on CUDA tensors {t_d:.3f} ms"
                               + ("" if same else " (DIFFERS)"))
                    stream_note, stream_ok = on_torch_stream(
                        torch, runtime, lib, ins_d, expected, scale, tol, n)
                    row[5] += stream_note
                    ok &= stream_ok
                    # GPU operations (kernels, copies) per call and their
                    # summed device time (CUPTI): what the call spends
                    # beyond them is host work and gaps between kernels.
                    kernels = kernel_ms(run_d, 10, torch)
                    if kernels:
                        launches = sum(c for _, c in kernels.values()) / 10
                        busy = sum(ms * c for ms, c in kernels.values()) / 10
                        row[5] += (f"; {launches:.0f} GPU ops, "
                                   f"{busy:.3f} ms busy (CUPTI)")
                        top = sorted(kernels.items(), key=lambda kv: -kv[1][0] * kv[1][1])
                        for kname, (kms, count) in top[:detail]:
                            print(f"  {name}: {kname[:60]} {kms * 1e3:.1f} us x{count / 10:g}",
                                  flush=True)
                    ok &= same
                try:
                    model = torch_model(torch, name) if torch is not None else None
                except Exception as e:  # noqa: BLE001 (torch's side is only a comparison)
                    model = None
                    row[4] = f"torch: {e}"[:60]
                if model is not None:
                    xs = [torch.from_numpy(x) for x in inputs]
                    def eager():
                        with torch.no_grad():
                            model(*[x.cuda() for x in xs]).cpu()
                    xs_d = [x.cuda() for x in xs]
                    def eager_d():
                        with torch.no_grad():
                            model(*xs_d)
                    try:
                        row[4] = f"{median_ms(eager, 50, torch.cuda.synchronize):.3f} ms"
                        row[5] += (f"; torch on CUDA tensors "
                                   f"{median_ms(eager_d, 50, torch.cuda.synchronize):.3f} ms")
                    except Exception as e:  # e.g. a CPU constant in forward
                        row[4] = f"torch: {e}"[:60]
        except Exception as e:  # report and go on with the next case
            ok = False
            row[5] = f"FAILED: {e}"[:300]
            runtime.traced_cuda_clear_error()
        if watchdog is not None:
            watchdog.cancel()
        record("end", name)
        print(" | ".join(row), flush=True)
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    table = ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |"
             for r in [header] + rows]
    table.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    lines += table
    lines += ["", "Times include copying the inputs from and the outputs to host "
              "memory (pageable numpy arrays, staged through pinned buffers); "
              "torch eager likewise (.cuda() and .cpu()) except for the "
              "matmuls, whose torch operands stay on the device."]
    text = "\n".join(lines)
    print(text)
    if out_file:
        pathlib.Path(out_file).write_text(text + "\n")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
