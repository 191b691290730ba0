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

/// Emits `int traced_<name>_checked(const traced_tensor *inputs, int64_t
/// num_inputs, const traced_tensor *outputs, int64_t num_outputs, char
/// *error, int64_t error_size)` (traced_abi.h): every tensor's dtype, rank,
/// shape, strides and data pointer are checked, in that order, before the
/// unchecked entry `entry` runs; a mismatch writes a message with snprintf
/// and returns its traced_status code.
static void emitCheckedEntry(mlir::ModuleOp module, LLVM::LLVMFuncOp entry,
                             FunctionType type, StringRef name,
                             ArrayRef<Attribute> runChecks, Location loc) {
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
  auto tensorStruct =
      LLVM::LLVMStructType::getLiteral(ctx, {ptr, i32, i32, ptr, ptr});
  auto snprintfFn = module.lookupSymbol<LLVM::LLVMFuncOp>("snprintf");
  if (!snprintfFn)
    snprintfFn = LLVM::LLVMFuncOp::create(
        b, loc, "snprintf",
        LLVM::LLVMFunctionType::get(i32, {ptr, i64, ptr}, /*isVarArg=*/true));
  auto checked = LLVM::LLVMFuncOp::create(
      b, loc, ("traced_" + name + "_checked").str(),
      LLVM::LLVMFunctionType::get(i32, {ptr, i64, ptr, i64, ptr, i64}));
  Block *cur = checked.addEntryBlock(b);
  Region &region = checked.getBody();
  Value inputs = cur->getArgument(0), numInputs = cur->getArgument(1),
        outputs = cur->getArgument(2), numOutputs = cur->getArgument(3),
        error = cur->getArgument(4), errorSize = cur->getArgument(5);
  b.setInsertionPointToEnd(cur);
  auto c32 = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(v));
  };
  auto c64 = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  unsigned messages = 0;
  // Branches to a new block when `ok`, else reports `format` (with `args`)
  // and returns `code`.
  auto check = [&](Value ok, int code, const Twine &format,
                   ArrayRef<Value> args) {
    Block *fail = new Block(), *next = new Block();
    region.push_back(fail);
    region.push_back(next);
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
  };
  auto eq = [&](Value a, Value c) -> Value {
    return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, a, c);
  };
  auto ne = [&](Value a, Value c) -> Value {
    return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, a, c);
  };
  Value null = LLVM::ZeroOp::create(b, loc, ptr);

  size_t numIn = type.getNumInputs(), numOut = type.getNumResults();
  Value counts = LLVM::AndOp::create(b, loc, eq(numInputs, c64(numIn)),
                                     eq(numOutputs, c64(numOut)));
  check(counts, /*TRACED_ERROR_COUNT*/ 1,
        "expected " + Twine(numIn) + " input(s) and " + Twine(numOut) +
            " output(s), got %lld and %lld",
        {numInputs, numOutputs});

  SmallVector<Value> dataPointers;
  auto checkTensors = [&](Value array, TypeRange types, StringRef what) {
    for (auto [i, t] : llvm::enumerate(types)) {
      auto tensor = cast<RankedTensorType>(t);
      std::string tag = (what + " " + Twine(i)).str();
      int32_t index = i;
      auto field = [&](int32_t f, Type fieldType) -> Value {
        Value addr = LLVM::GEPOp::create(b, loc, ptr, tensorStruct, array,
                                         ArrayRef<LLVM::GEPArg>{index, f});
        return LLVM::LoadOp::create(b, loc, fieldType, addr);
      };
      std::string typeText;
      llvm::raw_string_ostream(typeText) << tensor;
      int32_t code = abiDTypeCode(tensor.getElementType());
      Value dtype = field(1, i32);
      check(eq(dtype, c32(code)), /*TRACED_ERROR_DTYPE*/ 2,
            tag + ": expected dtype code " + Twine(code) + " (" + typeText +
                "), got %d",
            {dtype});
      ArrayRef<int64_t> shape = tensor.getShape();
      Value rank = field(2, i32);
      check(eq(rank, c32(shape.size())), /*TRACED_ERROR_RANK*/ 3,
            tag + ": expected rank " + Twine(shape.size()) + " (" + typeText +
                "), got %d",
            {rank});
      if (!shape.empty()) {
        Value shapePtr = field(3, ptr);
        check(ne(shapePtr, null), /*TRACED_ERROR_NULL*/ 6,
              tag + ": shape is NULL", {});
        for (auto [d, size] : llvm::enumerate(shape)) {
          Value addr = LLVM::GEPOp::create(
              b, loc, ptr, i64, shapePtr,
              ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(d)});
          Value dim = LLVM::LoadOp::create(b, loc, i64, addr);
          check(eq(dim, c64(size)), /*TRACED_ERROR_SHAPE*/ 4,
                tag + ": dim " + Twine(d) + " is %lld, expected " +
                    Twine(size) + " (" + typeText + ")",
                {dim});
        }
      }
      Value data = field(0, ptr);
      if (tensor.getNumElements() > 0)
        check(ne(data, null), /*TRACED_ERROR_NULL*/ 6, tag + ": data is NULL",
              {});
      dataPointers.push_back(data);
      // Strides, when given, must be row-major (any stride for a dim of 1).
      if (shape.empty() || tensor.getNumElements() == 0)
        continue;
      Value strides = field(4, ptr);
      Block *walk = new Block(), *after = new Block();
      region.push_back(walk);
      region.push_back(after);
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
  };
  checkTensors(inputs, type.getInputs(), "input");
  checkTensors(outputs, type.getResults(), "output");

  // All checked: the unchecked entry on arrays of the data pointers.
  auto pointerArray = [&](ArrayRef<Value> values) -> Value {
    Value array = LLVM::AllocaOp::create(b, loc, ptr, ptr,
                                         c64(std::max<size_t>(values.size(), 1)));
    for (auto [k, v] : llvm::enumerate(values)) {
      Value slot = LLVM::GEPOp::create(
          b, loc, ptr, ptr, array,
          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(k)});
      LLVM::StoreOp::create(b, loc, v, slot);
    }
    return array;
  };
  Value inArray = pointerArray(ArrayRef<Value>(dataPointers).take_front(numIn));
  Value outArray = pointerArray(ArrayRef<Value>(dataPointers).drop_front(numIn));
  Value status =
      LLVM::CallOp::create(b, loc, entry, ValueRange{inArray, outArray})
          .getResult();
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

namespace {
struct EmitEntryPass : traced::impl::TracedEmitEntryBase<EmitEntryPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void EmitEntryPass::runOnOperation() {
  mlir::ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  SmallVector<LLVM::LLVMFuncOp> entries;
  module.walk([&](LLVM::LLVMFuncOp f) {
    if (f->hasAttr("traced.entry"))
      entries.push_back(f);
  });
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  auto i64 = IntegerType::get(ctx, 64);
  for (LLVM::LLVMFuncOp f : entries) {
    auto type = cast<FunctionType>(
        cast<TypeAttr>(f->getAttr("traced.entry")).getValue());
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    Location loc = f.getLoc();
    auto i32 = IntegerType::get(ctx, 32);
    auto entryType = LLVM::LLVMFunctionType::get(i32, {ptrType, ptrType});
    auto entry = LLVM::LLVMFuncOp::create(
        b, loc, ("traced_" + f.getName()).str(), entryType);
    Block *block = entry.addEntryBlock(b);
    b.setInsertionPointToStart(block);
    SmallVector<Value> args;
    auto addBuffers = [&](Value array, TypeRange types) {
      for (auto [i, t] : llvm::enumerate(types)) {
        auto shaped = cast<ShapedType>(t);
        Value slot = LLVM::GEPOp::create(
            b, loc, ptrType, ptrType, array,
            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
        Value p = LLVM::LoadOp::create(b, loc, ptrType, slot);
        args.push_back(p);
        args.push_back(p);
        auto c = [&](int64_t v) {
          return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v))
              .getResult();
        };
        args.push_back(c(0));
        ArrayRef<int64_t> shape = shaped.getShape();
        for (int64_t d : shape)
          args.push_back(c(d));
        int64_t stride = 1;
        SmallVector<Value> strides(shape.size());
        for (int64_t d = shape.size() - 1; d >= 0; --d) {
          strides[d] = c(stride);
          stride *= shape[d];
        }
        llvm::append_range(args, strides);
      }
    };
    addBuffers(block->getArgument(0), type.getInputs());
    addBuffers(block->getArgument(1), type.getResults());
    // The run-time checks' status: an i32 on the stack, 0 until a check
    // fails (traced-cpu-lower-checks), passed as a 0-d memref.
    ArrayRef<Attribute> runChecks;
    if (auto checks = f->getAttrOfType<ArrayAttr>("traced.checks"))
      runChecks = checks.getValue();
    Value status;
    if (!runChecks.empty()) {
      Value one = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(1));
      status = LLVM::AllocaOp::create(b, loc, ptrType, i32, one);
      LLVM::StoreOp::create(
          b, loc, LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(0)),
          status);
      args.push_back(status);
      args.push_back(status);
      args.push_back(
          LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(0)));
    }
    if (args.size() != f.getNumArguments()) {
      f.emitError() << "traced-emit-entry: the function takes "
                    << f.getNumArguments()
                    << " LLVM arguments, expected " << args.size()
                    << " (run buffer-results-to-out-params before lowering)";
      return signalPassFailure();
    }
    LLVM::CallOp::create(b, loc, f, args);
    Value code =
        status ? LLVM::LoadOp::create(b, loc, i32, status).getResult()
               : LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(0))
                     .getResult();
    LLVM::ReturnOp::create(b, loc, code);
    emitCheckedEntry(module, entry, type, f.getName(), runChecks, loc);

    // `const char traced_<name>_signature[]`: the tensor types, so that a
    // library's user can check what it takes.
    std::string text;
    llvm::raw_string_ostream os(text);
    os << type;
    text.push_back('\0');
    b.setInsertionPointToEnd(module.getBody());
    auto arrayType = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8),
                                              text.size());
    LLVM::GlobalOp::create(b, loc, arrayType, /*isConstant=*/true,
                           LLVM::Linkage::External,
                           ("traced_" + f.getName() + "_signature").str(),
                           b.getStringAttr(text));
  }
}
