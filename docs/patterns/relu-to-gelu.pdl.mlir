// Seed 003's torch.fx example, without C++: every relu becomes a gelu.
// Matches the normalized call `torch.nn.functional.relu(input=%x)` and
// builds the gelu call with the same arguments and result type.
pdl.pattern @relu_to_gelu : benefit(1) {
  %callee = pdl.attribute = "torch.nn.functional.relu"
  %arguments = pdl.attribute
  %keywords = pdl.attribute = ["input"]
  %operands = pdl.operands
  %type = pdl.type
  %relu = pdl.operation "traced.call_function"(%operands : !pdl.range<value>)
      {"callee" = %callee, "arguments" = %arguments, "keywords" = %keywords}
      -> (%type : !pdl.type)
  pdl.rewrite %relu {
    %gelu_callee = pdl.attribute = "torch.nn.functional.gelu"
    %gelu = pdl.operation "traced.call_function"(%operands : !pdl.range<value>)
        {"callee" = %gelu_callee, "arguments" = %arguments, "keywords" = %keywords}
        -> (%type : !pdl.type)
    pdl.replace %relu with %gelu
  }
}
