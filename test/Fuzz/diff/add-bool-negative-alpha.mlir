// traced-fuzz-diff graph: replayed by traced-fuzz-diff (interpreter against compiled code)
// and by python/tests/test_fuzz_replay.py (against torch too).
// Found on 2026-11-29 by CI's smoke run: torch.add of two bool tensors with
// alpha=-1. torch takes alpha as a bool in bool arithmetic (x | y for any
// nonzero alpha), as compiled code does; the interpreter stored bool as
// uint8 and wrapped -1 to 255 (1 + 255 = 0 in uint8): False where torch
// gives True.
module attributes {fuzz.inputs = [dense<5> : tensor<i64>, dense<-4.500000e+00> : tensor<f64>, dense<[[true, true, true], [true, false, true], [true, true, true]]> : tensor<3x3xi1>]} {
  traced.module root @M class "fuzz.M" {
    graph @forward(%self: !traced.module<@M>, %x0: tensor<i64>, %x1: tensor<f64>, %x2: tensor<3x3xi1>) -> tensor<3x3xi1> {
      %add_out = call_function "torch.add"(input=%x2, other=%x2, alpha=-1) : (tensor<3x3xi1>, tensor<3x3xi1>) -> tensor<3x3xi1>
      output %add_out : tensor<3x3xi1>
    }
  }
}
