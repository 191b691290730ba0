// The op library's Markdown reference is generated from the table.
// RUN: traced-translate --traced-op-library-doc %s | FileCheck %s

// CHECK: # The op library
// CHECK: | `torch.nn.functional.relu` | `torch.relu`, `Tensor.relu`, `F.relu`, `nn.relu`, {{.*}} | `(Tensor input, bool inplace=False)` |
// CHECK: | `torch.nn.functional.conv2d` | {{.*}} | `(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2]|str padding=0, int[2] dilation=1, int groups=1, *, str padding_mode="zeros")` |
// CHECK: ## Leaf modules
// CHECK: | `torch.nn.Conv2d` | `torch.nn.modules.conv.Conv2d`, `megengine.module.Conv2d` | `(Tensor input)` | `torch.nn.functional.conv2d(input=input, weight=self.weight, bias=self.bias, stride=self.stride, padding=self.padding, dilation=self.dilation, groups=self.groups, padding_mode=getattr(self, "padding_mode", default))` |
