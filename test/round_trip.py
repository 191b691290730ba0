#!/usr/bin/env python3
"""Checks that every .mlir test that is not an error test round-trips.

For each such file (each `// -----` chunk of it), the custom form printed by
traced-opt must be a fixed point, and must come back unchanged through the
generic form and through bytecode.

Two traced-opt processes per file, whatever its number of chunks
(`-split-input-file`): the first parses every chunk, round-trips it
through the generic form and through bytecode (`--verify-roundtrip`, which
fails when either reprints differently) and prints its custom form; the
second reparses those custom forms, which must print the same. A file
whose chunks hold 64-byte-aligned resources (dense weights) fails
`--verify-roundtrip`'s bytecode step for a reason of its own (it reads
back from an unaligned string), so such a file is checked chunk by chunk
through files, as traced-opt reads bytecode from disk (seven processes per
chunk).

usage: round_trip.py TRACED_OPT TEST_DIR
"""
import pathlib
import subprocess
import sys

#: Between the chunks' outputs (traced-opt's --output-split-marker).
MARKER = "// ===== round_trip.py chunk ====="


def opt_one(tool, text, *flags):
    """One chunk through one traced-opt process, bytes in and out."""
    proc = subprocess.run([tool, *flags, "-"], input=text,
                          capture_output=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.decode())
    return proc.stdout


def chunk_by_chunk(tool, chunk):
    """The failures of one chunk's round trips, one process per step."""
    custom = opt_one(tool, chunk.encode())
    again = opt_one(tool, custom)
    generic = opt_one(tool, opt_one(tool, chunk.encode(),
                                    "--mlir-print-op-generic"))
    bytecode = opt_one(tool, opt_one(tool, chunk.encode(), "-emit-bytecode"))
    return [name for name, other in [("custom form reprinted", again),
                                     ("generic form", generic),
                                     ("bytecode", bytecode)]
            if other != custom]


def opt(tool, text, *flags):
    proc = subprocess.run([tool, "-split-input-file",
                           f"--output-split-marker={MARKER}", *flags, "-"],
                          input=text.encode(), capture_output=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.decode())
    return [c.strip() for c in proc.stdout.decode().split(MARKER)]


def is_error_test(text):
    return ("-verify-diagnostics" in text or "RUN: not " in text
            or "NO-ROUND-TRIP" in text)


def has_body(chunk):
    return any(l.strip() and not l.strip().startswith("//")
               for l in chunk.splitlines())


def main():
    tool, root = sys.argv[1], pathlib.Path(sys.argv[2])
    failures, checked = [], 0
    for path in sorted(root.rglob("*.mlir")):
        text = path.read_text()
        if is_error_test(text):
            continue
        chunks = text.split("// -----")
        name = path.relative_to(root)
        try:
            custom = opt(tool, text, "--verify-roundtrip")
            again = opt(tool, "\n// -----\n".join(custom))
        except RuntimeError as e:
            if "is not aligned" not in str(e):
                failures.append(f"{name}: traced-opt failed:\n{e}")
                continue
            for i, chunk in enumerate(chunks):
                if not has_body(chunk):
                    continue
                try:
                    for what in chunk_by_chunk(tool, chunk):
                        failures.append(f"{name} (chunk {i}): {what} differs")
                except RuntimeError as e:
                    failures.append(f"{name} (chunk {i}): traced-opt "
                                    f"failed:\n{e}")
                    continue
                checked += 1
            continue
        if len(custom) != len(chunks) or len(again) != len(chunks):
            failures.append(f"{name}: {len(chunks)} chunks, but traced-opt "
                            f"printed {len(custom)} and {len(again)}")
            continue
        for i, chunk in enumerate(chunks):
            if not has_body(chunk):
                continue
            checked += 1
            if again[i] != custom[i]:
                failures.append(f"{name} (chunk {i}): custom form reprinted "
                                "differs")
    print(f"round-tripped {checked} test chunks")
    for f in failures:
        print("FAIL:", f)
    if checked == 0:
        print("FAIL: no tests found")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
