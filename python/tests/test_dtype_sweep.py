"""The dtype sweep: each op library entry's first float32 samples (opinfo.py)
re-run with their float32 tensors cast to every other dtype (all of them,
then each alone), torch 1.13
against the interpreter (and against the entry's decomposition, which the
compiled path runs, interpreted).

The conformance suite lists dtypes per entry by hand; this sweep asks the
question for every dtype at once, the way a user's model does when it runs
in int64 or float16. For each (sample, dtype):
- torch raises: the op library must refuse it too (at trace or run time);
- torch computes: we compute the same dtype, shape and values (bool and
  integers bit-exact, floats element by element within a loose per-dtype
  tolerance, LOOSE, or an entry's own, ENTRY_TOL, with the reason; the
  conformance samples hold the tight ones).

KNOWN lists what is still open, by entry, as a regex over the sweep's
message and the reason; a listed case that passes fails the suite, so the
list only shrinks.
"""
import itertools

import pytest
import torch

import host

from opinfo import ALL_DTYPES, OPS
from sweeps import assert_known, check, tensor_samples

# torch 1.13 runs bfloat16 convolutions through oneDNN on a CPU with
# AVX-512 (avx512bw); elsewhere (AVX2) through its slow_conv path, which
# rounds partial sums to bfloat16 and refuses transposed convolutions.
_ONEDNN_BF16 = host.ONEDNN_BF16

# Tolerances for values computed in another dtype than the sample's own.
LOOSE = {torch.float16: 2e-2, torch.bfloat16: 8e-2, torch.float32: 1e-4,
         torch.float64: 1e-8}
SAMPLES_PER_ENTRY = 3

_INTS = r"torch\.(u?int\d+)"
KNOWN = {
    "torch.nn.functional.l1_loss": (
        _INTS + r": torch computes",
        "integer operands are refused; torch computes reduction='none' and "
        "'sum' in the integer dtype"),
    **{f"torch.nn.functional.conv_transpose{n}d": (
        r"torch\.bfloat16: torch computes",
        "bfloat16 transposed convolutions are refused; torch runs some "
        "(grouped ones, through oneDNN) and refuses others")
       for n in (1, 2, 3) if _ONEDNN_BF16},
    "torch.ops.aten.gelu_backward.default": (
        r"torch\.bfloat16( \(input [01] only\))?: torch computes it, we refuse",
        "refused on purpose: torch 1.13's oneDNN kernel reads mixed float32 "
        "and bfloat16 operands as the wrong memory (garbage results); on a "
        "CPU without AVX-512 torch's native kernel also takes an integer "
        "grad_output with a bfloat16 input, which stays refused everywhere"),
    "torch.ops.aten.convolution_backward.default": (
        r"\(input 2 only\): torch computes it, we refuse",
        "refused on purpose: torch 1.13's oneDNN path takes a weight of "
        "another float dtype (and gives grad_weight in grad_output's dtype); "
        "its native path, and ours, want one dtype"),
    # Mixed dtypes that torch computes and the op library refuses, with a
    # clear error (open; none computes a different answer):
    "torch.addcdiv": (
        r"\(input [12] only\): torch computes it, we refuse",
        "one integer divisor operand is refused (torch refuses only when both "
        "tensor1 and tensor2 are integral)"),
    "torch.conv_tbc": (
        r"\(input 2 only\): torch computes it, we refuse",
        "a bias of another dtype is refused (torch converts it)"),
    "torch.nn.functional.bilinear": (
        r"\(input 3 only\): torch computes it, we refuse",
        "a bias of another dtype is refused (torch adds it with promotion)"),
    "torch.nn.functional.linear": (
        r"\[1-d\] .*\(input 2 only\): torch computes it, we refuse",
        "a 1-d input's bias of another dtype is refused (torch's matmul + add "
        "path promotes)"),
    "torch.linalg.ldl_factor": (
        r"\[0x0\] torch\.(float16|bfloat16): torch computes it, we refuse",
        "float16 and bfloat16 are refused (no LAPACK kernel; torch returns "
        "an empty matrix's factorization without calling one)"),
    "torch.linalg.matrix_exp": (
        r"torch\.(float16|bfloat16)( \(input 0 only\))?: torch computes it, we refuse",
        "float16 and bfloat16 are refused on purpose (the runtime computes "
        "float32 and float64): torch 1.13's bfloat16 path reads its double "
        "coefficients as bfloat16 memory (inf and NaN results for a 4x4 "
        "of norm 0.3), and computes float16 only for the smallest norms"),
    "torch.ops.aten.native_batch_norm.default": (
        r"torch\.bfloat16 \(input 0 only\): torch computes it, we refuse",
        "a bfloat16 input with float32 weight and statistics is refused "
        "(torch's mixed-precision batch norm; its statistics are float32)"),
}


# Entries whose bfloat16 results torch rounds at intermediate steps (a
# partial sum, each attention step), where the interpreter rounds once and
# is the closer to the float64 value of the same bfloat16 inputs:
# (rtol, atol) for bfloat16, with why. atol is the absolute error a
# near-zero output keeps from torch's intermediates (up to ~100 and ~50
# here), about 2.5 times the largest seen.
ENTRY_TOL = {
    # Without oneDNN's bfloat16 kernels (above), torch's bfloat16
    # convolutions round partial sums to bfloat16. Measured against float64
    # of the same inputs: conv3d [basic] torch 3.28 off, the interpreter
    # 0.48; conv2d 0.72 and 0.24. atol about 2.5 times the largest excess
    # over rtol seen (0.62 for 3-d, 0.12 otherwise).
    **({"torch.convolution": ((LOOSE[torch.bfloat16], 1.6),
                              "[conv3d] bfloat16: torch's slow_conv rounds partial sums"),
        "torch.nn.functional.conv3d": ((LOOSE[torch.bfloat16], 1.6),
                                       "[basic] bfloat16: torch 3.28 off float64, the interpreter 0.48"),
        **{f"torch.nn.functional.conv{n}d": (
            (LOOSE[torch.bfloat16], 0.3),
            "[basic] bfloat16: torch's slow_conv rounds partial sums (conv2d: torch 0.72 "
            "off float64, the interpreter 0.24)") for n in (1, 2)}}
       if not _ONEDNN_BF16 else {}),
    "torch.conv_tbc": (
        (LOOSE[torch.bfloat16], 0.4),
        "[basic] bfloat16: torch -0.363, the interpreter -0.1855, float64 -0.1860"),
    "torch.nn.functional.multi_head_attention_forward": (
        (LOOSE[torch.bfloat16], 0.25),
        "[self attention] bfloat16: torch 0.0654, the interpreter 0.1631, "
        "float64 0.1628"),
    "torch.nn.functional._scaled_dot_product_attention": (
        (LOOSE[torch.bfloat16], 0.35),
        "[causal 4-d] bfloat16: torch -1.0703, the interpreter -1.2891, "
        "float64 -1.2162 (torch 0.146 off float64 at most, the interpreter 0.073)"),
}


def _sweep(entry):
    """The sweep's findings for `entry`: one message per (sample, dtype)."""
    found = []
    floats = lambda sample: any(x.dtype == torch.float32 for x in sample.inputs)  # noqa: E731
    for _, sample in tensor_samples(entry, floats, SAMPLES_PER_ENTRY):
        cast = [i for i, x in enumerate(sample.inputs) if x.dtype == torch.float32]
        # Every float32 tensor in the dtype, then (mixed dtypes, where
        # promotion decides) each alone.
        variants = [(tuple(cast), "")]
        if len(cast) > 1:
            variants += [((i,), f" (input {i} only)") for i in cast]
        for (which, label), dtype in itertools.product(variants, ALL_DTYPES):
            if dtype == torch.float32:
                continue
            inputs = [x.to(dtype) if i in which else x
                      for i, x in enumerate(sample.inputs)]
            # torch computes some steps in an operand's own dtype before
            # promoting, so the least precise operand bounds the agreement.
            coarsest = max((LOOSE.get(x.dtype, 0) for x in inputs), default=0)
            tol = {k: max(v, coarsest) for k, v in LOOSE.items()}
            if entry in ENTRY_TOL:
                tol[torch.bfloat16] = ENTRY_TOL[entry][0]
            check(entry, sample.fn, inputs, f"[{sample.name}] {dtype}{label}", tol, found,
                  labels=("", "decomposed, "))
    return found


@pytest.mark.parametrize("entry", sorted(k for k in OPS if not k.startswith("_")))
def test_dtype_sweep(entry):
    assert_known(_sweep(entry), KNOWN.get(entry), "KNOWN")
