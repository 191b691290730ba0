// A module with a weight blob, as Module.save writes them (input of
// untrusted-bytecode.test).
traced.module root @Net class "m.Net" {
  parameter @w : tensor<2xf32> = dense_resource<w_blob> : tensor<2xf32>
  graph @forward(%self: !traced.module<@Net>, %x: tensor<2xf32>) -> tensor<2xf32> {
    %w = getattr %self["w"] : !traced.module<@Net> -> tensor<2xf32>
    %0 = call_method %w["__mul__"](%x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    output %0 : tensor<2xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      w_blob: "0x400000000000803F000040C0"
    }
  }
#-}
