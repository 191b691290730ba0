//===- Passes.td - graph-surgery passes --------------------*- tablegen -*-===//

#ifndef TRACEDIR_TRANSFORMS_PASSES_TD
#define TRACEDIR_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TracedDCE : Pass<"traced-dce", "mlir::ModuleOp"> {
  let summary = "Removes dead exprs, unused attributes and unused modules";
  let description = [{
    TracedModule's `graph.compile()` for the whole module tree: exprs whose
    results nobody uses and that have no side effects go away (calls of
    unknown targets and in-place calls stay), then graphs of submodules that
    no call reaches, then declarations that no getattr and no leaf-module call
    reads, then modules that no declaration refers to. The root module and
    its forward graph always stay.

    Before:
    ```mlir
    traced.module root @M class "m.M" {
      parameter @unused : tensor<2xf32> = dense<0.0> : tensor<2xf32>
      graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) -> tensor<2xf32> {
        %0 = call_function "torch.sigmoid"(input=%x) : (tensor<2xf32>) -> tensor<2xf32>
        output %x : tensor<2xf32>
      }
    }
    ```
    After:
    ```mlir
    traced.module root @M class "m.M" {
      graph @forward(%self: !traced.module<@M>, %x: tensor<2xf32>) -> tensor<2xf32> {
        output %x : tensor<2xf32>
      }
    }
    ```
  }];
  let statistics = [
    Statistic<"numExprs", "exprs", "Number of exprs removed">,
    Statistic<"numGraphs", "graphs", "Number of unreachable graphs removed">,
    Statistic<"numDecls", "declarations", "Number of declarations removed">,
    Statistic<"numModules", "modules", "Number of modules removed">,
  ];
}

def TracedFlatten : Pass<"traced-flatten", "mlir::ModuleOp"> {
  let summary = "Inlines traced submodule graphs into the root graph";
  let description = [{
    TracedModule's `flatten()` (torch-mlir's GlobalizeObjectGraph, kept
    small): every call of a traced submodule's graph is replaced by the
    callee's exprs, with `self` bound to the receiver. Calls of leaf modules
    become calls of their class's functional with the module's parameters
    (as traced-normalize does), unless `keep-leaf-modules` is set.

    Last, the root references parameters directly: a parameter or buffer
    read through a getattr chain from `self` (`self.layer1.0.conv1.weight`)
    is declared in the root module under its dotted path
    (`parameter @"layer1.0.conv1.weight"`, once per path, sharing the
    submodule's value attribute; a numeric suffix avoids a name the root
    already declares) and read with one getattr of `self`. Module getattrs
    that nothing reads any more are erased; the getattrs of kept leaf-module
    calls stay. traced-dce then removes the unused submodule declarations.

    Before:
    ```mlir
    %block = getattr %self["block"] : !traced.module<@M> -> !traced.module<@Block>
    %0 = call_method %block["forward"](%x) : (!traced.module<@Block>, tensor<2xf32>) -> tensor<2xf32>
    ```
    After (Block's forward was `x * self.scale`, then `self.act(...)` of a
    ReLU), with `parameter @"block.scale"` declared in `@M`:
    ```mlir
    %block.scale = getattr %self["block.scale"] : !traced.module<@M> -> tensor<2xf32>
    %0 = call_method %x["__mul__"](other=%block.scale) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %1 = call_function "torch.nn.functional.relu"(input=%0) : (tensor<2xf32>) -> tensor<2xf32>
    ```
  }];
  let options = [
    Option<"keepLeafModules", "keep-leaf-modules", "bool", "false",
           "Keep calls of leaf modules instead of calling their functional">,
  ];
  let statistics = [
    Statistic<"numInlined", "inlined-calls", "Number of graph calls inlined">,
    Statistic<"numLeafCalls", "leaf-calls", "Number of leaf-module calls made functional">,
    Statistic<"numDirect", "direct-decls", "Number of root parameters and buffers declared for getattr chains">,
  ];
}

def TracedNormalize : Pass<"traced-normalize", "mlir::ModuleOp"> {
  let summary = "Canonical targets, and leaf-module calls as functional calls";
  let description = [{
    torch.fx's `normalize_args` and more: calls of aliases become calls of
    the canonical target (`x.__add__(y)`, `operator.add` and `Tensor.add`
    all become `torch.add`), Tensor methods with a functional form become
    call_function, and leaf-module calls become calls of their class's
    functional with the module's parameters read by getattr
    (`linear(x)` becomes `torch.nn.functional.linear(x, w, b)`).

    Before:
    ```mlir
    %0 = call_method %x["__add__"](other=%y) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %1 = call_method %fc["forward"](%0) : (!traced.module<@Fc>, tensor<2xf32>) -> tensor<3xf32>
    ```
    After:
    ```mlir
    %0 = call_function "torch.add"(input=%x, other=%y) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %weight = getattr %fc["weight"] : !traced.module<@Fc> -> tensor<3x2xf32>
    %bias = getattr %fc["bias"] : !traced.module<@Fc> -> tensor<3xf32>
    %1 = call_function "torch.nn.functional.linear"(input=%0, weight=%weight, bias=%bias) : ...
    ```
  }];
  let statistics = [
    Statistic<"numAliases", "aliases", "Number of calls renamed to their canonical target">,
    Statistic<"numLeafCalls", "leaf-calls", "Number of leaf-module calls made functional">,
  ];
}

def TracedFuseConvBN : Pass<"traced-fuse-conv-bn", "mlir::ModuleOp"> {
  let summary = "Folds eval-mode batch_norm into the preceding conv";
  let description = [{
    MegEngine's FuseConvBn: `batch_norm(conv(x, w, b), mean, var, gamma,
    beta, training=False, eps)` with constant statistics becomes
    `conv(x, w', b')` with `w' = w * gamma / sqrt(var + eps)` per output
    channel and `b' = (b - mean) * gamma / sqrt(var + eps) + beta`, stored
    as new constants (the old weights become dead; traced-dce drops them).
    Leaf-module Conv2d and BatchNorm2d calls are made functional first.

    Before:
    ```mlir
    %0 = call_function "torch.nn.functional.conv2d"(input=%x, weight=%w) : ...
    %1 = call_function "torch.nn.functional.batch_norm"(input=%0, running_mean=%m, running_var=%v, weight=%g, bias=%b) : ...
    ```
    After:
    ```mlir
    %w2 = constant dense_resource<fused_weight> : tensor<8x3x3x3xf32>
    %b2 = constant dense_resource<fused_bias> : tensor<8xf32>
    %1 = call_function "torch.nn.functional.conv2d"(input=%x, weight=%w2, bias=%b2) : ...
    ```
  }];
  let statistics = [
    Statistic<"numFused", "fused", "Number of conv+batch_norm pairs fused">,
  ];
}

def TracedFoldScale : Pass<"traced-fold-scale", "mlir::ModuleOp"> {
  let summary = "Absorbs positive scales around a relu into the conv";
  let description = [{
    MegEngine's BackwardFoldScale, seed 001's box head: `relu(conv(x) * s)
    / t` with constant `s` and `t` (Python numbers, or constant tensors of
    one value or one per output channel) whose ratio is positive becomes
    `relu(conv'(x))`, where the conv's weight and bias are multiplied by
    `s / t` per output channel. Since relu(a * k) = relu(a) * k for k > 0,
    the result is the same; the mul and the div disappear. Leaf-module convs
    are made functional first.

    Before:
    ```mlir
    %0 = call_method %conv["forward"](%x) : ...
    %1 = call_function "operator.mul"(input=%0, other=%scale) : ...
    %2 = call_function "torch.nn.functional.relu"(input=%1) : ...
    %3 = call_function "operator.truediv"(input=%2, other=%stride) : ...
    ```
    After:
    ```mlir
    %w = constant dense_resource<folded_scale_0_weight> : tensor<4x8x3x3xf32>
    %b = constant dense_resource<folded_scale_0_bias> : tensor<4xf32>
    %0 = call_function "torch.nn.functional.conv2d"(input=%x, weight=%w, bias=%b, padding=[1, 1]) : ...
    %2 = call_function "torch.nn.functional.relu"(input=%0) : ...
    ```
  }];
  let statistics = [
    Statistic<"numFolded", "folded", "Number of scale pairs absorbed">,
  ];
}

def TracedFuseAddMul : Pass<"traced-fuse-add-mul", "mlir::ModuleOp"> {
  let summary = "Folds chains of constant adds and of constant muls";
  let description = [{
    `(x + a) + b` becomes `x + (a + b)` and `(x * a) * b` becomes
    `x * (a * b)` when `a` and `b` are Python numbers, or constant tensors of
    one shape and dtype, and the inner result has no other use. Runs to a
    fixed point with the greedy pattern driver.

    Before:
    ```mlir
    %0 = call_function "torch.add"(input=%x, other=1.0) : ...
    %1 = call_function "torch.add"(input=%0, other=2.0) : ...
    ```
    After:
    ```mlir
    %1 = call_function "torch.add"(input=%x, other=3.0) : ...
    ```
  }];
  let options = [
    Option<"reportIterations", "report-iterations", "bool", "false",
           "Report the greedy driver's sweeps to a fixed point as a remark">,
  ];
  let statistics = [
    Statistic<"numFused", "fused", "Number of pairs folded into one">,
    Statistic<"numIterations", "iterations", "Sweeps of the greedy driver to a fixed point">,
  ];
}

def TracedFoldConstants : Pass<"traced-fold-constants", "mlir::ModuleOp"> {
  let summary = "Evaluates calls whose operands are all constants";
  let description = [{
    A call of a pure op-library target whose tensor operands are all
    `traced.constant`s (of at most `max-elements` elements each) is run by
    the entry's interpreter kernel, once, and replaced by a constant of its
    result. Calls are visited in order, so chains of constant calls fold in
    one run. Calls the kernel refuses stay as they are, for the verifier
    and the interpreter to report. canonicalize does not do this: its
    folders only forward values (`x * 1`, eval dropout, static sizes), so
    that they stay cheap and independent of the kernels.

    Before:
    ```mlir
    %c = constant dense<[1.0, -2.0]> : tensor<2xf32>
    %0 = call_function "torch.nn.functional.relu"(input=%c) : (tensor<2xf32>) -> tensor<2xf32>
    %1 = call_method %x["__mul__"](other=%0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    ```
    After:
    ```mlir
    %0 = constant dense<[1.0, 0.0]> : tensor<2xf32>
    %1 = call_method %x["__mul__"](other=%0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    ```
  }];
  let options = [
    Option<"maxElements", "max-elements", "int64_t", "1024",
           "Largest constant operand (in elements) a call is folded with">,
  ];
  let statistics = [
    Statistic<"numFolded", "folded", "Number of calls replaced by constants">,
  ];
}

def TracedFuseQuantized : Pass<"traced-fuse-quantized", "mlir::ModuleOp"> {
  let summary = "Turns dequantize / float op / quantize islands into int8 ops";
  let description = [{
    A reference model (torch.fx's `convert_to_reference_fx`) computes every
    quantized op as a float op between `dequantize` and `quantize` calls.
    This pass gives each island the quantized op an int8 model has, the
    result's parameters read from the quantize call's type: a conv or
    linear (and a relu after it) of a dequantized quint8 input and qint8
    weight becomes the quantized module's functional (`conv_relu2d`,
    `linear`, ...); an add of two dequantized tensors
    `torch.ops.quantized.add(_relu)`; an op that takes quantized tensors
    (views, pooling, relu) of a tensor dequantized and quantized again at
    the same parameters runs on the quantized tensor; `quantize(dequantize
    (x))` at x's parameters is x. The float ops left unused go. Run
    traced-flatten and traced-normalize first (docs/quantization.md).

    Before:
    ```mlir
    %x = call_function "torch.dequantize"(input=%xq) : (tensor<1x3x8x8x!quant.uniform<u8:f32, 0.02:121>>) -> tensor<1x3x8x8xf32>
    %w = call_function "torch.dequantize"(input=%wq) : (tensor<8x3x3x3x!quant.uniform<i8:f32:0, {...}>>) -> tensor<8x3x3x3xf32>
    %y = call_function "torch.nn.functional.conv2d"(input=%x, weight=%w, bias=%b) : ...
    %r = call_function "torch.nn.functional.relu"(input=%y) : ...
    %q = call_function "torch.quantize_per_tensor"(input=%r, scale=%s, zero_point=%z, dtype=dtype(!quant.any<u8:f32>)) : ...
    ```
    After:
    ```mlir
    %q = call_function "traced.quantized.conv_relu2d"(input=%xq, weight=%wq, bias=%b, scale=0.0056, zero_point=0) : ...
    ```
  }];
  let statistics = [
    Statistic<"numFused", "fused", "Number of quantize calls fused">,
  ];
}

def TracedConvertQat : Pass<"traced-convert-qat", "mlir::ModuleOp"> {
  let summary = "Turns a quantization-aware-training graph into the int8 graph";
  let description = [{
    A QAT model (torch.fx's `prepare_qat_fx`, or eager mode's
    `prepare_qat`), traced with its observers off, becomes the int8 model
    torch's `convert` makes of it (docs/quantization.md):

    1. BatchNorm folds into each QAT ConvBn convolution. Such a module
       computes `batch_norm(conv(x, fake_quant(w * s), 0) / s + b)` with
       `s = gamma / sqrt(running_var + eps)`; that is `conv(x,
       fake_quant(w * s), b')` with `b' = (b - running_mean) * s + beta`
       (torch's `fuse_conv_bn_weights`). The divisor must equal the norm's
       scale, checked by value.
    2. Each fake quantization (`fused_moving_avg_obs_fake_quant`,
       `fake_quantize_per_tensor_affine`) becomes `quantize_per_tensor` or
       `quantize_per_channel` and `dequantize` at the parameters torch's
       convert computes (the observer's `calculate_qparams` over the
       running min and max, which the scale buffer the QAT forward uses can
       lag behind; a plain fake quantization's own scale and zero point),
       of the dtype its range names (quint8 for [0, 255] or [0, 127],
       qint8 for [-128, 127] or [-64, 63], qint32); one whose fake_quant_on
       flag is off goes. A quantization of a value that parameters alone
       determine (a weight) folds to a quantized constant. An observer
       still on is an error (its scale would still change); a fake
       quantization the pass cannot read (a range of no quantized dtype,
       flags that are not constants) stays, with a warning.
    3. An op that takes quantized tensors (a view, max pooling, relu,
       average pooling) of a dequantized tensor runs on the quantized
       tensor, dequantized after it, as torch's convert runs it (eager
       mode's max pooling after a ConvBnReLU has no fake quantization of
       its own). The dequantize / float op / quantize islands left become
       int8 ops, as `traced-fuse-quantized` makes them.

    Run traced-flatten and traced-normalize first, traced-dce after.
  }];
  let statistics = [
    Statistic<"numFolded", "folded-norms", "Number of batch norms folded">,
    Statistic<"numConverted", "converted", "Number of fake quantizations converted">,
    Statistic<"numSunk", "sunk", "Number of dequantize calls moved after an op">,
    Statistic<"numFused", "fused", "Number of quantize calls fused">,
  ];
}

def TracedLowerQuantized : Pass<"traced-lower-quantized", "mlir::ModuleOp"> {
  let options = [
    Option<"int8Kernels", "int8-kernels", "bool", /*default=*/"true",
           "Quantized convolutions and linears as traced.int8 entries">,
  ];
  let summary = "Rewrites quantized tensors and ops as integer and float calls";
  let description = [{
    Every value of a quantized tensor type (docs/quantization.md) takes its
    storage type, and every quantized op becomes calls of ordinary
    op-library entries that compute what the interpreter's quantized
    kernels compute, the parameters of each quantized type folded in as
    constants: `quantize_per_tensor` is `round(x * (1 / scale)) +
    zero_point`, clamped and cast; `dequantize` is `q * scale - scale *
    zero_point`; a quantized convolution sums the centered integers with
    the float convolution in float64 (exactly) and requantizes in float32.
    Ops that only move elements stay. `convert-traced-to-linalg` runs it
    first, so that the compilers need nothing quantized of their own.

    With `int8-kernels` (the default), a quint8 conv2d (groups 1 or
    depthwise) or linear with a constant qint8 weight whose zero points
    are 0 becomes `traced.int8.conv2d` or `traced.int8.linear` instead,
    its weight packed: the CPU's int8 runtime computes it
    (docs/quantization.md, "int8 code"). The GPU pipeline turns it off.

    Before:
    ```mlir
    %q = call_function "torch.quantize_per_tensor"(input=%x, scale=0.5, zero_point=3, dtype=dtype(!quant.any<u8:f32>))
        : (tensor<4xf32>) -> tensor<4x!quant.uniform<u8:f32, 5.000000e-01:3>>
    ```
    After:
    ```mlir
    %0 = call_function "torch.mul"(input=%x, other=2.0) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = call_function "torch.round"(input=%0) : (tensor<4xf32>) -> tensor<4xf32>
    ...
    %5 = call_method %4["to"](dtype=dtype(ui8)) : (tensor<4xf32>) -> tensor<4xui8>
    ```
  }];
}

def TracedDecompose : Pass<"traced-decompose", "mlir::ModuleOp"> {
  let summary = "Rewrites calls of decomposable entries as calls of other entries";
  let description = [{
    Some op-library entries are written once as calls of other entries, as
    PyTorch's decompositions are: `F.mse_loss(a, b)` is `mean((a - b) ** 2)`,
    `torch.addmm(c, a, b, beta=, alpha=)` is `beta * c + alpha * (a @ b)`.
    This pass applies them (all of them, or the entries named by `targets`)
    until no decomposable call is left. `convert-traced-to-linalg` applies
    the same decompositions to the calls it has no direct lowering for; the
    interpreter keeps its own kernel for every entry, so running it before
    and after this pass checks a decomposition. A decomposition that does
    not apply to a call (an argument it needs is not a constant) leaves the
    call as it is. docs/reference/OpLibrary.md lists the decomposed entries.

    Before:
    ```mlir
    %0 = call_function "torch.nn.functional.mse_loss"(input=%a, target=%b)
        : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
    ```
    After:
    ```mlir
    %0 = call_function "torch.sub"(input=%a, other=%b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %1 = call_function "torch.mul"(input=%0, other=%0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %2 = call_function "torch.mean"(input=%1) : (tensor<4xf32>) -> tensor<f32>
    ```
  }];
  let options = [
    ListOption<"targets", "targets", "std::string",
               "Decompose only calls of these entries (any spelling)">,
  ];
}

def TracedApplyPatterns : Pass<"traced-apply-patterns", "mlir::ModuleOp"> {
  let summary = "Applies user-written PDL patterns to traced IR";
  let description = [{
    Graph surgery without C++ (torch.fx's `subgraph_rewriter`): the file
    given by `patterns` holds `pdl.pattern`s (write them in PDL, or in PDLL
    and convert with `mlir-pdll --emit=mlir`); they run with the greedy
    pattern driver until nothing changes, and the result is verified.
    docs/passes.md has two worked examples: relu to gelu, and
    `clamp(x, 0, 6)` to relu6.

    ```sh
    traced-opt --traced-apply-patterns=patterns=relu-to-gelu.pdl.mlir model.mlir
    ```
  }];
  let options = [
    Option<"patternFile", "patterns", "std::string", [{""}],
           "A file of pdl.pattern ops">,
    Option<"reportIterations", "report-iterations", "bool", "false",
           "Report the greedy driver's sweeps to a fixed point as a remark">,
  ];
  let statistics = [
    Statistic<"numIterations", "iterations", "Sweeps of the greedy driver to a fixed point">,
  ];
  let dependentDialects = ["::mlir::pdl::PDLDialect",
                           "::mlir::pdl_interp::PDLInterpDialect"];
}

#endif // TRACEDIR_TRANSFORMS_PASSES_TD
