"""Every example in README.md and docs/*.md runs (doc_examples.py says how
blocks are found, chained and marked as skipped): an example that breaks
fails `make check`."""
import glob
import os
import subprocess
import sys

import pytest

import doc_examples

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILES = ["README.md"] + sorted(
    os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))


@pytest.mark.parametrize("name", FILES)
def test_examples_run(name):
    path = os.path.join(ROOT, name)
    if not any(b[3] in (None, "requires") for b in doc_examples.blocks(path)):
        pytest.skip(f"{name} has no runnable examples")
    r = subprocess.run([sys.executable, doc_examples.__file__, path],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=1800)
    assert r.returncode == 0, r.stdout[-6000:]


def test_skips_give_reasons():
    for name in FILES:
        for line, _, _, directive, reason in doc_examples.blocks(
                os.path.join(ROOT, name)):
            if directive == "skip":
                assert reason, f"{name}:{line}: a skipped example names why"


def test_a_broken_example_fails(tmp_path):
    # The runner itself can fail: a python block that raises and an sh block
    # that exits non-zero both make it exit non-zero with the block's line.
    for body, line in (("```python\nraise ValueError('x')\n```\n", 2),
                       ("```python\nx = 1\n```\n\n```sh\ntest 1 = 2\n```\n", 6)):
        path = tmp_path / "doc.md"
        path.write_text("# A page\n" + body)
        r = subprocess.run([sys.executable, doc_examples.__file__, str(path)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        assert r.returncode != 0 and f"doc.md:{line}" in r.stdout, r.stdout
