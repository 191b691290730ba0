// A module without blobs (input of untrusted-bytecode.test): upstream
// mlir-opt maps no file this small, and bytecode holding blobs needs an
// aligned buffer, which it only gets for a mapped file.
traced.module root @Net class "m.Net" {
  graph @forward(%self: !traced.module<@Net>, %x: tensor<2xf32>) -> tensor<2xf32> {
    %0 = call_method %x["__add__"](1.0) : (tensor<2xf32>) -> tensor<2xf32>
    output %0 : tensor<2xf32>
  }
}
