"""The differential fuzzer's torch leg: the interpreter, the compiled code
and torch 1.13 agree on fuzz-diff's stored findings (test/Fuzz/diff/*.mlir)
and on a fixed sample of the graphs it generates.

traced-fuzz-diff (the normal build's, which runs each file it is given
once) checks the interpreter against the compiled code and prints the graph
and its inputs (TRACED_FUZZ_VERBOSE=1); tools/fuzz/torch_replay.py runs that
graph in torch through `Module.to_torch()` and in the interpreter and
compares them. Where torch raises and the interpreter computes (a kernel
torch 1.13 lacks: a graph built by hand or by the fuzzer can hold such a
call, a traced one cannot, since tracing runs torch), the graph counts as a
refusal-only difference (docs/reliability.md, "Fuzzing") and is not
compared; torch computing where the interpreter raises, or any value
difference, fails.
"""
import os
import pathlib
import random
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

import traced

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("TRACED_BUILD_DIR", ROOT / "build"))
FUZZER = BUILD / "bin" / "traced-fuzz-diff"
STORED = sorted((ROOT / "test" / "Fuzz" / "diff").glob("*.mlir"))
sys.path.insert(0, str(ROOT / "tools" / "fuzz"))

import torch_replay  # noqa: E402

pytestmark = pytest.mark.skipif(not FUZZER.exists(),
                                reason=f"{FUZZER} is not built")

#: Stored findings where torch 1.13 disagrees with itself, by the element's
#: position (its vectorized kernel and its scalar tail compute differently):
#: the interpreter and compiled code follow one, so torch's values differ
#: at the other positions. Their difference must be of this kind.
TORCH_SELF_INCONSISTENT = {
    "elu-backward-nan": (
        "NaN positions differ",
        "elu_backward of NaN: torch's vectorized kernel takes one branch, "
        "its scalar tail the other; we test x > 0 as the scalar kernel"),
    "hardtanh-backward-nan": (
        "NaN positions differ",
        "hardtanh_backward of NaN: torch's vectorized kernel gives 0 "
        "(min < x < max masks it), its scalar tail NaN; we follow the "
        "vectorized one"),
    "logit-eps-above-half": (
        "element error",
        "logit with eps > 0.5: torch's vectorized kernel clamps "
        "min(max(x, eps), 1 - eps), its scalar tail x < eps ? eps : "
        "x > 1 - eps ? 1 - eps : x; we follow the scalar one"),
}

#: The generated sample: choice streams from these seeds, until this many
#: build a graph (most do; a stream whose calls all fail their result rule
#: builds none).
SAMPLE_SEED = 20261129
SAMPLE_GRAPHS = 36


def _fuzz(path):
    """traced-fuzz-diff on one file: (exit status, its output)."""
    r = subprocess.run([str(FUZZER), str(path)], capture_output=True,
                       text=True, errors="replace", timeout=300,
                       env=dict(os.environ, TRACED_FUZZ_VERBOSE="1"))
    return r.returncode, r.stdout + r.stderr


def _check(path, known=None):
    """None when the graph of `path` is refused before it runs or the three
    agree; "refusal: ..." for a refusal-only difference; raises otherwise."""
    status, out = _fuzz(path)
    assert status == 0 and "invariant failed" not in out, \
        f"{path}: interpreter and compiled code differ:\n{out[-4000:]}"
    if "the verifier refuses the stored graph" in out:
        return "verifier"
    graph = torch_replay.parse_output(out)
    if graph is None:  # builds no graph (a choice stream only)
        return None
    found = torch_replay.replay(*graph)
    if found is None:
        return "agree"
    kind, message = found
    if known and kind == "value" and known[0] in message:
        return "torch self-inconsistent: " + message
    assert kind == "refusal" and message.startswith("torch raises"), \
        f"{path}: torch and the interpreter differ: {message}\n{graph[0]}"
    return "refusal: " + message


@pytest.mark.parametrize("path", STORED, ids=[p.stem for p in STORED])
def test_stored_finding(path):
    outcome = _check(path, TORCH_SELF_INCONSISTENT.get(path.stem))
    assert outcome is not None, f"{path} holds no graph"
    # A finding fixed by a refusal of the verifier is stored as the call it
    # refuses now, and the file says with what message; the others run, and
    # must agree.
    text = path.read_text()
    said = re.search(r"^//.*The fix was a refusal; the verifier refuses it "
                     r"now: (.*)$", text, re.M)
    assert (outcome == "verifier") == bool(said), \
        f"{path.name}: {outcome}, and the file says {said and said.group(1)!r}"
    if said:
        with pytest.raises(Exception, match=re.escape(said.group(1))):
            traced.parse(text)


def test_stored_graphs_are_graphs():
    """Every stored finding is a graph file (a choice stream would build
    another graph after any op-table change)."""
    folder = ROOT / "test" / "Fuzz" / "diff"
    assert STORED, "no stored findings"
    for f in folder.iterdir():
        assert f.suffix == ".mlir", f"{f.name}: not a stored graph"
        assert f.read_text().startswith("// traced-fuzz-diff graph"), f.name


def test_generated_sample(tmp_path):
    rng = random.Random(SAMPLE_SEED)
    streams = []
    for i in range(SAMPLE_GRAPHS * 2):
        path = tmp_path / f"s{i:03d}"
        path.write_bytes(bytes(rng.randrange(256)
                               for _ in range(rng.randrange(64, 256))))
        streams.append(path)
    with ThreadPoolExecutor(2) as pool:
        outcomes = list(pool.map(_check, streams))
    graphs = [o for o in outcomes if o is not None]
    assert len(graphs) >= SAMPLE_GRAPHS, \
        f"only {len(graphs)} of {len(streams)} streams built a graph"
    agree = sum(o == "agree" for o in graphs)
    # Most graphs must be compared with torch, not refused by it.
    assert agree >= len(graphs) // 2, outcomes


def test_interpreter_only_marks():
    """Every entry with a kernel but no lowering (direct or through a
    decomposition) is marked interpreter-only for every call, with a
    reason; an unconditional mark is on such an entry only."""
    marks = traced._traced.interpreter_only_marks()
    lowered = set(traced._traced.lowered_targets())
    families = traced._traced.op_families()
    for entry, rows in marks.items():
        for dtypes, conditional, reason in rows:
            assert reason.strip(), entry
            if not dtypes and not conditional:
                assert entry not in lowered, \
                    f"{entry} is lowered but marked interpreter-only"
    unmarked = [e for e, layers in families.items()
                if "kernel" in layers and e not in lowered
                and not any(not d and not c for d, c, _ in marks.get(e, []))]
    assert not unmarked, f"entries the compiler cannot lower, unmarked: {unmarked}"


def test_refusal_quotes_the_mark():
    """The compiler's refusal of a marked call quotes the op library's
    reason."""
    marks = traced._traced.interpreter_only_marks()
    assert marks, "no interpreter-only marks"
    entry = "torch.nn.functional.dropout"
    reason = marks[entry][0][2]
    m = traced.parse(
        'traced.module root @M class "m.M" {\n'
        '  graph @forward(%self: !traced.module<@M>, %x: tensor<3xf32>) -> tensor<3xf32> {\n'
        f'    %y = call_function "{entry}"(input=%x, p=0.5, training=True) : (tensor<3xf32>) -> tensor<3xf32>\n'
        '    output %y : tensor<3xf32>\n  }\n}\n')
    with pytest.raises(Exception, match=re.escape(reason)):
        traced.compile(m)
