#!/usr/bin/env python3
"""Builds seed corpora from test/ and runs the libFuzzer targets.

    run.py --build build-asan [--seconds 20] [--runs N] TARGET...

Seeds (rebuilt each run, under BUILD/fuzz/seeds/TARGET):
  parse, interpret  every .mlir file under test/ and docs/examples, split at
                    `// -----` as lit's --split-input-file does;
  bytecode          those seeds written as bytecode by traced-opt (with
                    TracedIR's integrity stamp) and each again without
                    it, plus test/Fuzz/upstream (files MLIR's reader
                    aborts, hangs or overflows a buffer on);
  json              the JSON traces under test/ and the parse seeds
                    exported by traced-translate --export-trace;
  npy               .npy files of every dtype numpy writes, 0-d, empty,
                    Fortran-ordered, format versions 1.0 to 3.0;
  diff              a few fixed random byte strings (choice streams);
  onnx              the ONNX node tests' models (libonnx-testdata) and
                    the parse seeds exported by --export-onnx;
plus every past finding under test/Fuzz/TARGET. Each target then runs on
BUILD/fuzz/corpus/TARGET (kept between runs, so long runs build on each
other; --smoke starts from the seeds alone, and runs diff on fixed random
streams without mutation, which is repeatable where diff's mutation was
not: docs/reliability.md) for
--seconds, or until --runs executions. A crash, a sanitizer report, a
timeout or running out of memory fails the run; the input is saved as
BUILD/fuzz/findings/TARGET-*. Crashes inside upstream MLIR that match
KNOWN_UPSTREAM are counted, saved as findings/upstream-*, and the target
is restarted with the next -seed. A summary (executions, seconds,
findings per target) is printed and written to BUILD/fuzz/summary.json.
"""
import argparse
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENV = dict(os.environ,
           ASAN_OPTIONS="detect_leaks=0:allow_user_poisoning=0:abort_on_error=1",
           UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")


def mlir_seeds():
    seeds = []
    for base in ("test", "docs/examples"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, base)):
            for f in sorted(files):
                if not f.endswith(".mlir"):
                    continue
                text = open(os.path.join(dirpath, f), encoding="utf-8").read()
                for i, part in enumerate(re.split(r"^// -----\s*$", text,
                                                  flags=re.M)):
                    rel = os.path.relpath(os.path.join(dirpath, f), ROOT)
                    seeds.append((rel.replace("/", "_") + f".{i}", part))
    return seeds


#: The start of the integrity stamp in the producer string of the bytecode
#: traced-opt writes (include/TracedIR/Support/Untrusted.h).
STAMP = b"TracedIR+blake3:"


def write(path, data):
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def make_seeds(build, target, out):
    os.makedirs(out, exist_ok=True)
    tool = os.path.join(build, "bin")
    if target in ("parse", "interpret"):
        for name, text in mlir_seeds():
            write(os.path.join(out, name), text)
    elif target in ("bytecode", "json"):
        tmp = os.path.join(build, "fuzz", "tmp")
        os.makedirs(tmp, exist_ok=True)
        for name, text in mlir_seeds():
            src = os.path.join(tmp, "seed.mlir")
            write(src, text)
            if target == "bytecode":
                cmd = [os.path.join(tool, "traced-opt"), "--emit-bytecode", src]
            else:
                cmd = [os.path.join(tool, "traced-translate"),
                       "--export-trace", src]
            r = subprocess.run(cmd, capture_output=True, env=ENV, timeout=60)
            if r.returncode == 0 and r.stdout:
                write(os.path.join(out, name), r.stdout)
                if target == "bytecode" and STAMP in r.stdout:
                    # The same bytes without TracedIR's integrity stamp (a
                    # producer string of the same length): mutations of a
                    # stamped seed mostly stop at the stamp, those of this
                    # one reach MLIR's reader.
                    write(os.path.join(out, name + ".unstamped"),
                          r.stdout.replace(STAMP, b"TracedIR-nostamp", 1))
        if target == "json":
            for dirpath, _, files in os.walk(os.path.join(ROOT, "test")):
                for f in files:
                    if f.endswith(".json"):
                        shutil.copy(os.path.join(dirpath, f), out)
    elif target == "npy":
        import numpy as np
        from numpy.lib import format as npformat
        arrays = []
        for dtype in ("bool", "uint8", "int8", "int16", "int32", "int64",
                      "float16", "float32", "float64"):
            for shape in ((), (0,), (3,), (2, 3), (1, 0, 2)):
                arrays.append(np.arange(int(np.prod(shape)) or 0)
                              .reshape(shape).astype(dtype))
        arrays.append(np.asfortranarray(np.arange(3, dtype=np.float32)))
        arrays.append(np.arange(4, dtype=">f4"))  # refused: big-endian
        for i, a in enumerate(arrays):
            for version in ((1, 0), (2, 0), (3, 0)):
                buf = io.BytesIO()
                npformat.write_array(buf, a, version=version)
                write(os.path.join(out, f"a{i}-v{version[0]}.npy"),
                      buf.getvalue())
    elif target == "onnx":
        node = "/usr/share/libonnx-testdata/data/node"
        if os.path.isdir(node):
            for case in sorted(os.listdir(node)):
                model = os.path.join(node, case, "model.onnx")
                if os.path.isfile(model):
                    shutil.copy(model, os.path.join(out, case + ".onnx"))
        tmp = os.path.join(build, "fuzz", "tmp")
        os.makedirs(tmp, exist_ok=True)
        for name, text in mlir_seeds():
            src = os.path.join(tmp, "seed.mlir")
            write(src, text)
            r = subprocess.run([os.path.join(tool, "traced-translate"),
                                "--export-onnx", src],
                               capture_output=True, env=ENV, timeout=60)
            if r.returncode == 0 and r.stdout:
                write(os.path.join(out, name + ".onnx"), r.stdout)
    elif target == "diff":
        rng = random.Random(0)
        for i in range(32):
            write(os.path.join(out, f"r{i}"),
                  bytes(rng.randrange(256) for _ in range(96)))
    if target == "bytecode":
        # The files MLIR's reader aborts, hangs or overflows a buffer on:
        # the sandbox must survive them, and their mutants.
        upstream = os.path.join(ROOT, "test", "Fuzz", "upstream")
        for f in os.listdir(upstream):
            shutil.copy(os.path.join(upstream, f), out)
    findings = os.path.join(ROOT, "test", "Fuzz", target)
    if os.path.isdir(findings):
        for f in os.listdir(findings):
            # (diff's stored graphs are MLIR text, not choice streams:
            # lit replays them; mutated, they would mostly not parse.)
            if target == "diff" and f.endswith(".mlir"):
                continue
            shutil.copy(os.path.join(findings, f), out)


#: Crashes inside upstream MLIR 22 (libMLIR.so) that no code of ours can
#: guard against, each described in docs/reliability.md: they are counted
#: and saved as findings/upstream-*, and fuzzing goes on. Empty now: MLIR
#: 22's bytecode reader (corrupt counts: LLVM ERROR: SmallVector unable to
#: grow; corrupt offsets: wild reads and writes; hangs) was the one entry,
#: and only the bytecode target reads bytecode, in the sandbox's child
#: (include/TracedIR/Support/Untrusted.h), where such a crash is a refusal.
#: A crash of the target's own process in the reader would be a finding.
KNOWN_UPSTREAM = [
    # (name, a marker of the innermost frame that decides), e.g.
    # ("bytecode-reader", "mlir::BytecodeReader::Impl"),
]


def upstream_crash(report):
    """The KNOWN_UPSTREAM name of the crash in `report`, or None: the first
    stack frame that names a function of upstream's list or a source file of
    ours decides."""
    for line in report.splitlines():
        if not re.match(r"\s*#\d+ 0x", line):
            continue
        for name, marker in KNOWN_UPSTREAM:
            if marker in line:
                return name
        # A frame with a source line of ours (not just our binary's path).
        if re.search(re.escape(ROOT) + r"/(lib|include|tools|python)/\S+:\d+",
                     line):
            return None
    return None


#: Executions per target in a --smoke run: a fixed count, not a time, so
#: that libFuzzer (seed 1, the same seeds) takes the same path on every
#: machine and `make check` is repeatable. About 20 s each on this machine;
#: diff 1,000 (about 40 s): 300 missed real findings that came at 283 to
#: 990 executions, and a planted bug confined to one entry's signed integer
#: case went unfound in 1,000 (docs/reliability.md, "Planted bugs"). For
#: diff the count is of fixed streams, each run once (smoke_diff).
SMOKE_RUNS = {"parse": 4000, "bytecode": 2000, "json": 20000,
              "npy": 2000000, "interpret": 100000, "diff": 1000,
              "onnx": 20000}

#: Flags of one target. bytecode: each input is read in a forked child,
#: which inherits libFuzzer's malloc hook; a child's allocation over
#: -malloc_limit_mb (default: -rss_limit_mb) would make the child report an
#: out-of-memory and save its input as an artifact, although the child's
#: death is only a refusal. The child's memory is bounded by the sandbox.
TARGET_FLAGS = {"bytecode": ["-malloc_limit_mb=1048576"]}


def smoke_diff(build, base, findings, count):
    """The diff target's smoke run: `count` choice streams of 64 to 255
    bytes from random.Random(1), each run
    once, in order. Not libFuzzer's mutation: the diff target's coverage
    varies from run to run (pointer-keyed hash tables in instrumented code,
    at a guess), so a mutating run took another path on every machine, and
    on this one from run to run, and CI turned red on old bugs it happened
    to reach. These streams are the same everywhere; `make fuzz-long`
    explores."""
    streams = os.path.join(base, "smoke-streams")
    shutil.rmtree(streams, ignore_errors=True)
    os.makedirs(streams)
    rng = random.Random(1)
    paths = []
    for i in range(count):
        path = os.path.join(streams, f"s{i:04d}")
        write(path, bytes(rng.randrange(256)
                          for _ in range(rng.randrange(64, 256))))
        paths.append(path)
    binary = os.path.join(build, "bin", "traced-fuzz-diff")
    r = subprocess.run([binary, "-timeout=60", "-rss_limit_mb=4096",
                        "-detect_leaks=0", *paths], capture_output=True,
                       text=True, env=ENV, errors="replace")
    executed = len(re.findall(r"^Executed ", r.stderr, re.M))
    result = {"target": "diff", "executions": executed, "seconds": 0.0,
              "exit": r.returncode, "upstream": 0}
    if r.returncode:
        ran = re.findall(r"^Running: (\S+)", r.stderr, re.M)
        if ran:
            kept = os.path.join(findings, "diff-smoke-" +
                                os.path.basename(ran[-1]))
            shutil.copy(ran[-1], kept)
            print(f"the failing stream: {kept}", file=sys.stderr)
        tail = "\n".join(r.stderr.splitlines()[-60:])
        print(f"== traced-fuzz-diff FAILED (exit {r.returncode}) ==\n{tail}",
              file=sys.stderr)
    return result


def run(build, target, seconds, runs, smoke):
    base = os.path.join(build, "fuzz")
    seeds = os.path.join(base, "seeds", target)
    corpus = os.path.join(base, "smoke" if smoke else "corpus", target)
    findings = os.path.join(base, "findings")
    shutil.rmtree(seeds, ignore_errors=True)
    if smoke:  # the same inputs every time: the seeds alone
        shutil.rmtree(corpus, ignore_errors=True)
    os.makedirs(findings, exist_ok=True)
    if smoke and target == "diff":
        start = time.time()
        result = smoke_diff(build, base, findings, runs)
        result["seconds"] = round(time.time() - start, 1)
        result["corpus"] = 0
        return result
    make_seeds(build, target, seeds)
    os.makedirs(corpus, exist_ok=True)
    # The seeds as a list in name order, not a folder: libFuzzer shuffles
    # (with -seed) and sorts by size the files in the order it finds them,
    # and a folder's order is the file system's (ext4 hashes names with a
    # seed of its own), so a smoke run took another path on CI's machine
    # and found what the same run here did not.
    listing = os.path.join(base, f"seeds-{target}.txt")
    write(listing, ",".join(os.path.join(seeds, f)
                            for f in sorted(os.listdir(seeds))))
    seed_args = [f"-seed_inputs=@{listing}"]
    result = {"target": target, "executions": 0, "seconds": 0.0, "exit": 0,
              "upstream": 0}
    start = time.time()
    seed = 1
    while True:
        left = seconds - (time.time() - start)
        if left < 1 or (runs and result["executions"] >= runs):
            break
        cmd = [os.path.join(build, "bin", f"traced-fuzz-{target}"),
               f"-max_total_time={int(left)}", "-timeout=60",
               "-rss_limit_mb=4096", "-print_final_stats=1", "-detect_leaks=0",
               f"-seed={seed}", f"-artifact_prefix={findings}/{target}-",
               *TARGET_FLAGS.get(target, []), corpus, *seed_args]
        if runs:
            cmd.insert(1, f"-runs={runs - result['executions']}")
        # (Not fast_unwind_on_malloc=0: unwinding every malloc through
        # libgcc made units slow enough to time out, and libFuzzer's
        # timeout handler then deadlocked on the unwinder's lock.)
        r = subprocess.run(cmd, capture_output=True, text=True, env=ENV,
                           errors="replace")
        execs = re.search(r"stat::number_of_executed_units:\s*(\d+)", r.stderr)
        result["executions"] += int(execs.group(1)) if execs else 0
        if r.returncode == 0:
            break
        saved = re.search(r"Test unit written to (\S+)", r.stderr)
        report = r.stderr
        if saved:
            # Replay the one input with full stacks: a malloc's stack is cut
            # short in uninstrumented libMLIR.so by the fast unwinder. The
            # diff target also writes the input's graph, with its inputs,
            # as findings/diff-graph-*.mlir: the form test/Fuzz/diff keeps
            # (a choice stream means another graph after an op-table change).
            env = dict(ENV, ASAN_OPTIONS=ENV["ASAN_OPTIONS"] +
                       ":fast_unwind_on_malloc=0")
            if target == "diff":
                graph = os.path.join(findings, "diff-graph-" + os.path.basename(
                    saved.group(1)).split("-", 1)[-1] + ".mlir")
                env["TRACED_FUZZ_SAVE_GRAPH"] = graph
            try:
                replay = subprocess.run(
                    [cmd[0], saved.group(1)], capture_output=True, text=True,
                    errors="replace", timeout=120, env=env)
                if target == "diff":
                    # (None when the input crashes while its graph is built,
                    # as in a result rule.)
                    print(f"graph of the finding: {graph}"
                          if os.path.exists(graph) else
                          "the finding crashes before its graph is built",
                          file=sys.stderr)
                report = replay.stderr
            except subprocess.TimeoutExpired:
                pass  # (a timeout finding: no stack to classify)
        known = upstream_crash(report)
        if known and saved and result["upstream"] < 50:
            result["upstream"] += 1
            os.replace(saved.group(1), os.path.join(
                findings, f"upstream-{known}-{os.path.basename(saved.group(1))}"))
            seed += 1
            continue
        result["exit"] = r.returncode
        tail = "\n".join(r.stderr.splitlines()[-60:])
        print(f"== traced-fuzz-{target} FAILED (exit {r.returncode}) ==\n{tail}",
              file=sys.stderr)
        break
    result["seconds"] = round(time.time() - start, 1)
    result["corpus"] = len(os.listdir(corpus))
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", required=True)
    p.add_argument("--seconds", type=int, default=20)
    p.add_argument("--runs", type=int, default=0)
    p.add_argument("--summary", default="summary.json",
                   help="file name of the summary, under BUILD/fuzz")
    p.add_argument("--smoke", action="store_true",
                   help="a short run for make check: from the seeds alone "
                        "(a fresh corpus), seed 1, SMOKE_RUNS executions per "
                        "target (about 20 s each here) unless --runs is "
                        "given (diff: that many fixed streams, each run once)")
    p.add_argument("targets", nargs="+")
    args = p.parse_args()
    build = os.path.abspath(args.build)
    results = []
    for t in args.targets:
        runs = args.runs or (SMOKE_RUNS[t] if args.smoke else 0)
        seconds = max(args.seconds, 600) if args.smoke else args.seconds
        res = run(build, t, seconds, runs, args.smoke)
        results.append(res)
        status = "ok" if res["exit"] == 0 else "FINDING"
        upstream = (f", {res['upstream']} known upstream crash(es)"
                    if res["upstream"] else "")
        print(f"traced-fuzz-{t:10s} {res['executions']:>9d} executions "
              f"in {res['seconds']:7.1f} s, corpus {res['corpus']:5d}: "
              f"{status}{upstream}", flush=True)
    with open(os.path.join(build, "fuzz", args.summary), "w") as f:
        json.dump(results, f, indent=1)
    sys.exit(1 if any(r["exit"] for r in results) else 0)


if __name__ == "__main__":
    main()
