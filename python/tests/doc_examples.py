"""Runs the examples of README.md and docs/*.md (python/tests/test_doc_examples.py).

Every fenced block marked ```python, ```sh or ```bash is an example and runs,
in document order, in a scratch directory that holds links to the
repository's build/, test/, bench/, tools/ and python/ and a copy of docs/
(so an example that writes docs/images/... writes the copy):

- python blocks of one file share one namespace, as doctest's examples do;
- sh and bash blocks run with `bash -e -o pipefail`, each on its own.

An HTML comment just before a block (blank lines allowed between) says
otherwise:

    <!-- example: skip: the reason -->       not run (make check itself, GPU-only)
    <!-- example: fragment -->                 a piece of a larger listing, not run
    <!-- example: requires: /a/path -->        run only where that path exists
                                               (the CUDA toolkit), else skipped

and comments anywhere in a file set up what its examples assume, run before
the file's first example:

    <!-- example-setup python
    import torch, torchvision, traced
    model = torchvision.models.resnet18().eval()
    -->
    <!-- example-setup sh
    cp docs/examples/simple_module.mlir model.mlir
    -->

Usage: doc_examples.py FILE.md [--list]: runs FILE's examples (exit status
non-zero on the first failure, which is reported with the block's line).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import traceback

LANGUAGES = {"python": "python", "sh": "sh", "bash": "sh"}
_FENCE = re.compile(r"^```(\w*)\s*$")
_DIRECTIVE = re.compile(r"<!--\s*example:\s*(skip|fragment|requires)\b:?\s*(.*?)\s*-->")
_SETUP = re.compile(r"<!--\s*example-setup\s+(python|sh)\n(.*?)-->", re.S)


def blocks(path):
    """(line, language, code, directive, reason) for each fenced block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        language = LANGUAGES.get(m.group(1))
        if language:
            k = i - 1
            while k >= 0 and not lines[k].strip():
                k -= 1
            d = _DIRECTIVE.search(lines[k]) if k >= 0 else None
            out.append((i + 1, language, "\n".join(lines[i + 1:j]) + "\n",
                        d.group(1) if d else None, d.group(2) if d else ""))
        i = j + 1
    return out


def setups(path):
    text = open(path, encoding="utf-8").read()
    return [(m.group(1), m.group(2)) for m in _SETUP.finditer(text)]


def scratch(root, build):
    """A scratch directory with the repository's folders the examples use."""
    d = tempfile.mkdtemp(prefix="traced-doc-")
    for name in ("test", "bench", "tools", "python", "include", "lib"):
        if os.path.exists(os.path.join(root, name)):
            os.symlink(os.path.join(root, name), os.path.join(d, name))
    os.symlink(build, os.path.join(d, "build"))
    shutil.copytree(os.path.join(root, "docs"), os.path.join(d, "docs"))
    for name in ("README.md", "Makefile", "CMakeLists.txt"):
        shutil.copy(os.path.join(root, name), d)
    return d


def run_file(path, root, build, timeout=900):
    cwd = scratch(root, build)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(build, "python") + os.pathsep + \
        env.get("PYTHONPATH", "")
    env["MPLBACKEND"] = "Agg"
    namespace = {"__name__": "__doc_example__"}
    os.chdir(cwd)
    sys.path.insert(0, os.path.join(build, "python"))
    name = os.path.relpath(path, root)

    def run(language, code, where):
        if language == "python":
            try:
                exec(compile(code, where, "exec"), namespace)
            except BaseException:
                traceback.print_exc()
                raise SystemExit(f"{where}: the python example failed")
        else:
            r = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", code],
                               cwd=cwd, env=env, timeout=timeout)
            if r.returncode != 0:
                raise SystemExit(f"{where}: the sh example exited with "
                                 f"status {r.returncode}")

    for language, code in setups(path):
        run(language, textwrap.dedent(code), f"{name} (example-setup)")
    ran = 0
    for line, language, code, directive, reason in blocks(path):
        if directive == "skip":
            print(f"{name}:{line}: skipped ({reason})")
            continue
        if directive == "fragment":
            continue
        if directive == "requires" and not os.path.exists(reason):
            print(f"{name}:{line}: skipped ({reason} does not exist here)")
            continue
        print(f"{name}:{line}: {language}", flush=True)
        run(language, code, f"{name}:{line}")
        ran += 1
    print(f"{name}: {ran} examples ran")


def main():
    path = os.path.abspath(sys.argv[1])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    root = os.path.dirname(root)
    if "--list" in sys.argv:
        for b in blocks(path):
            print(b[0], b[1], b[3] or "", b[4])
        return
    import traced
    build = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(traced.__file__))))
    run_file(path, root, build)


if __name__ == "__main__":
    main()
