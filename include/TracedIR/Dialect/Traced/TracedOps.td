//===- TracedOps.td - traced ops ---------------------------*- tablegen -*-===//
//
// Structure (module, declarations, graph, output) and the four Expr kinds
// that are ops (GetAttr, CallMethod, CallFunction, Constant). Input exprs are
// the graph's block arguments.
//
//===----------------------------------------------------------------------===//

#ifndef TRACED_OPS_TD
#define TRACED_OPS_TD

include "TracedIR/Dialect/Traced/TracedDialect.td"
include "TracedIR/Dialect/Traced/TracedTypes.td"
include "TracedIR/Dialect/Traced/TracedAttrs.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Traced_Op<string mnemonic, list<Trait> traits = []>
    : Op<Traced_Dialect, mnemonic, traits>;

def Traced_ModuleTypeConstraint
    : Type<CPred<"::llvm::isa<::mlir::traced::ModuleType>($_self)">,
           "module instance">;

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

def Traced_ModuleOp : Traced_Op<"module", [
    IsolatedFromAbove, NoRegionArguments, NoTerminator, SingleBlock,
    Symbol, SymbolTable,
    HasParent<"::mlir::ModuleOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getDefaultDialect"]>]> {
  let summary = "a module instance: its class, attributes and graphs";
  let description = [{
    One instance of a Python module class. Its body declares the instance's
    attributes (`traced.submodule`, `traced.parameter`, `traced.buffer`,
    `traced.attribute`) and its methods (`traced.graph`), all symbols of the
    module. Values of type `!traced.module<@Name>` are instances described by
    the `traced.module @Name`.

    A module with a `forward` graph is a traced module (TracedModule converts
    user modules); a module without one is a leaf whose class the op library
    knows (`torch.nn.Conv2d`). The module the trace started from is marked
    `root`; there is at most one.

    ```mlir
    traced.module @Linear_0 class "torch.nn.Linear" {
      parameter @weight : tensor<5x4xf32> = dense_resource<linear_weight>
      parameter @bias : tensor<5xf32> = dense_resource<linear_bias>
      attribute @in_features : i64 = 4
      attribute @out_features : i64 = 5
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$class_name,
                       UnitAttr:$root);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`root` $root^)? $sym_name `class` $class_name attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  // The builder creates the body block.
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name,
                                 "::llvm::StringRef":$className,
                                 CArg<"bool", "false">:$root)>];
  let extraClassDeclaration = [{
    /// The graph named `forward`, or null for a leaf module.
    GraphOp getForward();
    /// Whether the module has no graph: its class gives its meaning.
    bool isLeaf() { return !getForward(); }
  }];
}

class Traced_DeclOp<string mnemonic, list<Trait> traits = []>
    : Traced_Op<mnemonic, !listconcat(traits, [
        Symbol, HasParent<"::mlir::traced::ModuleOp">])> {
  code declExtraClassDeclaration = [{
    /// The type a `traced.getattr` of this attribute produces.
    ::mlir::Type getValueType();
  }];
  let extraClassDeclaration = declExtraClassDeclaration;
}

def Traced_SubmoduleOp : Traced_DeclOp<"submodule", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "declares a submodule attribute";
  let description = [{
    `self.<name>` is the module instance described by `traced.module @target`.

    ```mlir
    traced.submodule @linear : @Linear_0
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, FlatSymbolRefAttr:$module);
  let assemblyFormat = "$sym_name `:` $module attr-dict";
}

class Traced_TensorDeclOp<string mnemonic, string what>
    : Traced_DeclOp<mnemonic> {
  let summary = "declares a " # what;
  let description = [{
    A tensor attribute of the module with its value. Weights are normally
    `dense_resource` blobs, so that text and bytecode keep them exactly and
    large models stay cheap to parse.

    ```mlir
    traced.}] # mnemonic # [{ @weight : tensor<5x4xf32> = dense_resource<linear_weight>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, TypeAttrOf<AnyTensor>:$type,
                       ElementsAttr:$value);
  let assemblyFormat = "$sym_name `:` $type `=` $value attr-dict";
  let hasVerifier = 1;
}

def Traced_ParameterOp : Traced_TensorDeclOp<"parameter", "parameter">;
def Traced_BufferOp : Traced_TensorDeclOp<"buffer", "buffer (running stats, ...)">;

def Traced_AttributeOp : Traced_DeclOp<"attribute"> {
  let summary = "declares a plain (non-tensor) attribute";
  let description = [{
    A Python value attribute of the module, written in Python syntax.

    ```mlir
    traced.attribute @stride : tuple<i64, i64> = (2, 2)
    traced.attribute @training : i1 = False
    traced.attribute @padding_mode : !traced.str = "zeros"
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, TypeAttr:$type,
                       AnyAttr:$value);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Traced_GraphOp : Traced_Op<"graph", [
    AffineScope, AutomaticAllocationScope, IsolatedFromAbove,
    FunctionOpInterface, HasParent<"::mlir::traced::ModuleOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface,
        ["getAsmBlockArgumentNames", "getDefaultDialect"]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "a method of a module (TracedModule's InternalGraph)";
  let description = [{
    The block arguments are the graph's Input exprs, `self` first: its type is
    `!traced.module<@M>` where `@M` is the enclosing module. The body's ops are
    the exprs in execution order, ending in `traced.output`. Argument names are
    kept (`arg_names`) so that nodes print with the names the tracer gave them.

    ```mlir
    traced.graph @forward(%self: !traced.module<@SimpleModule>,
                          %x: tensor<3x4xf32>) -> tensor<3x5xf32> {
      ...
      traced.output %linear_out : tensor<3x5xf32>
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<StrArrayAttr>:$arg_names,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name,
                                 "::mlir::FunctionType":$type,
                                 CArg<"::llvm::ArrayRef<::llvm::StringRef>",
                                      "{}">:$argNames)>];
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    /// The `self` argument.
    ::mlir::BlockArgument getSelf() { return getBody().getArgument(0); }
    /// The name of argument `i` (`self`, `x`, ...), or "" when unnamed.
    ::llvm::StringRef getArgName(unsigned i);
  }];
}

def Traced_OutputOp : Traced_Op<"output", [
    Pure, ReturnLike, Terminator, HasParent<"::mlir::traced::GraphOp">]> {
  let summary = "returns a graph's output nodes";
  let arguments = (ins Variadic<AnyType>:$results);
  let assemblyFormat = "attr-dict ($results^ `:` type($results))?";
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Exprs
//===----------------------------------------------------------------------===//

def Traced_GetAttrOp : Traced_Op<"getattr", [
    Pure,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "GetAttr: reads an attribute of a module instance";
  let description = [{
    `getattr(self, "linear")`: the attribute must be declared in the
    receiver's module, and the result type is the declared type.

    ```mlir
    %linear = traced.getattr %self["linear"]
        : !traced.module<@SimpleModule> -> !traced.module<@Linear_0>
    %param = traced.getattr %self["param"]
        : !traced.module<@SimpleModule> -> tensor<1xf32>
    ```
  }];
  let arguments = (ins Traced_ModuleTypeConstraint:$receiver, StrAttr:$name);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $receiver `[` $name `]` attr-dict `:` type($receiver) `->` type($result)
  }];
  // A plain attribute's getattr folds to its value; a second getattr of the
  // same attribute in a graph reuses the first.
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

class Traced_CallOp<string mnemonic, list<Trait> traits = []>
    : Traced_Op<mnemonic, !listconcat(traits, [
        DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
        DeclareOpInterfaceMethods<MemoryEffectsOpInterface>])> {
  let results = (outs Variadic<AnyType>:$results);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Traced_CallMethodOp : Traced_CallOp<"call_method", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "CallMethod: calls a method of a value";
  let description = [{
    `receiver.method(args...)`. On a tensor the method is looked up in the op
    library as `Tensor.<method>`; on a module instance, `forward` (or any
    graph name) of a traced module calls that graph, and `forward` of a leaf
    module is the op library's description of the module's class.

    Arguments are written like a Python call: operands and Python constants,
    positional first, then `name=value`. Calls of known methods print
    normalized: every argument by keyword, in signature order, leaving out
    arguments equal to their defaults.

    ```mlir
    %add_out = traced.call_method %x["__add__"](other=%c)
        : (tensor<3x4xf32>, tensor<1xf32>) -> tensor<3x4xf32>
    %linear_out = traced.call_method %linear["forward"](%add_out_1)
        : (!traced.module<@Linear_0>, tensor<3x4xf32>) -> tensor<3x5xf32>
    ```
    The functional type lists the receiver first.
  }];
  let arguments = (ins AnyType:$receiver, StrAttr:$method,
                       Variadic<AnyType>:$args, ArrayAttr:$arguments,
                       DefaultValuedAttr<StrArrayAttr, "{}">:$keywords);
}

def Traced_CallFunctionOp : Traced_CallOp<"call_function"> {
  let summary = "CallFunction: calls a free function";
  let description = [{
    `callee(args...)` for a function given by its qualified Python name
    (`torch.nn.functional.relu`, `operator.add`, `nn.relu`). Known targets are
    checked against the op library and print normalized; unknown targets are
    opaque and round-trip exactly as written.

    ```mlir
    %relu_out = traced.call_function "torch.nn.functional.relu"(input=%add_out)
        : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %cat_out = traced.call_function "torch.cat"(tensors=[%a, %b], dim=1)
        : (tensor<1x2xf32>, tensor<1x3xf32>) -> tensor<1x5xf32>
    ```
  }];
  let arguments = (ins StrAttr:$callee, Variadic<AnyType>:$args,
                       ArrayAttr:$arguments,
                       DefaultValuedAttr<StrArrayAttr, "{}">:$keywords);
}

def Traced_ConstantOp : Traced_Op<"constant", [
    ConstantLike, Pure,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "Constant: a tensor or Python value";
  let description = [{
    ```mlir
    %const_tensor = traced.constant dense<1.0> : tensor<1xf32>
    %c = traced.constant 3 : i64
    %l = traced.constant [1, 2] : !traced.list<i64>
    %n = traced.constant None : !traced.none
    ```
  }];
  let arguments = (ins AnyAttr:$value);
  let results = (outs AnyType:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// Whether `value` may be the value of a constant of type `type`: an
    /// elements attribute of that tensor type, or a Python value of that
    /// Python type.
    static bool isValidValue(::mlir::Attribute value, ::mlir::Type type);
  }];
}

#endif // TRACED_OPS_TD
