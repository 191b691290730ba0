// RUN: traced-opt %s -split-input-file -verify-diagnostics

// A leaf module of a known class is checked as its functional, with the
// module's attributes bound: Conv2d is F.conv2d(x, self.weight, ...).

traced.module @M class "__main__.M" {
  submodule @conv : @Conv
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x3x8x8xf32>) {
    %conv = getattr %self["conv"] : !traced.module<@M> -> !traced.module<@Conv>
    // expected-error @below {{'traced.call_method' op 'torch.nn.Conv2d' module @Conv (class 'torch.nn.Conv2d'): input has 3 channels, but weight [4, 2, 3, 3] with groups=1 expects 2}}
    %0 = call_method %conv["forward"](%x) : (!traced.module<@Conv>, tensor<1x3x8x8xf32>) -> tensor<1x4x6x6xf32>
    output
  }
}
traced.module @Conv class "torch.nn.Conv2d" {
  parameter @weight : tensor<4x2x3x3xf32> = dense<1.0> : tensor<4x2x3x3xf32>
  attribute @bias : !traced.none = None
  attribute @stride : tuple<i64, i64> = (1, 1)
  attribute @padding : tuple<i64, i64> = (0, 0)
  attribute @dilation : tuple<i64, i64> = (1, 1)
  attribute @groups : i64 = 1
}

// -----

traced.module @M class "__main__.M" {
  submodule @conv : @Conv
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x2x8x8xf32>) {
    %conv = getattr %self["conv"] : !traced.module<@M> -> !traced.module<@Conv>
    // expected-error @below {{'traced.call_method' op 'torch.nn.Conv2d' module @Conv (class 'torch.nn.Conv2d'): needs attribute 'groups' (a parameter, buffer or plain attribute)}}
    %0 = call_method %conv["forward"](%x) : (!traced.module<@Conv>, tensor<1x2x8x8xf32>) -> tensor<1x4x6x6xf32>
    output
  }
}
traced.module @Conv class "torch.nn.Conv2d" {
  parameter @weight : tensor<4x2x3x3xf32> = dense<1.0> : tensor<4x2x3x3xf32>
  attribute @bias : !traced.none = None
  attribute @stride : tuple<i64, i64> = (1, 1)
  attribute @padding : tuple<i64, i64> = (0, 0)
  attribute @dilation : tuple<i64, i64> = (1, 1)
}

// -----

traced.module @M class "__main__.M" {
  submodule @fc : @Fc
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x4xf32>) {
    %fc = getattr %self["fc"] : !traced.module<@M> -> !traced.module<@Fc>
    // expected-error @below {{'traced.call_method' op 'torch.nn.Linear' module @Fc (class 'torch.nn.Linear'): result #0 is inferred as 'tensor<2x5xf32>', but the op declares 'tensor<2x4xf32>'}}
    %0 = call_method %fc["forward"](%x) : (!traced.module<@Fc>, tensor<2x4xf32>) -> tensor<2x4xf32>
    output
  }
}
traced.module @Fc class "torch.nn.Linear" {
  parameter @weight : tensor<5x4xf32> = dense<1.0> : tensor<5x4xf32>
  parameter @bias : tensor<5xf32> = dense<1.0> : tensor<5xf32>
}

// -----

traced.module @M class "__main__.M" {
  submodule @fc : @Fc
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x4xf32>) {
    %fc = getattr %self["fc"] : !traced.module<@M> -> !traced.module<@Fc>
    // expected-error @below {{'traced.call_method' op 'torch.nn.Linear' module @Fc (class 'torch.nn.Linear'): takes 1 positional argument(s) but 2 were given}}
    %0 = call_method %fc["forward"](%x, %x) : (!traced.module<@Fc>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x5xf32>
    output
  }
}
traced.module @Fc class "torch.nn.Linear" {
  parameter @weight : tensor<5x4xf32> = dense<1.0> : tensor<5x4xf32>
  parameter @bias : tensor<5xf32> = dense<1.0> : tensor<5xf32>
}

// -----

traced.module @M class "__main__.M" {
  submodule @fc : @Fc
  graph @forward(%self: !traced.module<@M>, %x: tensor<2x4xf32>) {
    %fc = getattr %self["fc"] : !traced.module<@M> -> !traced.module<@Fc>
    // expected-error @below {{'traced.call_method' op 'torch.nn.Linear' module @Fc (class 'torch.nn.Linear'): has no method 'extra_repr'}}
    %0 = call_method %fc["extra_repr"]() : (!traced.module<@Fc>) -> !traced.str
    output
  }
}
traced.module @Fc class "torch.nn.Linear" {
  parameter @weight : tensor<5x4xf32> = dense<1.0> : tensor<5x4xf32>
  parameter @bias : tensor<5xf32> = dense<1.0> : tensor<5xf32>
}

// -----

traced.module @M class "__main__.M" {
  submodule @bn : @Bn
  graph @forward(%self: !traced.module<@M>, %x: tensor<1x4x2x2xf32>) {
    %bn = getattr %self["bn"] : !traced.module<@M> -> !traced.module<@Bn>
    // expected-error @below {{'traced.call_method' op 'torch.nn.BatchNorm2d' module @Bn (class 'torch.nn.BatchNorm2d'): argument 'eps' expects float, got '!traced.str'}}
    %0 = call_method %bn["forward"](%x) : (!traced.module<@Bn>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
    output
  }
}
traced.module @Bn class "torch.nn.BatchNorm2d" {
  parameter @weight : tensor<4xf32> = dense<1.0> : tensor<4xf32>
  parameter @bias : tensor<4xf32> = dense<0.0> : tensor<4xf32>
  buffer @running_mean : tensor<4xf32> = dense<0.0> : tensor<4xf32>
  buffer @running_var : tensor<4xf32> = dense<1.0> : tensor<4xf32>
  attribute @training : i1 = False
  attribute @momentum : f64 = 0.1
  attribute @eps : !traced.str = "small"
}
