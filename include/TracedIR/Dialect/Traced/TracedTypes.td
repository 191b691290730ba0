//===- TracedTypes.td - traced types -----------------------*- tablegen -*-===//
//
// Types of traced values that are not tensors. Tensors (TensorNodes) are
// builtin tensor types; Python ints, floats, bools and tuples are builtin i64,
// f64, i1 and tuple.
//
//===----------------------------------------------------------------------===//

#ifndef TRACED_TYPES_TD
#define TRACED_TYPES_TD

include "TracedIR/Dialect/Traced/TracedDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributes.td"

class Traced_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Traced_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Traced_ModuleType : Traced_Type<"Module", "module"> {
  let summary = "a module instance (TracedModule's ModuleNode)";
  let description = [{
    A value that is a module instance. The parameter names the `traced.module`
    op that describes the instance: its class, attributes and graphs.

    ```mlir
    !traced.module<@SimpleModule>
    ```
  }];
  let parameters = (ins "::mlir::FlatSymbolRefAttr":$module_name);
  let assemblyFormat = "`<` $module_name `>`";
  let extraClassDeclaration = [{
    ::llvm::StringRef getName() { return getModuleName().getValue(); }
  }];
}

def Traced_NoneType : Traced_Type<"None", "none"> {
  let summary = "Python's None";
}

def Traced_StrType : Traced_Type<"Str", "str"> {
  let summary = "a Python str";
}

def Traced_ObjectType : Traced_Type<"Object", "object"> {
  let summary = "an opaque Python object";
  let description = [{
    A Python value the dialect does not model (a device, a generator, an
    instance of a user class). Calls producing or consuming it round-trip but
    cannot be interpreted or compiled.
  }];
}

def Traced_ListType : Traced_Type<"List", "list"> {
  let summary = "a Python list with elements of one type";
  let description = [{
    ```mlir
    !traced.list<i64>
    !traced.list<tensor<1x4xf32>>
    ```
    Lists with elements of different types use `!traced.object` elements.
  }];
  let parameters = (ins "::mlir::Type":$element_type);
  let assemblyFormat = "`<` $element_type `>`";
}

#endif // TRACED_TYPES_TD
