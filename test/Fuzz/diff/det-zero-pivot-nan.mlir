// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Found on 2026-11-29 by a fork-mode run: the determinant of a matrix whose
// zero column sits beside a NaN (0 / 0 above the diagonal): the interpreter
// stopped at the zero pivot and answered 0; compiled code (the elimination
// goes on, as LAPACK's getf2 does) and torch answer NaN. The interpreter's LU
// now updates the rows below a zero pivot too.
module attributes {fuzz.inputs = [dense<[[[1.500000e+00, 1.500000e+00, 1.500000e+00], [1.500000e+00, 1.500000e+00, 7.500000e-01], [1.500000e+00, 1.500000e+00, 3.750000e+00]], [[-7.500000e-01, 0.000000e+00, -1.500000e+00], [-2.250000e+00, 7.500000e-01, 3.000000e+00], [-7.500000e-01, -4.500000e+00, 7.500000e-01]], [[3.000000e+00, -3.750000e+00, 3.750000e+00], [-2.250000e+00, 4.500000e+00, 0.000000e+00], [7.500000e-01, -3.000000e+00, 2.250000e+00]]]> : tensor<3x3x3xf64>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<3x3x3xf64>) -> tensor<3xf64> {
      %div_out = call_function "torch.div"(input=False, other=%x0) : (tensor<3x3x3xf64>) -> tensor<3x3x3xf64>
      %triu_out = call_function "torch.triu"(input=%div_out, diagonal=0) : (tensor<3x3x3xf64>) -> tensor<3x3x3xf64>
      %det_out = call_function "torch.linalg.det"(input=%triu_out) : (tensor<3x3x3xf64>) -> tensor<3xf64>
      output %det_out : tensor<3xf64>
    }
  }
}
