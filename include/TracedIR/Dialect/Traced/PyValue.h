//===- PyValue.h - Python values as attributes ------------------*- C++ -*-===//
//
// Constant call arguments and plain module attributes are Python values held
// in attributes:
//
//   int -> IntegerAttr (i64)      float -> FloatAttr (f64)
//   bool -> BoolAttr              str -> StringAttr
//   None -> #traced.none          list -> ArrayAttr
//   tuple -> #traced.tuple        slice -> #traced.slice
//   Ellipsis -> #traced.ellipsis  torch.dtype -> #traced.dtype
//   anything else -> #traced.object (its repr)
//
// Python syntax: `None`, `True`, `3`, `-0.5`, `float("inf")`, `"str"`,
// `[1, 2]`, `(1,)`, `slice(0, None, 2)`, `...`, `dtype(f16)`,
// `object("device(type='cpu')")`.
//
// In call arguments a traced value (an SSA operand) may stand anywhere in
// such a value, as `#traced.operand<i>`. This file prints and parses these
// values in Python syntax and computes their Python types.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_DIALECT_TRACED_PYVALUE_H
#define TRACEDIR_DIALECT_TRACED_PYVALUE_H

#include "TracedIR/Dialect/Traced/TracedBase.h"
#include "mlir/IR/OpImplementation.h"

namespace mlir::traced {

/// Whether `attr` is a Python value (operand markers included when
/// `allowOperands`).
bool isPyValue(Attribute attr, bool allowOperands);

/// The Python type of a value: i64, f64, i1, !traced.str, !traced.none,
/// !traced.list<T>, tuple<...>, or !traced.object. Operand markers take the
/// type of the operand they stand for.
Type getPyType(Attribute value, TypeRange operandTypes);

/// Whether a value of type `actual` may be used where `expected` is declared
/// (Python values and tensors with compatible static shapes).
bool isCompatibleType(Type expected, Type actual);

/// Calls `fn` on every operand marker of `value` in depth-first order.
void walkOperandMarkers(Attribute value, function_ref<void(OperandAttr)> fn);

/// Rebuilds `value` with every operand marker replaced by `fn(marker)`.
Attribute replaceOperandMarkers(Attribute value,
                                function_ref<Attribute(OperandAttr)> fn);

/// The fewest significant digits (`%g`) that read back as `v`, as a double
/// or, with `single`, as a float. Finite values only.
std::string shortestDigits(double v, bool single = false);

/// Prints a Python value in Python syntax (`[1, 2]`, `(3,)`, `None`,
/// `slice(0, None, None)`); markers print as their operand.
void printPyValue(OpAsmPrinter &p, Attribute value, ValueRange operands = {});
/// Same on a plain stream; `printOperand` prints marker `i` (default `%i`).
void printPyValue(llvm::raw_ostream &os, Attribute value,
                  function_ref<void(unsigned)> printOperand = nullptr);

/// Prints a call's arguments in Python syntax: `(a, b, name=c)`, where the
/// last `keywords.size()` arguments are by keyword.
void printPyCallArguments(llvm::raw_ostream &os, ArrayAttr arguments,
                          ArrayAttr keywords,
                          function_ref<void(unsigned)> printOperand);

/// Parses a Python value. With `operands`, `%x` is accepted anywhere and
/// becomes a marker for the next operand; without, operands are an error.
/// `leadingKeyword` is a keyword the caller already consumed.
ParseResult
parsePyValue(OpAsmParser &parser, Attribute &value,
             SmallVectorImpl<OpAsmParser::UnresolvedOperand> *operands,
             StringRef leadingKeyword = {});

/// The keywords `parsePyValue` accepts as the start of a value.
ArrayRef<StringRef> getPyValueKeywords();

} // namespace mlir::traced

#endif // TRACEDIR_DIALECT_TRACED_PYVALUE_H
