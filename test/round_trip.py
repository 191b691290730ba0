#!/usr/bin/env python3
"""Checks that every .mlir test that is not an error test round-trips.

For each such file (each `// -----` chunk of it), the custom form printed by
traced-opt must be a fixed point, and must come back unchanged through the
generic form and through bytecode.

usage: round_trip.py TRACED_OPT TEST_DIR
"""
import pathlib
import subprocess
import sys


def opt(tool, text, *flags):
    proc = subprocess.run([tool, *flags, "-"], input=text,
                          capture_output=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.decode())
    return proc.stdout


def is_error_test(text):
    return ("-verify-diagnostics" in text or "RUN: not " in text
            or "NO-ROUND-TRIP" in text)


def main():
    tool, root = sys.argv[1], pathlib.Path(sys.argv[2])
    failures, checked = [], 0
    for path in sorted(root.rglob("*.mlir")):
        text = path.read_text()
        if is_error_test(text):
            continue
        for i, chunk in enumerate(text.split("// -----")):
            body = [l for l in chunk.splitlines()
                    if l.strip() and not l.strip().startswith("//")]
            if not body:
                continue
            where = f"{path.relative_to(root)} (chunk {i})"
            try:
                custom = opt(tool, chunk.encode())
                again = opt(tool, custom)
                generic = opt(tool, opt(tool, chunk.encode(),
                                        "--mlir-print-op-generic"))
                bytecode = opt(tool, opt(tool, chunk.encode(),
                                         "-emit-bytecode"))
            except RuntimeError as e:
                failures.append(f"{where}: traced-opt failed:\n{e}")
                continue
            checked += 1
            for name, other in [("custom form reprinted", again),
                                ("generic form", generic),
                                ("bytecode", bytecode)]:
                if other != custom:
                    failures.append(f"{where}: {name} differs")
    print(f"round-tripped {checked} test chunks")
    for f in failures:
        print("FAIL:", f)
    if checked == 0:
        print("FAIL: no tests found")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
