//===- TracedDialect.td - the traced dialect ---------------*- tablegen -*-===//
//
// The `traced` dialect: traced model graphs (MegEngine TracedModule, torch.fx)
// kept at the granularity of the Python API, with their module hierarchy.
//
//===----------------------------------------------------------------------===//

#ifndef TRACED_DIALECT_TD
#define TRACED_DIALECT_TD

include "mlir/IR/OpBase.td"

def Traced_Dialect : Dialect {
  let name = "traced";
  let cppNamespace = "::mlir::traced";
  let summary = "Traced model graphs: module tree, getattr, calls, constants";
  let hasOperationAttrVerify = 1;
  // Quantized tensors (docs/quantization.md) have the quant dialect's
  // element types, and quantized dtypes are its `!quant.any` types.
  let dependentDialects = ["::mlir::quant::QuantDialect"];
  let description = [{
    The `traced` dialect models the graphs that MegEngine's TracedModule and
    torch.fx record when they trace a neural network, at the granularity of
    the Python API: `F.relu6` stays `relu6`, `self.layer1[0].conv1` stays a
    chain of attribute lookups on module instances.

    * A `traced.module` is one module instance (its Python class is an
      attribute). It declares its submodules, parameters, buffers and plain
      attributes, and holds zero or more `traced.graph`s (methods). A leaf
      module such as `torch.nn.Conv2d` has no graph; its meaning comes from the
      op library.
    * A `traced.graph` is TracedModule's InternalGraph: its block arguments are
      the Input exprs (`self` first), its ops are the GetAttr, CallMethod,
      CallFunction and Constant exprs in execution order, and `traced.output`
      returns its output nodes.
    * Tensor nodes are builtin tensors (dtype and shape); Python values are
      builtin `i64`, `f64`, `i1` and `tuple`, plus this dialect's `none`, `str`,
      `list` and `object` types.

    Constant arguments of calls (ints, floats, lists, strings, `None`) are
    attributes written in Python syntax; tensors and other traced values are
    SSA operands. Calls to targets known to the op library are checked against
    the target's signature and result rule, and print in normalized keyword
    form.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
  }];
}

#endif // TRACED_DIALECT_TD
