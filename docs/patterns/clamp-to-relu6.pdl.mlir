// Recognizes clamp(x, 0, 6) as relu6. Matches the normalized call
// `torch.clamp(input=%x, min=0, max=6)` (after traced-normalize every clamp
// spelling is torch.clamp); the float spelling clamp(x, 0.0, 6.0) would be
// a second pattern with `[#traced.operand<0>, 0.0, 6.0]`.
pdl.pattern @clamp_to_relu6 : benefit(1) {
  %callee = pdl.attribute = "torch.clamp"
  %arguments = pdl.attribute = [#traced.operand<0>, 0, 6]
  %keywords = pdl.attribute = ["input", "min", "max"]
  %input = pdl.operand
  %type = pdl.type
  %clamp = pdl.operation "traced.call_function"(%input : !pdl.value)
      {"callee" = %callee, "arguments" = %arguments, "keywords" = %keywords}
      -> (%type : !pdl.type)
  pdl.rewrite %clamp {
    %relu6_callee = pdl.attribute = "torch.nn.functional.relu6"
    %relu6_arguments = pdl.attribute = [#traced.operand<0>]
    %relu6_keywords = pdl.attribute = ["input"]
    %relu6 = pdl.operation "traced.call_function"(%input : !pdl.value)
        {"callee" = %relu6_callee, "arguments" = %relu6_arguments,
         "keywords" = %relu6_keywords}
        -> (%type : !pdl.type)
    pdl.replace %clamp with %relu6
  }
}
