//===- TracedAttrs.td - Python values as attributes --------*- tablegen -*-===//
//
// Constant arguments of calls and plain module attributes are Python values.
// Builtin attributes carry most of them (IntegerAttr i64, FloatAttr f64,
// BoolAttr, StringAttr, ArrayAttr for lists); these attributes carry the rest.
//
//===----------------------------------------------------------------------===//

#ifndef TRACED_ATTRS_TD
#define TRACED_ATTRS_TD

include "TracedIR/Dialect/Traced/TracedDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

class Traced_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Traced_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Traced_NoneAttr : Traced_Attr<"None", "none"> {
  let summary = "Python's None";
  let description = [{ Written `None` in call arguments. }];
}

def Traced_EllipsisAttr : Traced_Attr<"Ellipsis", "ellipsis"> {
  let summary = "Python's Ellipsis";
  let description = [{ Written `...` in call arguments (`x[..., 0]`). }];
}

def Traced_TupleAttr : Traced_Attr<"Tuple", "tuple"> {
  let summary = "a Python tuple";
  let description = [{ Written `(1, 2)` in call arguments; `(1,)` for one. }];
  let parameters = (ins "::mlir::ArrayAttr":$elements);
  let assemblyFormat = "`<` $elements `>`";
}

def Traced_SliceAttr : Traced_Attr<"Slice", "slice"> {
  let summary = "a Python slice object";
  let description = [{
    Written `slice(start, stop, step)` in call arguments; each part is an int,
    `None`, or an operand.
  }];
  let parameters = (ins "::mlir::Attribute":$start, "::mlir::Attribute":$stop,
                        "::mlir::Attribute":$step);
  let assemblyFormat = "`<` $start `,` $stop `,` $step `>`";
}

def Traced_DTypeAttr : Traced_Attr<"DType", "dtype"> {
  let summary = "a tensor element type passed as a value (`torch.float32`)";
  let parameters = (ins "::mlir::Type":$type);
  let assemblyFormat = "`<` $type `>`";
}

def Traced_ObjectAttr : Traced_Attr<"Object", "object"> {
  let summary = "an opaque Python value, kept by its repr";
  let description = [{
    For constants the dialect does not model (`torch.device('cpu')`). Such
    values round-trip but cannot be interpreted.
  }];
  let parameters = (ins StringRefParameter<"the value's repr">:$repr);
  let assemblyFormat = "`<` $repr `>`";
}

def Traced_OperandAttr : Traced_Attr<"Operand", "operand"> {
  let summary = "marks where an SSA operand sits in a call's arguments";
  let description = [{
    A call's `arguments` hold Python values; where an argument (or an element
    of a list, tuple or slice argument) is a traced value, the attribute holds
    `#traced.operand<i>` and the value is the call's i-th argument operand.
    Markers appear in depth-first order `0, 1, 2, ...`. The custom assembly
    prints the operand itself in their place: `torch.cat([%a, %b], dim=1)`.
  }];
  let parameters = (ins "unsigned":$index);
  let assemblyFormat = "`<` $index `>`";
}

#endif // TRACED_ATTRS_TD
