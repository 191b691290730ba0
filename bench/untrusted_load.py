"""What reading untrusted bytecode safely costs (issue 55, item 1).

Traces torchvision's resnet50 (random weights), saves it as .mlirbc (with
TracedIR's integrity stamp), and times, in this process, the median of
`--repeat` loads of each kind:

- `load`: traced.load(path): the stamp checked (BLAKE3 over the file), then
  traced-opt reads the bytes in a sandboxed child and writes the module
  back, and this process parses what the child wrote (the default);
- `trusted`: traced.load(path, trusted=True): the stamp checked, the file
  parsed here (the opt-out for files whose stamp verified);
- `unstamped`: traced.load of the same file without the stamp (an old
  file): the child, no hash;
- `raw`: the file read and parsed, no stamp and no child (what
  traced.load did before: `_traced.parse` without a sandbox tool, on the
  unstamped file);
- `save`: Module.save (bytecode and stamp).

Also the tools: `traced-translate --traced-to-graph-text` on the file,
sandboxed (default) and with TRACED_SANDBOX=unstamped, wall time of the
process. Usage:

    PYTHONPATH=build/python /usr/bin/python3 bench/untrusted_load.py [--repeat 5]

Prints a Markdown table, median and minimum (docs/reliability.md quotes
one run).
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import time

import torch
import torchvision

import traced
from traced import _traced

STAMP = b"TracedIR+blake3:"


def median_time(fn, repeat):
    """(median, min) of `repeat` runs, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--model", default="resnet50")
    args = p.parse_args()

    torch.manual_seed(0)
    model = getattr(torchvision.models, args.model)().eval()
    m = traced.trace(model, torch.randn(1, 3, 224, 224))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, f"{args.model}.mlirbc")
        plain = os.path.join(tmp, f"{args.model}-unstamped.mlirbc")
        save = median_time(lambda: m.save(path), args.repeat)
        data = open(path, "rb").read()
        unstamped = data.replace(STAMP, b"TracedIR-nostamp", 1)
        open(plain, "wb").write(unstamped)
        rows = [
            ("load (stamp + sandbox, the default)",
             median_time(lambda: traced.load(path), args.repeat)),
            ("load, trusted=True (stamp, no sandbox)",
             median_time(lambda: traced.load(path, trusted=True), args.repeat)),
            ("load of the unstamped file (sandbox, no stamp)",
             median_time(lambda: traced.load(plain), args.repeat)),
            ("read and parse (no stamp, no sandbox: as before this work)",
             median_time(lambda: _traced.parse(open(plain, "rb").read(), plain),
                         args.repeat)),
            ("Module.save (bytecode + stamp)", save),
        ]
        tool = traced._sandbox_tool().replace("traced-opt", "traced-translate")
        for label, env in (("sandboxed", {}),
                           ("TRACED_SANDBOX=unstamped", {"TRACED_SANDBOX": "unstamped"})):
            cmd = [tool, "--traced-to-graph-text", path, "-o", os.devnull]
            run = lambda: subprocess.run(cmd, check=True, env=dict(os.environ, **env))
            rows.append((f"traced-translate --traced-to-graph-text, {label}",
                         median_time(run, args.repeat)))
        size = len(data) / (1 << 20)
        print(f"{args.model}: {size:.1f} MiB of bytecode, {args.repeat} runs each")
        print()
        print("| what | median s | min s |")
        print("|---|---|---|")
        for label, (median, least) in rows:
            print(f"| {label} | {median:.3f} | {least:.3f} |")


if __name__ == "__main__":
    main()
