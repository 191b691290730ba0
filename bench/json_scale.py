"""How JSON trace import scales, up to a 1 GiB trace (issue 16, item 5).

Writes traces of growing size of two kinds and measures
`traced-translate --import-trace FILE -o /dev/null` on each (resource blobs
elided from the printed IR): CPU time and peak memory (/usr/bin/time -v).

- weights: a root module with one float32 parameter of N MiB (base64 in the
  JSON, 4/3 of its size) and a forward that adds it to its input;
- exprs: a forward of N chained `torch.relu` calls.

Time and memory should grow linearly with the file. Usage:

    /usr/bin/python3 bench/json_scale.py [--build build] [--out /tmp/json_scale]
        [--weights-mib 64,256,768] [--exprs 100000,400000,1600000]

Prints a Markdown table (docs/reliability.md quotes one run).
"""
import argparse
import base64
import json
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tensor_type(shape):
    return {"tensor": {"dtype": "float32", "shape": list(shape)}}


def write_weights(path, mib):
    """A parameter of `mib` MiB of float32, streamed so the generator needs
    no copy of it in memory beyond one chunk."""
    n = mib * (1 << 20) // 4
    head = {
        "format": "traced-trace", "version": 1, "root": "M",
        "modules": [{
            "name": "M", "class": "bench.M",
            "attributes": [{"name": "w", "kind": "parameter",
                            "tensor": {"dtype": "float32", "shape": [n],
                                       "base64": "@@B64@@"}}],
            "graphs": [{
                "name": "forward",
                "inputs": [{"name": "self", "type": {"module": "M"}},
                           {"name": "x", "type": tensor_type([n])}],
                "exprs": [
                    {"kind": "GetAttr", "self": "self", "name": "w",
                     "outputs": [{"name": "w", "type": tensor_type([n])}]},
                    {"kind": "CallFunction", "func": "torch.add",
                     "args": [{"node": "x"}, {"node": "w"}], "kwargs": {},
                     "outputs": [{"name": "y", "type": tensor_type([n])}]},
                ],
                "outputs": ["y"],
            }],
        }],
    }
    before, after = json.dumps(head).split("@@B64@@")
    chunk = (b"\x00\x00\x80\x3f" * (3 << 18))  # 3 MiB of 1.0f, base64-aligned
    with open(path, "w") as f:
        f.write(before)
        left = n * 4
        while left:
            piece = chunk[:min(left, len(chunk))]
            f.write(base64.b64encode(piece).decode())
            left -= len(piece)
        f.write(after)


def write_exprs(path, count):
    shape = [4]
    with open(path, "w") as f:
        f.write(json.dumps({
            "format": "traced-trace", "version": 1, "root": "M",
            "modules": [{"name": "M", "class": "bench.M", "attributes": [],
                         "graphs": [{"name": "forward",
                                     "inputs": [{"name": "self", "type": {"module": "M"}},
                                                {"name": "x0", "type": tensor_type(shape)}],
                                     "exprs": ["@@EXPRS@@"],
                                     "outputs": [f"x{count}"]}]}]})
                .split('"@@EXPRS@@"')[0])
        for i in range(count):
            if i:
                f.write(",")
            f.write(json.dumps({"kind": "CallFunction", "func": "torch.relu",
                                "args": [{"node": f"x{i}"}], "kwargs": {},
                                "outputs": [{"name": f"x{i + 1}",
                                             "type": tensor_type(shape)}]}))
        f.write("]," + json.dumps({"outputs": [f"x{count}"]})[1:-1]
                + "}]}]}")


def measure(build, path):
    """(file size, wall seconds, peak RSS bytes) of importing `path`."""
    size = os.path.getsize(path)
    r = subprocess.run(["/usr/bin/time", "-v", os.path.join(build, "bin", "traced-translate"),
                        "--import-trace", path,
                        "--mlir-elide-resource-strings-if-larger=64", "-o", "/dev/null"],
                       capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(f"{path}: import failed:\n{r.stderr[-2000:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1))
    # CPU time (user + system) rather than wall time: it does not depend
    # on what else the machine runs.
    cpu = sum(float(re.search(rf"{k} time \(seconds\): ([\d.]+)", r.stderr).group(1))
              for k in ("User", "System"))
    return size, cpu, rss * 1024


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--out", default="/tmp/json_scale")
    p.add_argument("--weights-mib", default="64,256,768")
    p.add_argument("--exprs", default="100000,400000,1600000")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for mib in [int(x) for x in args.weights_mib.split(",") if x]:
        path = os.path.join(args.out, f"weights-{mib}.json")
        write_weights(path, mib)
        rows.append((f"one {mib} MiB parameter",) + measure(args.build, path))
        os.remove(path)
    for count in [int(x) for x in args.exprs.split(",") if x]:
        path = os.path.join(args.out, f"exprs-{count}.json")
        write_exprs(path, count)
        rows.append((f"{count:,} exprs",) + measure(args.build, path))
        os.remove(path)
    print("| trace | JSON size | import CPU time | peak memory | memory / size |")
    print("|---|---|---|---|---|")
    for name, size, cpu, rss in rows:
        print(f"| {name} | {size / 2**20:,.0f} MiB | {cpu:.1f} s | "
              f"{rss / 2**20:,.0f} MiB | {rss / size:.1f}x |")


if __name__ == "__main__":
    main()
