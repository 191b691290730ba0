"""Integer division and remainder on the edge where the hardware traps
(issue 55): `INT64_MIN // -1`, `%`, fmod and trunc division by -1 gave
SIGFPE in the interpreter, traced-translate --interpret and the constant
folder. torch 1.13 itself dies there; TracedIR defines the result as the
wrapped quotient (INT64_MIN) and remainder 0, the same in the
interpreter, the folder and compiled code (docs/interpreter.md)."""
import numpy as np
import torch

import traced

INT64_MIN = -2 ** 63


class Divides(torch.nn.Module):
    def forward(self, a, b):
        return (a // b, a % b, torch.fmod(a, b),
                torch.div(a, b, rounding_mode="trunc"))


# torch itself traps on these constants, so the graph is written as text.
CONSTANTS = """
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) {
    %a = constant dense<[-9223372036854775808, 7, -7, -9223372036854775808]> : tensor<4xi64>
    %b = constant dense<[-1, -1, 2, 3]> : tensor<4xi64>
    %q = call_function "torch.floor_divide"(input=%a, other=%b) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
    %r = call_function "torch.remainder"(input=%a, other=%b) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
    %f = call_function "torch.fmod"(input=%a, other=%b) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
    %t = call_function "torch.div"(input=%a, other=%b, rounding_mode="trunc") : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
    output %q, %r, %f, %t : tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>
  }
}
"""


def _expected(a, b):
    # torch's results where it does not trap; the defined ones at INT64_MIN.
    quotient = np.array([INT64_MIN if (x, y) == (INT64_MIN, -1) else
                         torch.div(torch.tensor(x), torch.tensor(y),
                                   rounding_mode="floor").item()
                         for x, y in zip(a, b)])
    trunc = np.array([INT64_MIN if (x, y) == (INT64_MIN, -1) else
                      torch.div(torch.tensor(x), torch.tensor(y),
                                rounding_mode="trunc").item()
                      for x, y in zip(a, b)])
    rem = np.array([0 if y == -1 else torch.remainder(torch.tensor(x), y).item()
                    for x, y in zip(a, b)])
    fmod = np.array([0 if y == -1 else torch.fmod(torch.tensor(x), y).item()
                     for x, y in zip(a, b)])
    return quotient, rem, fmod, trunc


def test_interpreter_and_compiled_code_agree_without_trapping():
    a = np.array([INT64_MIN, 7, -7, INT64_MIN + 1, INT64_MIN], np.int64)
    b = np.array([-1, -1, 2, -1, 3], np.int64)
    tm = traced.trace(Divides(), torch.tensor([5, 7, -7, 1, 2]), torch.tensor(b))
    expected = _expected(a.tolist(), b.tolist())
    for got in (tm.interpret(a, b), traced.compile(tm)(a, b)):
        for g, e in zip(got, expected):
            np.testing.assert_array_equal(g, e)


def test_the_constant_folder_does_not_trap():
    tm = traced.parse(CONSTANTS)
    tm.run_passes("traced-fold-constants")
    assert "torch.floor_divide" not in str(tm)  # folded
    got = tm.interpret(np.zeros(4, np.int64))
    np.testing.assert_array_equal(got[0], [INT64_MIN, -7, -4, INT64_MIN // 3])
    np.testing.assert_array_equal(got[1], [0, 0, 1, INT64_MIN % 3])
    np.testing.assert_array_equal(got[2], [0, 0, -1, -2])
    np.testing.assert_array_equal(got[3], [INT64_MIN, -7, -3, -(2 ** 63 // 3)])
