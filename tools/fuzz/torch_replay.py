#!/usr/bin/env python3
"""Replays fuzz-diff inputs in torch 1.13 and compares with the interpreter.

    PYTHONPATH=build/python /usr/bin/python3 tools/fuzz/torch_replay.py \\
        [--fuzzer build/bin/traced-fuzz-diff] [--limit N] [--summary] DIR_OR_FILE...

traced-fuzz-diff checks the interpreter against the compiled code; it has
no torch. This replays its inputs (a corpus directory, findings, or
test/Fuzz/diff's stored graphs) the other way: each input's graph and tensors are printed
by the fuzzer (TRACED_FUZZ_VERBOSE=1), parsed here, run in torch through
the graph's generated Python code (`Module.to_torch()`) and by the
interpreter, and compared: the same dtype, shape and values (floats
within the dtype sweep's loose tolerances), or an error in both.

Each difference is printed with its graph; --summary counts them by
message instead. Exit status 1 when any value differs (a refusal that
differs only counts: a traced graph never holds a call torch refuses,
since tracing runs torch).
"""
import argparse
import os
import re
import subprocess
import sys
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))

import torch  # noqa: E402

import traced  # noqa: E402
from test_conformance import compare  # noqa: E402
from test_dtype_sweep import LOOSE  # noqa: E402

DTYPES = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16,
          "bf16": torch.bfloat16, "i64": torch.int64, "i32": torch.int32,
          "i16": torch.int16, "i8": torch.int8, "ui8": torch.uint8, "i1": torch.bool}


def graph_of(fuzzer, path):
    """(module text, input tensors) of one fuzz input (a choice stream or a
    stored graph), or None."""
    r = subprocess.run([fuzzer, path], env=dict(os.environ, TRACED_FUZZ_VERBOSE="1"),
                       capture_output=True, text=True, timeout=120)
    return parse_output(r.stdout + r.stderr)


def parse_output(out):
    """(module text, input tensors) from the output of traced-fuzz-diff
    with TRACED_FUZZ_VERBOSE=1, or None when it printed no graph."""
    start = out.find("module {")
    if start < 0:
        return None
    end = out.find("\n}\n", start)
    text = out[start:end + 2]
    signature = re.search(r"graph @forward\((.*?)\) ->", text)
    if not signature:
        return None
    values = dict((int(k), v) for k, v in re.findall(r"^input (\d+): ?(.*)$", out[end:], re.M))
    inputs = []
    for k, t in enumerate(re.findall(r"%x\d+: tensor<([^>]*)>", signature.group(1))):
        parts = t.split("x")
        dtype = DTYPES[parts[-1]]
        shape = [int(p) for p in parts[:-1]]
        flat = [float(v.replace("-nan", "nan")) for v in values.get(k, "").split()]
        x = torch.tensor(flat, dtype=torch.float64).reshape(shape)
        inputs.append(x != 0 if dtype == torch.bool else x.to(dtype))
    return text, inputs


def replay(text, inputs):
    """None when torch and the interpreter agree, else (kind, message)."""
    m = traced.parse(text)
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = m.to_torch()(*[x.clone() for x in inputs])
        torch_error = None
    except Exception as e:  # noqa: BLE001 - torch's refusal
        torch_error = str(e).splitlines()[0][:150]
    try:
        got = m.interpret(*[x.clone() for x in inputs])
        our_error = None
    except Exception as e:  # noqa: BLE001 - our refusal
        our_error = str(e).splitlines()[0][:150]
    if torch_error or our_error:
        if bool(torch_error) == bool(our_error):
            return None
        if torch_error:
            return "refusal", f"torch raises: {torch_error}; the interpreter computes"
        return "refusal", f"torch computes; the interpreter raises: {our_error}"
    expected = expected if isinstance(expected, tuple) else (expected,)
    coarsest = max((LOOSE.get(x.dtype, 0) for x in inputs), default=0)
    tol = {k: max(v, coarsest) for k, v in LOOSE.items()}
    for i, (g, e) in enumerate(zip(got, expected)):
        why = compare(g, e, tol) if isinstance(e, torch.Tensor) else None
        if why:
            return "value", f"output {i}: {why}"
    return None


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("paths", nargs="+")
    p.add_argument("--fuzzer", default=os.path.join(ROOT, "build", "bin", "traced-fuzz-diff"))
    p.add_argument("--limit", type=int, default=0)
    p.add_argument("--summary", action="store_true")
    args = p.parse_args()
    files = []
    for path in args.paths:
        files += sorted(os.path.join(path, f) for f in os.listdir(path)) if os.path.isdir(path) else [path]
    if args.limit:
        files = files[:args.limit]
    seen, counts, values, ran = set(), {}, 0, 0
    for path in files:
        g = graph_of(args.fuzzer, path)
        if not g or g[0] in seen:
            continue
        seen.add(g[0])
        ran += 1
        try:
            found = replay(*g)
        except Exception as e:  # noqa: BLE001 - parse or codegen
            found = ("tool", f"replay fails: {str(e).splitlines()[0][:150]}")
        if not found:
            continue
        kind, message = found
        values += kind == "value"
        if args.summary:
            key = re.sub(r"<string>:\d+:\d+: ", "", message)[:110]
            counts[key] = counts.get(key, 0) + 1
        else:
            print(f"== {os.path.basename(path)}: {message}\n{g[0]}\ninputs: "
                  f"{[x.flatten().tolist()[:12] for x in g[1]]}\n", flush=True)
    for key, n in sorted(counts.items(), key=lambda kv: -kv[1]):
        print(f"{n:5d}  {key}")
    print(f"{ran} graphs replayed; {values} value differences, "
          f"{sum(counts.values()) - values if args.summary else 'see above for'} other differences")
    return 1 if values else 0


if __name__ == "__main__":
    sys.exit(main())
