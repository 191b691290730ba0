//===- EmitEntry.cpp - traced-emit-entry ----------------------------------===//
//
// The C entry points of a compiled model (include/TracedIR/ExecutionEngine/
// traced_abi.h): `int traced_<entry>(void **inputs, void **outputs)`, the
// checked `traced_<entry>_checked` and the `traced_<entry>_signature`
// string, added in the LLVM dialect around the lowered function.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallBitVector.h"

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDEMITENTRY
#include "TracedIR/Conversion/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;

/// The element type codes of traced_abi.h (0: none).
static int32_t abiDTypeCode(Type element) {
  if (element.isInteger(1))
    return 1;
  if (element.isUnsignedInteger(8))
    return 2;
  if (element.isInteger(8))
    return 3;
  if (element.isInteger(16))
    return 4;
  if (element.isInteger(32))
    return 5;
  if (element.isInteger(64))
    return 6;
  if (element.isF16())
    return 7;
  if (element.isBF16())
    return 8;
  if (element.isF32())
    return 9;
  if (element.isF64())
    return 10;
  return 0;
}

namespace {
/// An entry with dynamic dims: each `?` input dim is one of the named
/// sizes, which the caller passes as `const int64_t *sizes`
/// (traced_abi.h).
struct DynamicEntry {
  /// The distinct names, in order of first appearance over the inputs.
  SmallVector<std::string> names;
  /// Per input, per dim: the index of its name, or -1 when static.
  SmallVector<SmallVector<int64_t>> symbol;
  /// `int traced_<name>_output_shapes(const int64_t *sizes, int64_t *shapes)`.
  LLVM::LLVMFuncOp outputShapes;
};
} // namespace

namespace {
/// Emits `int traced_<name>_checked(const traced_tensor *inputs, int64_t
/// num_inputs, const traced_tensor *outputs, int64_t num_outputs, char
/// *error, int64_t error_size)` (traced_abi.h): every tensor's dtype, rank,
/// shape, strides and data pointer are checked, in that order, before the
/// unchecked entry `entry` runs; a mismatch writes a message with snprintf
/// and returns its traced_status code.
///
/// The stages share the function being built, the block the next op goes
/// in (`cur`, which each check moves on to its success block) and what the
/// tensor checks collect: the data pointers and, with dynamic dims, the
/// named sizes and the output shapes they imply.
struct CheckedEntryEmitter {
  CheckedEntryEmitter(mlir::ModuleOp module, LLVM::LLVMFuncOp entry,
                      FunctionType type, StringRef name,
                      ArrayRef<Attribute> runChecks, Location loc,
                      const DynamicEntry *dynamic, ArrayAttr inputLabels)
      : module(module), entry(entry), type(type), name(name),
        runChecks(runChecks), loc(loc), dynamic(dynamic),
        inputLabels(inputLabels), ctx(module.getContext()), b(ctx),
        ptr(LLVM::LLVMPointerType::get(ctx)), i32(IntegerType::get(ctx, 32)),
        i64(IntegerType::get(ctx, 64)),
        tensorStruct(
            LLVM::LLVMStructType::getLiteral(ctx, {ptr, i32, i32, ptr, ptr})),
        numIn(type.getNumInputs()), numOut(type.getNumResults()),
        seen(dynamic ? dynamic->names.size() : 0) {}

  mlir::ModuleOp module;
  LLVM::LLVMFuncOp entry;
  FunctionType type;
  StringRef name;
  ArrayRef<Attribute> runChecks;
  Location loc;
  const DynamicEntry *dynamic;
  ArrayAttr inputLabels;
  MLIRContext *ctx;
  OpBuilder b;
  LLVM::LLVMPointerType ptr;
  IntegerType i32, i64;
  LLVM::LLVMStructType tensorStruct;
  size_t numIn, numOut;

  LLVM::LLVMFuncOp snprintfFn;
  /// The block the next op goes in, in the checked function's body.
  Block *cur = nullptr;
  Region *region = nullptr;
  /// The checked function's arguments.
  Value inputs, numInputs, outputs, numOutputs, error, errorSize;
  /// The null pointer the pointer checks compare with.
  Value null;
  /// How many messages the checks made (each a global string).
  unsigned messages = 0;
  /// Every tensor's data pointer, the inputs' then the outputs'.
  SmallVector<Value> dataPointers;
  /// Dynamic dims: the named sizes, and every output dim they imply.
  Value sizes, outShapes;
  /// The next output dim's index in `outShapes`.
  size_t outDimIndex = 0;
  /// The named sizes an earlier input dim has set.
  llvm::SmallBitVector seen;

  /// All stages, in order.
  void emit() {
    declareFunction();
    checkCounts();
    allocateDynamicShapes();
    checkTensors(inputs, type.getInputs(), "input");
    checkTensors(outputs, type.getResults(), "output");
    callEntry();
  }

  Value c32(int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(v));
  }
  Value c64(int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  }
  Value eq(Value a, Value c) {
    return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, a, c);
  }
  Value ne(Value a, Value c) {
    return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, a, c);
  }
  Value mul(Value a, Value c) { return LLVM::MulOp::create(b, loc, a, c); }
  /// The address of element `k` of `base`, an array of `element`.
  Value at(Value base, Type element, int64_t k) {
    return LLVM::GEPOp::create(b, loc, ptr, element, base,
                               ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(k)})
        .getResult();
  }
  /// Field `f` of traced_tensor `index` of `array`, loaded.
  Value field(Value array, int32_t index, int32_t f, Type fieldType) {
    Value addr = LLVM::GEPOp::create(b, loc, ptr, tensorStruct, array,
                                     ArrayRef<LLVM::GEPArg>{index, f});
    return LLVM::LoadOp::create(b, loc, fieldType, addr);
  }

  /// Branches to a new block when `ok`, else reports `format` (with `args`)
  /// and returns `code`.
  void check(Value ok, int code, const Twine &format, ArrayRef<Value> args) {
    Block *fail = new Block(), *next = new Block();
    region->push_back(fail);
    region->push_back(next);
    LLVM::CondBrOp::create(b, loc, ok, next, fail);
    b.setInsertionPointToEnd(fail);
    Value text = LLVM::createGlobalString(
        loc, b,
        ("traced_" + name + "_checked_msg" + Twine(messages++)).str(),
        (format + Twine('\0')).str(), LLVM::Linkage::Internal);
    SmallVector<Value> callArgs = {error, errorSize, text};
    llvm::append_range(callArgs, args);
    LLVM::CallOp::create(b, loc, snprintfFn, callArgs);
    LLVM::ReturnOp::create(b, loc, c32(code));
    cur = next;
    b.setInsertionPointToEnd(cur);
  }

  /// snprintf's declaration (once per module), the checked function and
  /// its entry block.
  void declareFunction() {
    b.setInsertionPointToEnd(module.getBody());
    snprintfFn = module.lookupSymbol<LLVM::LLVMFuncOp>("snprintf");
    if (!snprintfFn)
      snprintfFn = LLVM::LLVMFuncOp::create(
          b, loc, "snprintf",
          LLVM::LLVMFunctionType::get(i32, {ptr, i64, ptr},
                                      /*isVarArg=*/true));
    auto checked = LLVM::LLVMFuncOp::create(
        b, loc, ("traced_" + name + "_checked").str(),
        LLVM::LLVMFunctionType::get(i32, {ptr, i64, ptr, i64, ptr, i64}));
    cur = checked.addEntryBlock(b);
    region = &checked.getBody();
    inputs = cur->getArgument(0);
    numInputs = cur->getArgument(1);
    outputs = cur->getArgument(2);
    numOutputs = cur->getArgument(3);
    error = cur->getArgument(4);
    errorSize = cur->getArgument(5);
    b.setInsertionPointToEnd(cur);
    null = LLVM::ZeroOp::create(b, loc, ptr);
  }

  /// The numbers of inputs and outputs.
  void checkCounts() {
    Value counts = LLVM::AndOp::create(b, loc, eq(numInputs, c64(numIn)),
                                       eq(numOutputs, c64(numOut)));
    check(counts, /*TRACED_ERROR_COUNT*/ 1,
          "expected " + Twine(numIn) + " input(s) and " + Twine(numOut) +
              " output(s), got %lld and %lld",
          {numInputs, numOutputs});
  }

  /// Dynamic dims: room for the named sizes as the inputs give them (the
  /// first dim of a name sets it, later ones must agree), and for every
  /// output dim they imply.
  void allocateDynamicShapes() {
    if (!dynamic)
      return;
    sizes = LLVM::AllocaOp::create(
        b, loc, ptr, i64, c64(std::max<size_t>(dynamic->names.size(), 1)));
    size_t outDims = 0;
    for (Type t : type.getResults())
      outDims += cast<RankedTensorType>(t).getRank();
    outShapes = LLVM::AllocaOp::create(b, loc, ptr, i64,
                                       c64(std::max<size_t>(outDims, 1)));
  }

  /// The checks of each tensor of `array` (`what`: "input" or "output").
  void checkTensors(Value array, TypeRange types, StringRef what) {
    bool isInput = what == "input";
    if (dynamic && !isInput) {
      // The outputs' sizes follow from the inputs'.
      LLVM::CallOp::create(b, loc, dynamic->outputShapes,
                           ValueRange{sizes, outShapes});
    }
    for (auto [i, t] : llvm::enumerate(types))
      checkTensor(array, i, cast<RankedTensorType>(t), what);
  }

  /// Tensor `i` of `array`: dtype, rank, dims, data pointer, strides.
  void checkTensor(Value array, size_t i, RankedTensorType tensor,
                   StringRef what) {
    bool isInput = what == "input";
    // Inputs as Python's call paths name them (`input 2 ('scale')`,
    // convert-traced-to-linalg's traced.input_labels); outputs from 1.
    std::string tag = (what + " " + Twine(i + 1)).str();
    if (isInput && inputLabels && i < inputLabels.size())
      if (auto label = dyn_cast<StringAttr>(inputLabels[i]))
        tag = label.str();
    int32_t index = i;
    std::string typeText;
    llvm::raw_string_ostream(typeText) << tensor;
    int32_t code = abiDTypeCode(tensor.getElementType());
    Value dtype = field(array, index, 1, i32);
    check(eq(dtype, c32(code)), /*TRACED_ERROR_DTYPE*/ 2,
          tag + ": expected dtype code " + Twine(code) + " (" + typeText +
              "), got %d",
          {dtype});
    ArrayRef<int64_t> shape = tensor.getShape();
    Value rank = field(array, index, 2, i32);
    check(eq(rank, c32(shape.size())), /*TRACED_ERROR_RANK*/ 3,
          tag + ": expected rank " + Twine(shape.size()) + " (" + typeText +
              "), got %d",
          {rank});
    SmallVector<Value> dims;
    if (!shape.empty())
      dims = checkDims(array, index, i, shape, isInput, tag, typeText);
    if (!isInput)
      outDimIndex += shape.size();
    Value data = field(array, index, 0, ptr);
    // (Dynamic dims: data may be NULL only when there are no elements.)
    Value count = c64(1);
    for (Value d : dims)
      count = mul(count, d);
    if (!tensor.hasStaticShape())
      check(LLVM::OrOp::create(b, loc, ne(data, null), eq(count, c64(0))),
            /*TRACED_ERROR_NULL*/ 6, tag + ": data is NULL", {});
    else if (tensor.getNumElements() > 0)
      check(ne(data, null), /*TRACED_ERROR_NULL*/ 6, tag + ": data is NULL",
            {});
    dataPointers.push_back(data);
    if (!tensor.hasStaticShape()) {
      checkDynamicStrides(array, index, tag, shape.size(), dims, count);
      return;
    }
    // Strides, when given, must be row-major (any stride for a dim of 1).
    if (shape.empty() || tensor.getNumElements() == 0)
      return;
    checkStaticStrides(array, index, tag, shape);
  }

  /// The shape of tensor `i` (`index`) of `array`, non-empty: not NULL,
  /// each static dim as the type says, each dynamic output dim as the
  /// inputs imply, each dynamic input dim non-negative and equal to the
  /// earlier dims of its name. Its dims as values.
  SmallVector<Value> checkDims(Value array, int32_t index, size_t i,
                               ArrayRef<int64_t> shape, bool isInput,
                               const std::string &tag,
                               const std::string &typeText) {
    SmallVector<Value> dims;
    Value shapePtr = field(array, index, 3, ptr);
    check(ne(shapePtr, null), /*TRACED_ERROR_NULL*/ 6, tag + ": shape is NULL",
          {});
    for (auto [d, size] : llvm::enumerate(shape)) {
      Value addr = LLVM::GEPOp::create(
          b, loc, ptr, i64, shapePtr,
          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(d)});
      Value dim = LLVM::LoadOp::create(b, loc, i64, addr);
      dims.push_back(ShapedType::isDynamic(size) ? dim : c64(size));
      if (!ShapedType::isDynamic(size)) {
        check(eq(dim, c64(size)), /*TRACED_ERROR_SHAPE*/ 4,
              tag + ": dim " + Twine(d) + " is %lld, expected " +
                  Twine(size) + " (" + typeText + ")",
              {dim});
        continue;
      }
      if (!isInput) {
        Value expected = LLVM::LoadOp::create(
            b, loc, i64, at(outShapes, i64, outDimIndex + d));
        check(eq(dim, expected), /*TRACED_ERROR_SHAPE*/ 4,
              tag + ": dim " + Twine(d) + " is %lld, expected %lld (" +
                  typeText + " for these inputs)",
              {dim, expected});
        continue;
      }
      int64_t k = dynamic->symbol[i][d];
      StringRef dimName = dynamic->names[k];
      check(LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::sge, dim,
                                 c64(0)),
            /*TRACED_ERROR_SHAPE*/ 4,
            tag + ": dim " + Twine(d) + " ('" + dimName +
                "') is negative: %lld",
            {dim});
      if (!seen.test(k)) {
        seen.set(k);
        LLVM::StoreOp::create(b, loc, dim, at(sizes, i64, k));
        continue;
      }
      Value expected = LLVM::LoadOp::create(b, loc, i64, at(sizes, i64, k));
      check(eq(dim, expected), /*TRACED_ERROR_SHAPE*/ 4,
            tag + ": dim " + Twine(d) + " ('" + dimName +
                "') is %lld, but an earlier input has %lld in a dim of "
                "that name",
            {dim, expected});
    }
    return dims;
  }

  /// Strides of a tensor with dynamic dims: row-major where the dim is not
  /// 1 and the tensor has elements (`count`), checked at run time.
  void checkDynamicStrides(Value array, int32_t index, const std::string &tag,
                           int64_t rank, ArrayRef<Value> dims, Value count) {
    Value strides = field(array, index, 4, ptr);
    Value expected = c64(1);
    for (int64_t d = rank - 1; d >= 0; --d) {
      Block *walk = new Block(), *after = new Block();
      region->push_back(walk);
      region->push_back(after);
      Value skip = LLVM::OrOp::create(
          b, loc, eq(strides, null),
          LLVM::OrOp::create(b, loc, eq(dims[d], c64(1)), eq(count, c64(0))));
      LLVM::CondBrOp::create(b, loc, skip, after, walk);
      cur = walk;
      b.setInsertionPointToEnd(cur);
      Value stride = LLVM::LoadOp::create(b, loc, i64, at(strides, i64, d));
      check(eq(stride, expected), /*TRACED_ERROR_STRIDES*/ 5,
            tag + ": not contiguous: dim " + Twine(d) +
                " has stride %lld, expected %lld",
            {stride, expected});
      LLVM::BrOp::create(b, loc, after);
      cur = after;
      b.setInsertionPointToEnd(cur);
      expected = mul(expected, dims[d]);
    }
  }

  /// Strides of a static tensor with elements, when given: row-major (any
  /// stride for a dim of 1).
  void checkStaticStrides(Value array, int32_t index, const std::string &tag,
                          ArrayRef<int64_t> shape) {
    Value strides = field(array, index, 4, ptr);
    Block *walk = new Block(), *after = new Block();
    region->push_back(walk);
    region->push_back(after);
    LLVM::CondBrOp::create(b, loc, eq(strides, null), after, walk);
    cur = walk;
    b.setInsertionPointToEnd(cur);
    int64_t expected = 1;
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      if (shape[d] != 1) {
        Value addr = LLVM::GEPOp::create(
            b, loc, ptr, i64, strides,
            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(d)});
        Value stride = LLVM::LoadOp::create(b, loc, i64, addr);
        check(eq(stride, c64(expected)), /*TRACED_ERROR_STRIDES*/ 5,
              tag + ": not contiguous: dim " + Twine(d) +
                  " has stride %lld, expected " + Twine(expected),
              {stride});
      }
      expected *= shape[d];
    }
    LLVM::BrOp::create(b, loc, after);
    cur = after;
    b.setInsertionPointToEnd(cur);
  }

  /// An array on the stack of `values` (pointers).
  Value pointerArray(ArrayRef<Value> values) {
    Value array = LLVM::AllocaOp::create(b, loc, ptr, ptr,
                                         c64(std::max<size_t>(values.size(), 1)));
    for (auto [k, v] : llvm::enumerate(values)) {
      Value slot = LLVM::GEPOp::create(
          b, loc, ptr, ptr, array,
          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(k)});
      LLVM::StoreOp::create(b, loc, v, slot);
    }
    return array;
  }

  /// All checked: the unchecked entry on arrays of the data pointers, its
  /// failed run-time checks reported, 0 returned.
  void callEntry() {
    Value inArray =
        pointerArray(ArrayRef<Value>(dataPointers).take_front(numIn));
    Value outArray =
        pointerArray(ArrayRef<Value>(dataPointers).drop_front(numIn));
    SmallVector<Value> entryArgs = {inArray, outArray};
    if (dynamic)
      entryArgs.push_back(sizes);
    Value status = LLVM::CallOp::create(b, loc, entry, entryArgs).getResult();
    // A failed run-time check k returns k (traced-cpu-lower-checks).
    for (auto [k, message] : llvm::enumerate(runChecks)) {
      std::string format;
      for (char ch : cast<StringAttr>(message).getValue()) {
        format.push_back(ch);
        if (ch == '%')
          format.push_back('%');
      }
      check(ne(status, c32(k + 1)), /*TRACED_ERROR_CHECK*/ 7, format, {});
    }
    LLVM::ReturnOp::create(b, loc, c32(0));
  }
};
} // namespace

/// The checked entry of `entry` (CheckedEntryEmitter).
static void emitCheckedEntry(mlir::ModuleOp module, LLVM::LLVMFuncOp entry,
                             FunctionType type, StringRef name,
                             ArrayRef<Attribute> runChecks, Location loc,
                             const DynamicEntry *dynamic,
                             ArrayAttr inputLabels) {
  CheckedEntryEmitter(module, entry, type, name, runChecks, loc, dynamic,
                      inputLabels)
      .emit();
}

namespace {
struct EmitEntryPass : traced::impl::TracedEmitEntryBase<EmitEntryPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

/// Appends the expanded memref descriptor of a dense row-major buffer at
/// `p` with `dims` (allocated and aligned pointer, offset 0, sizes,
/// strides) to `args`.
static void addDescriptor(OpBuilder &b, Location loc, Value p,
                          ArrayRef<Value> dims, SmallVectorImpl<Value> &args) {
  auto i64 = b.getI64Type();
  args.push_back(p);
  args.push_back(p);
  args.push_back(LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(0)));
  llvm::append_range(args, dims);
  SmallVector<Value> strides(dims.size());
  Value stride =
      LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(1));
  for (int64_t d = dims.size() - 1; d >= 0; --d) {
    strides[d] = stride;
    stride = LLVM::MulOp::create(b, loc, stride, dims[d]);
  }
  llvm::append_range(args, strides);
}

namespace {
/// The C entry points of one entry function `f` (traced.entry).
struct EntryEmitter {
  EntryEmitter(mlir::ModuleOp module, LLVM::LLVMFuncOp f)
      : module(module), f(f), ctx(module.getContext()),
        type(cast<FunctionType>(
            cast<TypeAttr>(f->getAttr("traced.entry")).getValue())),
        b(module.getBodyRegion()), loc(f.getLoc()),
        ptrType(LLVM::LLVMPointerType::get(ctx)),
        i64(IntegerType::get(ctx, 64)), i32(IntegerType::get(ctx, 32)) {
    b.setInsertionPointToEnd(module.getBody());
  }

  mlir::ModuleOp module;
  LLVM::LLVMFuncOp f;
  MLIRContext *ctx;
  FunctionType type;
  OpBuilder b;
  Location loc;
  Type ptrType, i64, i32;
  /// For an entry with dynamic dims (collectDynamicDims).
  std::optional<DynamicEntry> dynamic;
  LLVM::LLVMFuncOp outputDims;

  Value c(int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v))
        .getResult();
  }

  Value load(Value base, Type element, int64_t k) {
    Value slot = LLVM::GEPOp::create(
        b, loc, ptrType, element, base,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(k)});
    return LLVM::LoadOp::create(b, loc, element, slot).getResult();
  }

  /// The named dynamic dims of the entry's inputs (traced.dim_names) and
  /// its output-dims function; nothing for a static entry.
  LogicalResult collectDynamicDims() {
    // Dynamic dims (convert-traced-to-linalg's traced.dim_names and
    // <name>_output_dims): the sizes come from the caller.
    if (auto names = f->getAttrOfType<ArrayAttr>("traced.dim_names")) {
      dynamic.emplace();
      for (auto [i, t] : llvm::enumerate(type.getInputs())) {
        auto tensor = cast<RankedTensorType>(t);
        auto perDim = i < names.size() ? dyn_cast<ArrayAttr>(names[i])
                                       : ArrayAttr();
        SmallVector<int64_t> &symbols = dynamic->symbol.emplace_back();
        for (int64_t d = 0; d < tensor.getRank(); ++d) {
          if (!tensor.isDynamicDim(d)) {
            symbols.push_back(-1);
            continue;
          }
          StringAttr name =
              perDim && d < int64_t(perDim.size())
                  ? dyn_cast<StringAttr>(perDim[d])
                  : StringAttr();
          std::string n = name && !name.empty()
                              ? name.str()
                              : ("input" + Twine(i) + "_dim" + Twine(d)).str();
          auto it = llvm::find(dynamic->names, n);
          symbols.push_back(it - dynamic->names.begin());
          if (it == dynamic->names.end())
            dynamic->names.push_back(n);
        }
      }
      module.walk([&](LLVM::LLVMFuncOp g) {
        auto of = g->getAttrOfType<FlatSymbolRefAttr>("traced.output_dims_of");
        if (of && of.getValue() == f.getName())
          outputDims = g;
      });
      if (!outputDims) {
        f.emitError("traced-emit-entry: an entry with dynamic dims needs its "
                    "output-dims function (convert-traced-to-linalg)");
        return failure();
      }
    }
    return success();
  }

  // The named sizes of each dynamic input dim, loaded from `sizes`.
  SmallVector<SmallVector<Value>> inputDims(Value sizesPtr) {
    SmallVector<SmallVector<Value>> dims;
    for (auto [i, t] : llvm::enumerate(type.getInputs())) {
      auto tensor = cast<RankedTensorType>(t);
      SmallVector<Value> &d = dims.emplace_back();
      for (int64_t k = 0; k < tensor.getRank(); ++k)
        d.push_back(tensor.isDynamicDim(k)
                        ? load(sizesPtr, i64, dynamic->symbol[i][k])
                        : c(tensor.getDimSize(k)));
    }
    return dims;
  }

  // Every output dim, from <name>_output_dims on the inputs' descriptors.
  SmallVector<Value> outputDimValues(ArrayRef<Value> inputArgs) {
    auto call = LLVM::CallOp::create(b, loc, outputDims, inputArgs);
    SmallVector<Value> all;
    // (No result: every output is 0-d.)
    if (call.getNumResults() == 0)
      return all;
    Value r = call.getResult();
    if (isa<LLVM::LLVMStructType>(r.getType())) {
      auto st = cast<LLVM::LLVMStructType>(r.getType());
      for (unsigned k = 0; k < st.getBody().size(); ++k)
        all.push_back(LLVM::ExtractValueOp::create(b, loc, r, k));
    } else {
      all.push_back(r);
    }
    return all;
  }

  /// `int traced_<entry>(void **inputs, void **outputs[, const int64_t
  /// *sizes])`: descriptors for every input and output, the run-time
  /// checks' status, the call, the status returned.
  LLVM::LLVMFuncOp emitEntry(ArrayRef<Attribute> &runChecks) {
    SmallVector<Type> params = {ptrType, ptrType};
    if (dynamic)
      params.push_back(ptrType);
    auto entryType = LLVM::LLVMFunctionType::get(i32, params);
    auto entry = LLVM::LLVMFuncOp::create(
        b, loc,
        ("traced_" + f.getName() + (dynamic ? "_sized" : "")).str(),
        entryType);
    Block *block = entry.addEntryBlock(b);
    b.setInsertionPointToStart(block);
    SmallVector<Value> args;
    auto pointers = [&](Value array, size_t count) {
      SmallVector<Value> ps;
      for (size_t i = 0; i < count; ++i)
        ps.push_back(load(array, ptrType, i));
      return ps;
    };
    SmallVector<Value> inPtrs = pointers(block->getArgument(0),
                                         type.getNumInputs());
    SmallVector<Value> outPtrs = pointers(block->getArgument(1),
                                          type.getNumResults());
    SmallVector<Value> outDims;
    if (dynamic) {
      SmallVector<SmallVector<Value>> dims = inputDims(block->getArgument(2));
      for (auto [p, d] : llvm::zip(inPtrs, dims))
        addDescriptor(b, loc, p, d, args);
      outDims = outputDimValues(args);
    } else {
      for (auto [p, t] : llvm::zip(inPtrs, type.getInputs())) {
        SmallVector<Value> d;
        for (int64_t size : cast<ShapedType>(t).getShape())
          d.push_back(c(size));
        addDescriptor(b, loc, p, d, args);
      }
      for (Type t : type.getResults())
        for (int64_t size : cast<ShapedType>(t).getShape())
          outDims.push_back(c(size));
    }
    size_t next = 0;
    for (auto [p, t] : llvm::zip(outPtrs, type.getResults())) {
      int64_t rank = cast<ShapedType>(t).getRank();
      addDescriptor(b, loc, p, ArrayRef<Value>(outDims).slice(next, rank),
                    args);
      next += rank;
    }
    // The run-time checks' status: an i32 on the stack, 0 until a check
    // fails (traced-cpu-lower-checks), passed as a 0-d memref.
    if (auto checks = f->getAttrOfType<ArrayAttr>("traced.checks"))
      runChecks = checks.getValue();
    Value status;
    if (!runChecks.empty()) {
      status = LLVM::AllocaOp::create(b, loc, ptrType, i32, c(1));
      LLVM::StoreOp::create(
          b, loc, LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(0)),
          status);
      args.push_back(status);
      args.push_back(status);
      args.push_back(c(0));
    }
    if (args.size() != f.getNumArguments()) {
      f.emitError() << "traced-emit-entry: the function takes "
                    << f.getNumArguments()
                    << " LLVM arguments, expected " << args.size()
                    << " (run buffer-results-to-out-params before lowering)";
      return {};
    }
    LLVM::CallOp::create(b, loc, f, args);
    Value code =
        status ? LLVM::LoadOp::create(b, loc, i32, status).getResult()
               : LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(0))
                     .getResult();
    LLVM::ReturnOp::create(b, loc, code);

    return entry;
  }

  /// A constant NUL-terminated string `symbol` in the module.
  void addString(StringRef symbol, std::string text) {
    text.push_back('\0');
    b.setInsertionPointToEnd(module.getBody());
    auto arrayType =
        LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), text.size());
    LLVM::GlobalOp::create(b, loc, arrayType, /*isConstant=*/true,
                           LLVM::Linkage::External, symbol,
                           b.getStringAttr(text));
  }

  /// For a dynamic entry, `traced_<name>_output_shapes` and
  /// `traced_<name>_dim_names`.
  void emitOutputShapes() {
    if (dynamic) {
      // int traced_<name>_output_shapes(const int64_t *sizes,
      //                                 int64_t *shapes): every output dim.
      b.setInsertionPointToEnd(module.getBody());
      auto shapesFn = LLVM::LLVMFuncOp::create(
          b, loc, ("traced_" + f.getName() + "_output_shapes").str(),
          LLVM::LLVMFunctionType::get(i32, {ptrType, ptrType}));
      Block *body = shapesFn.addEntryBlock(b);
      b.setInsertionPointToStart(body);
      SmallVector<Value> inArgs;
      Value null = LLVM::ZeroOp::create(b, loc, ptrType);
      for (const SmallVector<Value> &d : inputDims(body->getArgument(0)))
        addDescriptor(b, loc, null, d, inArgs);
      for (auto [k, v] : llvm::enumerate(outputDimValues(inArgs))) {
        Value slot = LLVM::GEPOp::create(
            b, loc, ptrType, i64, body->getArgument(1),
            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(k)});
        LLVM::StoreOp::create(b, loc, v, slot);
      }
      LLVM::ReturnOp::create(
          b, loc, LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(0)));
      dynamic->outputShapes = shapesFn;
      // `traced_<name>_dim_names`: the name of each `?` of the inputs in
      // the signature, in order, space-separated.
      std::string names;
      for (const SmallVector<int64_t> &symbols : dynamic->symbol)
        for (int64_t k : symbols)
          if (k >= 0)
            names += (names.empty() ? "" : " ") + dynamic->names[k];
      addString(("traced_" + f.getName() + "_dim_names").str(), names);
    }
  }

  /// The checked entry and `traced_<name>_signature`.
  void emitCheckedAndSignature(LLVM::LLVMFuncOp entry,
                               ArrayRef<Attribute> runChecks) {
    emitCheckedEntry(module, entry, type, f.getName(), runChecks, loc,
                     dynamic ? &*dynamic : nullptr,
                     f->getAttrOfType<ArrayAttr>("traced.input_labels"));

    // `const char traced_<name>_signature[]`: the tensor types, so that a
    // library's user can check what it takes.
    std::string text;
    llvm::raw_string_ostream os(text);
    os << type;
    addString(("traced_" + f.getName() + "_signature").str(), text);
  }
};
} // namespace

void EmitEntryPass::runOnOperation() {
  mlir::ModuleOp module = getOperation();
  SmallVector<LLVM::LLVMFuncOp> entries;
  module.walk([&](LLVM::LLVMFuncOp f) {
    if (f->hasAttr("traced.entry"))
      entries.push_back(f);
  });
  for (LLVM::LLVMFuncOp f : entries) {
    EntryEmitter emitter(module, f);
    if (failed(emitter.collectDynamicDims()))
      return signalPassFailure();
    ArrayRef<Attribute> runChecks;
    LLVM::LLVMFuncOp entry = emitter.emitEntry(runChecks);
    if (!entry)
      return signalPassFailure();
    if (emitter.dynamic)
      emitter.emitOutputShapes();
    emitter.emitCheckedAndSignature(entry, runChecks);
  }
}
