// RUN: traced-translate --interpret %s | FileCheck %s
// RUN: %python -c "import numpy as np; np.save('%t.npy', np.ones((1, 2), np.float32))"
// RUN: not traced-translate --interpret %s --interpret-entry=M::one_row --interpret-input=%t.npy 2>&1 | FileCheck %s --check-prefix=ONE

// Training-mode batch norm normalizes by the batch's biased statistics; the
// running statistics are not read (torch only updates them in place).
// Channel 0 holds 1 and 3 (mean 2, std 1), channel 1 10 and 30 (mean 20,
// std 10).

traced.module root @M class "m.M" {
  submodule @bn : @BN
  graph @forward(%self: !traced.module<@M>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>) {
    %x = constant dense<[[1.0, 10.0], [3.0, 30.0]]> : tensor<2x2xf32>
    %mean = constant dense<[100.0, 100.0]> : tensor<2xf32>
    %var = constant dense<[7.0, 7.0]> : tensor<2xf32>
    %g = constant dense<[1.0, 2.0]> : tensor<2xf32>
    %b = constant dense<[0.0, 1.0]> : tensor<2xf32>
    // CHECK: output #0: tensor<2x2xf32> {{\[}}[-1, -1], [1, 1]]
    %0 = call_function "torch.nn.functional.batch_norm"(%x, None, None, training=True, eps=0.0) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    // CHECK: output #1: tensor<2x2xf32> {{\[}}[-1, -1], [1, 3]]
    %1 = call_function "torch.nn.functional.batch_norm"(%x, %mean, %var, %g, %b, True, 0.1, 0.0) : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
    // aten::native_batch_norm also returns the batch mean and invstd.
    // CHECK: output #2: tensor<2xf32> [2, 20]
    // CHECK: output #3: tensor<2xf32> [1, 0.1]
    %2 = call_function "torch.ops.aten.native_batch_norm.default"(%x, None, None, %mean, %var, True, 0.1, 0.0) : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> tuple<tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>>
    %saved_mean = call_function "operator.getitem"(%2, 1) : (tuple<tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
    %saved_invstd = call_function "operator.getitem"(%2, 2) : (tuple<tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
    // A BatchNorm module without running statistics (track_running_stats=
    // False) normalizes by the batch in eval mode too.
    // CHECK: output #4: tensor<2x2xf32> {{\[}}[-1, -1], [1, 1]]
    %bn = getattr %self["bn"] : !traced.module<@M> -> !traced.module<@BN>
    %4 = call_method %bn["forward"](%x) : (!traced.module<@BN>, tensor<2x2xf32>) -> tensor<2x2xf32>
    output %0, %1, %saved_mean, %saved_invstd, %4 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>
  }
  // F.batch_norm's own check, at run time for a dynamic batch.
  // ONE: error: 'torch.nn.functional.batch_norm': Expected more than 1 value per channel when training, got input size [1, 2]
  graph @one_row(%self: !traced.module<@M>, %x: tensor<?x2xf32>) -> tensor<?x2xf32> {
    %0 = call_function "torch.nn.functional.batch_norm"(%x, None, None, training=True) : (tensor<?x2xf32>) -> tensor<?x2xf32>
    output %0 : tensor<?x2xf32>
  }
}

traced.module @BN class "torch.nn.modules.batchnorm.BatchNorm1d" {
  attribute @weight : !traced.none = None
  attribute @bias : !traced.none = None
  attribute @running_mean : !traced.none = None
  attribute @running_var : !traced.none = None
  attribute @eps : f64 = 0.0
  attribute @momentum : f64 = 0.1
  attribute @training : i1 = False
}
