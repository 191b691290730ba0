#!/usr/bin/env python3
"""Generates AtenOverloads.inc: the `torch.ops.aten.<op>.<overload>` spellings
of the op library's entries, with each overload's schema read from torch's
own registry (torch._C._jit_get_all_schemas()), the way torch-mlir's
torch_ods_gen.py generates GeneratedTorchOps.td. Nothing is hand-copied:
this file only says which ATen ops an entry means (ATEN_OPS) and which
ATen-only parameters may be ignored.

    PYTHONPATH=build/python /usr/bin/python3 lib/OpLibrary/gen_aten_overloads.py \
        > lib/OpLibrary/AtenOverloads.inc

`make aten` regenerates it; `make check` fails when it is stale.

An overload is kept when its schema binds onto the entry: after `self`
becomes `input`, every parameter must be one of the entry's (of a
compatible type) or one of IGNORABLE with its default; the entry's
parameters the overload lacks keep their defaults. Out variants, in-place
variants, named-tensor (Dimname) overloads and generic list ops are
skipped; the comment after each entry names the skipped overloads.
"""
import re
import sys

import torch

# entry -> the ATen ops (base names) it means.
ATEN_OPS = {
    # aten::unique_consecutive always returns (values, inverse, counts); the
    # Python function returns those its flags ask for: no ATen overload.
    "torch.functional.unique_consecutive": [],
    "torch.nn.functional.relu": ["relu"],
    "torch.linalg.matrix_exp": ["linalg_matrix_exp", "matrix_exp"],
    "torch.nn.functional.relu6": ["relu6"],
    "torch.nn.functional.hardtanh": ["hardtanh"],
    "torch.nn.functional.gelu": ["gelu"],
    "torch.nn.functional.silu": ["silu"],
    "torch.nn.functional.hardswish": ["hardswish"],
    "torch.nn.functional.hardsigmoid": ["hardsigmoid"],
    "torch.nn.functional.leaky_relu": ["leaky_relu"],
    "torch.sigmoid": ["sigmoid"],
    "torch.tanh": ["tanh"],
    "torch.nn.functional.softmax": ["softmax"],
    "torch.nn.functional.log_softmax": ["log_softmax"],
    "torch.clamp": ["clamp", "clip"],
    "torch.exp": ["exp"],
    "torch.log": ["log"],
    "torch.sqrt": ["sqrt"],
    "torch.rsqrt": ["rsqrt"],
    "torch.abs": ["abs"],
    "torch.erf": ["erf"],
    "torch.neg": ["neg"],
    "torch.add": ["add"],
    "torch.sub": ["sub", "subtract"],
    "torch.mul": ["mul", "multiply"],
    "torch.div": ["div", "divide", "true_divide"],
    "torch.floor_divide": ["floor_divide"],
    "torch.pow": ["pow"],
    "torch.remainder": ["remainder"],
    "torch.fmod": ["fmod"],
    "torch.nn.functional.conv1d": ["conv1d"],
    "torch.nn.functional.conv2d": ["conv2d"],
    "torch.nn.functional.conv3d": ["conv3d"],
    "torch.nn.functional.conv_transpose1d": ["conv_transpose1d"],
    "torch.nn.functional.conv_transpose2d": ["conv_transpose2d"],
    "torch.nn.functional.conv_transpose3d": ["conv_transpose3d"],
    "torch.convolution": ["convolution", "_convolution"],
    "torch.conv_tbc": ["conv_tbc"],
    "torch.nn.functional.linear": ["linear"],
    "torch.matmul": ["matmul"],
    "torch.bmm": ["bmm"],
    "torch.mm": ["mm"],
    "torch.baddbmm": ["baddbmm"],
    "torch.nn.functional.batch_norm": ["batch_norm"],
    "torch.nn.functional.layer_norm": ["layer_norm"],
    "torch.dropout": ["dropout"],
    "torch.nn.functional.max_pool1d": ["max_pool1d"],
    "torch.nn.functional.max_pool2d": ["max_pool2d"],
    "torch.nn.functional.max_pool3d": ["max_pool3d"],
    # ATen's *_with_indices and adaptive_max_pool ops return (values, indices).
    "torch.nn.functional.max_pool1d_with_indices": ["max_pool1d_with_indices"],
    "torch.nn.functional.max_pool2d_with_indices": ["max_pool2d_with_indices"],
    "torch.nn.functional.max_pool3d_with_indices": ["max_pool3d_with_indices"],
    "torch.nn.functional.avg_pool1d": ["avg_pool1d"],
    "torch.nn.functional.avg_pool2d": ["avg_pool2d"],
    "torch.nn.functional.avg_pool3d": ["avg_pool3d"],
    "torch.nn.functional.adaptive_avg_pool1d": ["adaptive_avg_pool1d"],
    "torch.nn.functional.adaptive_avg_pool2d": ["adaptive_avg_pool2d", "_adaptive_avg_pool2d"],
    "torch.nn.functional.adaptive_avg_pool3d": ["adaptive_avg_pool3d", "_adaptive_avg_pool3d"],
    "torch.nn.functional.adaptive_max_pool1d_with_indices": ["adaptive_max_pool1d"],
    "torch.nn.functional.adaptive_max_pool2d_with_indices": ["adaptive_max_pool2d"],
    "torch.nn.functional.adaptive_max_pool3d_with_indices": ["adaptive_max_pool3d"],
    "torch.mean": ["mean"],
    "torch.sum": ["sum"],
    "torch.flatten": ["flatten"],
    "torch.reshape": ["reshape"],
    "Tensor.view": ["view"],
    "torch.permute": ["permute"],
    "torch.transpose": ["transpose", "swapaxes"],
    "Tensor.contiguous": ["contiguous"],
    "torch.unsqueeze": ["unsqueeze"],
    "torch.squeeze": ["squeeze"],
    "Tensor.unflatten": ["unflatten"],
    "Tensor.expand": ["expand", "broadcast_to"],
    "torch.sign": ["sign", "sgn"],  # (sgn is sign for real dtypes)
    "torch.split": ["split", "split_with_sizes"],
    "torch.cat": ["cat", "concat"],
    "torch.stack": ["stack"],
    "torch.chunk": ["chunk"],
    "Tensor.size": ["size"],
    "Tensor.dim": ["dim"],
    "torch.eq": ["eq"], "torch.ne": ["ne", "not_equal"], "torch.lt": ["lt", "less"],
    "torch.le": ["le", "less_equal"], "torch.gt": ["gt", "greater"],
    "torch.ge": ["ge", "greater_equal"],
    "torch.logical_and": ["logical_and"], "torch.logical_or": ["logical_or"],
    "torch.logical_xor": ["logical_xor"], "torch.logical_not": ["logical_not"],
    "torch.bitwise_and": ["bitwise_and", "__and__"], "torch.bitwise_or": ["bitwise_or", "__or__"],
    "torch.bitwise_xor": ["bitwise_xor", "__xor__"], "torch.bitwise_not": ["bitwise_not"],
    "torch.bitwise_left_shift": ["bitwise_left_shift", "__lshift__"],
    "torch.bitwise_right_shift": ["bitwise_right_shift", "__rshift__"],
    "torch.maximum": ["maximum"], "torch.minimum": ["minimum"],
    "torch.fmax": ["fmax"], "torch.fmin": ["fmin"],
    "torch.where": ["where"], "Tensor.masked_fill": ["masked_fill"],
    "torch.isnan": ["isnan"], "torch.isinf": ["isinf"], "torch.isfinite": ["isfinite"],
    **{f"torch.{n}": [n] for n in [
        "reciprocal", "exp2", "expm1", "log2", "log10", "log1p", "erfc", "erfinv",
        "sin", "cos", "tan", "sinh", "cosh", "floor", "ceil", "round",
        "frac", "square"]},
    "torch.asin": ["asin", "arcsin"], "torch.acos": ["acos", "arccos"],
    "torch.atan": ["atan", "arctan"], "torch.asinh": ["asinh", "arcsinh"],
    "torch.acosh": ["acosh", "arccosh"], "torch.atanh": ["atanh", "arctanh"],
    "torch.atan2": ["atan2", "arctan2"], "torch.trunc": ["trunc", "fix"],
    "torch.lgamma": ["lgamma", "special_gammaln"],
    "torch.digamma": ["digamma", "special_digamma", "special_psi"],
    "torch.polygamma": ["polygamma", "special_polygamma"],
    "torch.mvlgamma": ["mvlgamma", "special_multigammaln"],
    "torch.i0": ["i0", "special_i0"],
    "torch.nn.functional.elu": ["elu"], "torch.nn.functional.selu": ["selu"],
    "torch.nn.functional.celu": ["celu"], "torch.nn.functional.softplus": ["softplus"],
    "torch.nn.functional.mish": ["mish"], "torch.nn.functional.hardshrink": ["hardshrink"],
    "torch.nn.functional.softshrink": ["softshrink"],
    "torch.nn.functional.threshold": ["threshold"], "torch.nn.functional.rrelu": ["rrelu"],
    "torch.nn.functional.logsigmoid": ["log_sigmoid"],
    **{f"torch.{n}": [n] for n in [
        "amax", "amin", "argmax", "argmin", "max", "min", "all", "any", "prod",
        "var", "std", "var_mean", "std_mean", "logsumexp", "cumsum", "cumprod",
        "index_select", "gather", "narrow", "flip", "roll", "tile", "zeros_like",
        "ones_like", "full_like", "tril", "triu"]},
    "Tensor.repeat": ["repeat"], "Tensor.to": ["to"], "Tensor.type_as": ["type_as"],
    "torch.nn.functional.embedding": ["embedding"],
    "torch.nn.functional.one_hot": ["one_hot"],
    "torch.nn.functional.pad": ["pad"],
    "torch.nn.functional.glu": ["glu"], "torch.nn.functional.prelu": ["prelu"],
    "torch.nn.functional.group_norm": ["group_norm"],
    "torch.einsum": ["einsum"],
    **{f"torch.{n}": [n] for n in [
        "addmm", "mv", "dot", "outer", "select", "movedim", "sort", "argsort", "topk",
        "scatter", "scatter_add", "clone", "t"]},
    "Tensor.detach": ["detach"],
    "Tensor.new_zeros": ["new_zeros"], "Tensor.new_ones": ["new_ones"],
    "Tensor.new_full": ["new_full"],
    "torch.fft.fftshift": ["fft_fftshift"],
    "torch.fft.ifftshift": ["fft_ifftshift"],
    **{f"torch.fft.{n}": [f"fft_{n}"] for n in [
        "irfft", "irfft2", "irfftn", "hfft", "hfft2", "hfftn"]},
    "torch.igamma": ["igamma", "special_gammainc"],
    "torch.igammac": ["igammac", "special_gammaincc"],
    "torch.nn.functional._scaled_dot_product_attention": [
        "_scaled_dot_product_attention"],
    "torch.linalg.matrix_power": ["linalg_matrix_power", "matrix_power"],
    "torch.trapezoid": ["trapezoid", "trapz"],
}

# ATen ops that mean an entry under other parameter names or with some of
# the entry's parameters fixed: op -> (entry, {ATen name: ours}, {our
# parameter: fixed value}).
ATEN_RENAMED = {
    **{f"{aten}_pad{n}d": ("torch.nn.functional.pad", {"padding": "pad"},
                           {"mode": f'"{mode}"'})
       for aten, mode in (("reflection", "reflect"), ("replication", "replicate"))
       for n in (1, 2, 3)},
    **{f"upsample_{mode}{n}d": ("torch.nn.functional.interpolate",
                                {"output_size": "size", "scale_factors": "scale_factor"},
                                {"mode": f'"{name}"'})
       for mode, name, dims in (("nearest", "nearest", (1, 2, 3)),
                                ("linear", "linear", (1,)),
                                ("bilinear", "bilinear", (2,)),
                                ("bicubic", "bicubic", (2,)),
                                ("trilinear", "trilinear", (3,)))
       for n in dims},
    "numpy_T": ("builtins.getattr", {}, {"name": '"T"'}),
    # aten::stft (no center) does not pad the signal; stft.center does, as
    # torch.functional.stft.
    "stft": ("torch.functional.stft", {}, {"center": "False"}),
    "cross_entropy_loss": ("torch.nn.functional.cross_entropy", {}, {}),
    "_reshape_alias": ("Tensor.view", {}, {}),
    "empty_strided": ("torch.empty", {}, {}),
    "new_empty_strided": ("Tensor.new_empty", {}, {}),
    "_softmax": ("torch.nn.functional.softmax", {}, {}),
    "_log_softmax": ("torch.nn.functional.log_softmax", {}, {}),
    "frobenius_norm": ("torch.norm", {}, {"p": '"fro"'}),
    **{f"_cast_{name}": ("Tensor.to", {}, {"dtype": f"torch.{dtype}"})
       for name, dtype in (("Byte", "uint8"), ("Char", "int8"), ("Short", "int16"),
                           ("Int", "int32"), ("Long", "int64"), ("Half", "float16"),
                           ("Float", "float32"), ("Double", "float64"))},
    "_unsafe_view": ("Tensor.view", {}, {}),
    "_to_copy": ("Tensor.to", {}, {}),
    "lift_fresh_copy": ("torch.clone", {}, {}),
    "alias": ("torch.clone", {}, {}),
    "fliplr": ("torch.flip", {}, {"dims": "[1]"}),
    "flipud": ("torch.flip", {}, {"dims": "[0]"}),
    # On real tensors (the only ones the IR has): vdot is dot, and every
    # element is real.
    "vdot": ("torch.dot", {}, {}),
    "isreal": ("torch.ones_like", {}, {"dtype": "torch.bool"}),
}


# PyTorch's primitives (torch.ops.prims, which decomposed programs call)
# that mean an entry: op -> (entry, {prims name: ours}, {our parameter:
# fixed value}). Their schemas come from the ops themselves.
PRIMS_RENAMED = {
    "view_of": ("torch.clone", {"a": "input"}, {}),
    "convert_element_type": ("Tensor.to", {"a": "input"}, {}),
    "sum": ("torch.sum", {"inp": "input", "dims": "dim", "output_dtype": "dtype"}, {}),
}


def auto_aten_ops(entries, schemas):
    """Entries not in ATEN_OPS whose own name is an ATen op's
    (`torch.hypot` is `aten::hypot`, `torch.linalg.vector_norm` is
    `aten::linalg_vector_norm`): each ATen op to the one entry named so."""
    claimed = {op for ops in ATEN_OPS.values() for op in ops} | set(ATEN_RENAMED)
    found = {}
    for entry in sorted(entries):
        if entry in ATEN_OPS:
            continue
        name = entry.rsplit(".", 1)[-1]
        for space in ("linalg", "special"):
            if entry.startswith(f"torch.{space}."):
                name = f"{space}_{name}"
        if name in schemas and name not in claimed:
            found.setdefault(name, entry)  # the first entry (sorted) keeps it
    return {entry: [op] for op, entry in found.items()}


# ATen parameter names of an entry's overloads that are another of its
# parameters (`scatter.value` is torch.scatter's `src` as a Scalar).
ENTRY_RENAMES = {
    "torch.scatter": {"value": "src"},
    "torch.einsum": {"tensors": "operands"},
    # torch.linalg's factorizations name their matrix A (ATen: self).
    **{f"torch.linalg.{name}": {"input": "A"} for name in (
        "cholesky", "cholesky_ex", "eigh", "eigvalsh", "solve_triangular",
        "householder_product", "tensorinv", "ldl_factor", "ldl_factor_ex",
        "matrix_exp")},
    "torch.linalg.tensorsolve": {"input": "A", "other": "B"},
    "torch.linalg.lstsq": {"input": "A", "b": "B"},
    "torch.split": {"split_size": "split_size_or_sections",
                    "split_sizes": "split_size_or_sections"},
    **{f"torch.{n}split": {"sections": "indices_or_sections",
                           "indices": "indices_or_sections"} for n in "hvd"},
    "torch.isin": {"element": "elements", "test_element": "test_elements"},
}

# ATen-only parameters that do not change the result on the CPU.
IGNORABLE = {"implicit", "memory_format", "cudnn_enabled", "cudnn_enable", "names",
             "generator", "path",  # (einsum's contraction order)
             "layout", "pin_memory",  # (strided CPU tensors only)
             # aten::_convolution's backend choices.
             "benchmark", "deterministic", "allow_tf32"}

# ATen-only parameters an entry's result rule checks, refusing the values
# torch refuses on the CPU (`_softmax(x, dim, half_to_float=True)`).
RULE_CHECKED = {"half_to_float",
                # _reshape_alias's (Tensor.view's rule takes contiguous
                # strides only); empty_strided's, whose values the strides
                # do not change.
                "stride"}

# Entry parameters only leaf modules bind (nn.Conv2d's padding_mode,
# nn.ConvTranspose2d's forward(output_size)): ATen overloads lack them.
MODULE_ONLY = {"padding_mode", "output_size"}

# Our spelling of ATen's types; None: the overload is skipped.
def translate_type(t):
    t = re.sub(r"\([^)]*\)", "", t)  # Tensor(a), Tensor(a!), Tensor(a -> *)
    optional = t.endswith("?")
    t = t.rstrip("?")
    m = re.fullmatch(r"(\w+)(\[(\d*)\])?", t)
    if not m:
        return None
    base, is_list, size = m.group(1), m.group(2), m.group(3)
    base = {"SymInt": "int", "ScalarType": "dtype", "Tensor": "Tensor", "int": "int",
            "float": "float", "bool": "bool", "str": "str", "Scalar": "Scalar",
            "MemoryFormat": "Any", "Layout": "Any", "Device": "Any",
            "Generator": "Any"}.get(base)
    if base is None:
        return None
    if is_list:
        if base == "Any":
            return None
        base += f"[{size}]"
    return base + ("?" if optional else "")


def translate_default(value, ptype):
    if value is None:
        return None
    text = str(value)
    if ptype.startswith("Any"):
        return "None"
    if text == "[]" and ptype.rstrip("?").endswith("]"):
        return "None"  # max_pool2d's stride=[]: the kernel size, as None
    if text in ("True", "False", "None") or re.fullmatch(r"-?[\d.e+-]+", text):
        return text
    if text.startswith("[") or text.startswith("'") or text.startswith('"'):
        return text.replace("'", '"')
    return None


def entry_params():
    """The entries' signatures, from the built op library."""
    import traced._traced as t
    return t.op_library_signatures()


def split_top(text):
    """Splits at commas outside brackets, parentheses and quotes."""
    parts, depth, quote, cur = [], 0, None, ""
    for c in text:
        if quote:
            quote = None if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        cur += c
    if cur.strip():
        parts.append(cur.strip())
    return parts


def schema_arguments(schema):
    """(kwarg_only, type, name, default or None) of a schema's arguments,
    from its TorchScript text `aten::add.Tensor(Tensor self, ...) -> Tensor`."""
    params = schema[schema.index("(") + 1:schema.rindex("->")].strip()
    params = params[:params.rindex(")")]
    out, kwarg_only = [], False
    for part in split_top(params):
        if part == "*":
            kwarg_only = True
            continue
        decl, eq, default = part.partition("=")
        atype, _, name = decl.strip().rpartition(" ")
        out.append((kwarg_only, atype.strip(), name, default.strip() if eq else None))
    return out


def parse_signature(text):
    """{name: (type, default)} of one of our signatures."""
    params = {}
    for part in re.split(r",\s*(?![^\[]*\])", text.strip()[1:-1]):
        part = part.strip()
        if part in ("*", ""):
            continue
        decl, _, default = part.partition("=")
        typ, _, name = decl.strip().rpartition(" ")
        params[name.lstrip("*")] = (typ.strip(), default.strip() or None)
    return params


def compatible(ours, theirs):
    if ours.endswith("|str"):  # conv's `int[2]|str padding`
        return theirs.rstrip("?") == "str" or compatible(ours[:-4], theirs)
    a, b = ours.rstrip("?"), theirs.rstrip("?")
    if "Any" in (a, b):
        return True
    strip = lambda t: re.sub(r"\[\d*\]", "[]", t)
    a, b = strip(a), strip(b)
    if a == b:
        return True
    scalars = {"int", "float", "bool", "Scalar", "Tensor|Scalar"}
    if a in ("Scalar", "Tensor|Scalar", "float") and b in scalars:
        return True
    if a == "Tensor|Scalar" and b == "Tensor":
        return True
    if a == "int[]" and b == "int":
        return True
    return False


def quote(text):
    return '"' + text.replace('"', '\\"') + '"'


def packet_signature(overloads, ours):
    """A signature for the packet `torch.ops.aten.<op>`, which torch
    dispatches to one of its overloads by the arguments' types: the longest
    overload's, when every other overload's positional parameters are a
    prefix of it (the parameters the others lack get the entry's defaults);
    None when the overloads bind positions differently."""
    if not overloads:
        return None
    def positional(parts):
        names = []
        for p in parts:
            if p == "*":
                break
            names.append(p.split("=")[0].split(" ")[-1])
        return names
    longest = max(overloads, key=lambda parts: len(positional(parts)))
    lp = positional(longest)
    for parts in overloads:
        if positional(parts) != lp[:len(positional(parts))]:
            return None
    shortest = min(len(positional(parts)) for parts in overloads)
    def names(parts):
        return {p.split("=")[0].split(" ")[-1] for p in parts if p != "*"}
    everywhere = set.intersection(*(names(parts) for parts in overloads))
    # Parameters that are required in every overload that has them.
    required = set.union(*(names(parts) for parts in overloads)) - {
        p.split("=")[0].split(" ")[-1] for parts in overloads for p in parts
        if "=" in p}
    out = []
    for i, p in enumerate(longest):
        if p == "*":
            out.append(p)
            continue
        decl, eq, default = p.partition("=")
        ptype, name = decl.rsplit(" ", 1)
        if name in ours and not (name == "reduction" and ptype.startswith("int")):
            ptype = ours[name][0]  # the entry's type covers every overload
        # A parameter that some overloads lack must be optional in the packet.
        if not eq and ((i >= shortest and name in lp) or name not in everywhere
                       or name not in required):
            if name not in ours and name in IGNORABLE:
                # Absent from a shorter overload (_convolution's allow_tf32)
                # and without effect: any value, None when not given.
                ptype, default, eq = "Any", "None", "="
            elif name not in ours or ours[name][1] is None:
                return None
            else:
                default, eq = ours[name][1], "="
        out.append(f"{ptype} {name}" + (f"={default}" if eq else ""))
    return "(" + ", ".join(out) + ")"


def main():
    sigs = entry_params()
    schemas = {}
    for s in torch._C._jit_get_all_schemas():
        if s.name.startswith("aten::"):
            schemas.setdefault(s.name[len("aten::"):], []).append(s)
    out = [
        "// Generated by lib/OpLibrary/gen_aten_overloads.py from torch "
        f"{torch.__version__.split('+')[0]}'s schema registry; do not edit.",
        "// {ATen spelling, op library entry, signature (null: the entry's own)}",
    ]
    jobs = [(entry, op, {}, {}, "aten") for entry, ops in ATEN_OPS.items() for op in ops]
    jobs += [(entry, op, {}, {}, "aten")
             for entry, ops in auto_aten_ops(sigs, schemas).items() for op in ops]
    jobs += [(entry, op, renames, fixed, "aten")
             for op, (entry, renames, fixed) in ATEN_RENAMED.items()]
    for op in PRIMS_RENAMED:
        schemas["prims::" + op] = [getattr(torch.ops.prims, op).default._schema]
    jobs += [(entry, "prims::" + op, renames, fixed, "prims")
             for op, (entry, renames, fixed) in PRIMS_RENAMED.items()]
    last_entry = None
    for entry, op, renames, fixed, space in jobs:
        ours = parse_signature(sigs[entry])
        if entry != last_entry:
            out.append(f"// {entry}")
            last_entry = entry
        skipped = []
        short = op.split("::")[-1]
        if True:
            if op not in schemas:
                raise SystemExit(f"aten::{op} is not in torch's registry")
            kept = []
            for s in sorted(schemas[op], key=lambda s: s.overload_name):
                overload = s.overload_name or "default"
                name = f"{short}.{overload}"
                reason = None
                if overload == "out" or overload.endswith("_out") or "!" in str(s):
                    reason = "out/in-place"
                elif "name" in overload.lower() or "dimname" in overload.lower():
                    reason = "named tensors"
                parts, keyword, seen = [], False, set()
                for kwarg_only, atype, aname, adefault in schema_arguments(str(s)):
                    if reason:
                        break
                    pname = "input" if aname == "self" else aname
                    pname = {**ENTRY_RENAMES.get(entry, {}), **renames}.get(pname, pname)
                    ptype = translate_type(atype)
                    if ptype is None:
                        reason = f"type {atype}"
                        break
                    if pname not in ours:
                        if pname not in IGNORABLE | RULE_CHECKED:
                            reason = f"parameter {pname}"
                            break
                    elif not compatible(ours[pname][0], ptype) and not (
                            # ATen's Reduction enum (0 none, 1 mean, 2 sum),
                            # which the loss kernels read as well.
                            pname == "reduction" and ptype.startswith("int")):
                        reason = f"{pname}: {atype} vs {ours[pname][0]}"
                        break
                    if kwarg_only and not keyword:
                        parts.append("*")
                        keyword = True
                    default = translate_default(adefault, ptype)
                    if adefault is not None and default is None:
                        reason = f"default {adefault}"
                        break
                    if default == "None" and not ptype.endswith("?"):
                        ptype += "?"
                    parts.append(f"{ptype} {pname}" + (f"={default}" if default is not None else ""))
                    seen.add(pname)
                if reason is None:
                    # The entry's parameters the overload lacks keep their defaults.
                    for pname, (ptype, default) in ours.items():
                        if pname in seen or pname in MODULE_ONLY:
                            continue
                        default = fixed.get(pname, default)
                        if default is None:
                            reason = f"lacks {pname}"
                            break
                        if not keyword:
                            parts.append("*")
                            keyword = True
                        parts.append(f"{ptype} {pname}={default}")
                if reason:
                    skipped.append(f"{name} ({reason})")
                    continue
                kept.append(parts)
                out.append(f'{{"torch.ops.{space}.{name}", "{entry}", {quote("(" + ", ".join(parts) + ")")}}},')
            packet = packet_signature(kept, ours)
            if f"torch.ops.{space}.{short}" == entry:
                pass  # the packet is the entry itself (aten.Int)
            elif packet:
                out.insert(len(out) - len(kept),
                           f'{{"torch.ops.{space}.{short}", "{entry}", {quote(packet)}}},')
            elif kept:
                skipped.append(f"the packet {op} (its overloads bind positions differently)")
        if skipped:
            out.append("//   skipped: " + "; ".join(skipped))
    print("\n".join(out))


if __name__ == "__main__":
    main()
