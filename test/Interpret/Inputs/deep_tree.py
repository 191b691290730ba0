"""Writes a module tree N modules deep: M0 calls its submodule M1's
forward, ..., the last applies relu. Used by limits.mlir."""
import sys

depth = int(sys.argv[1])
out = []
for d in range(depth):
    root = "root " if d == 0 else ""
    out.append(f'traced.module {root}@M{d} class "m.M{d}" {{')
    if d + 1 < depth:
        out.append(f'  submodule @child : @M{d + 1}')
    out.append(f'  graph @forward(%self: !traced.module<@M{d}>, '
               f'%x: tensor<4xf32>) -> tensor<4xf32> {{')
    if d + 1 < depth:
        out.append(f'    %c = getattr %self["child"] : !traced.module<@M{d}> '
                   f'-> !traced.module<@M{d + 1}>')
        out.append(f'    %y = call_method %c["forward"](%x) : '
                   f'(!traced.module<@M{d + 1}>, tensor<4xf32>) -> tensor<4xf32>')
    else:
        out.append('    %y = call_function "torch.relu"(%x) : '
                   '(tensor<4xf32>) -> tensor<4xf32>')
    out.append('    output %y : tensor<4xf32>')
    out.append('  }')
    out.append('}')
sys.stdout.write("\n".join(out) + "\n")
