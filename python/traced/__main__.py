"""`python -m traced`: trace, inspect, compile, draw or view a model from the
command line (docs/python.md, "Command line").

The model is given as `pkg.mod:factory`: `factory()` returns a torch module,
or a (module, example_inputs) pair (example_inputs: a tensor, a tuple of
them, or a dict of keyword inputs). `--input-shape 1,3,224,224`
(repeatable, one per input) makes random float32 inputs instead, and
`--dynamic-dims 0=batch` marks dims dynamic. Or it is a module saved as
.mlir, .mlirbc or .json (`m.save`, `trace -o`).

    python -m traced trace torchvision.models:resnet18 --input-shape 1,3,224,224 -o r18.mlirbc
    python -m traced inspect r18.mlirbc --summary
    python -m traced compile mymodels:small --repeat 20
    python -m traced compile r18.mlirbc -o libr18.so
    python -m traced view r18.mlirbc -o r18.html [--serve]
"""
from __future__ import annotations

import argparse
import importlib
import os
import statistics
import sys
import threading
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

#: The suffixes of saved modules (traced.load reads them).
SAVED_SUFFIXES = (".mlir", ".mlirbc", ".json")


class UsageError(Exception):
    """A MODEL argument that names no factory, or a factory that gives no
    module or no inputs (the command line exits with status 2)."""


def load_factory(spec: str):
    """The callable that `pkg.mod:factory` names (dots after the colon
    reach attributes: `pkg.mod:Class.make`)."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"expected MODEL as pkg.mod:factory, got '{spec}'")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"cannot import {module_name}: {exc}") from exc
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise UsageError(f"{module_name}:{attr}: no attribute '{part}'")
        obj = getattr(obj, part)
    if not callable(obj):
        raise UsageError(f"{spec} is not callable")
    return obj


def _shape(text: str) -> Tuple[int, ...]:
    try:
        return tuple(int(d) for d in text.split(",") if d.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected sizes like 1,3,224,224, got '{text}'")


def _dynamic_dims_spec(text: str) -> Tuple[Optional[str], Dict[int, str]]:
    """`[INPUT:]DIM=NAME[,DIM=NAME...]` as (INPUT or None, {dim: name})."""
    where, _, dims = text.rpartition(":")
    found: Dict[int, str] = {}
    try:
        for part in dims.split(","):
            dim, eq, name = part.partition("=")
            if not eq or not name.strip():
                raise ValueError(part)
            found[int(dim)] = name.strip()
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected [INPUT:]DIM=NAME[,DIM=NAME...] like 0=batch or "
            f"mask:1=seq, got '{text}'") from None
    return (where or None), found


def model_and_inputs(spec: str, input_shapes: Optional[Sequence[Tuple[int, ...]]]):
    """(module in eval mode, tuple of example inputs, dict of keyword
    example inputs) for `pkg.mod:factory`; `input_shapes` (random normal
    float32 inputs) replace the factory's."""
    import torch

    made = load_factory(spec)()
    inputs: Tuple[Any, ...] = ()
    named: Dict[str, Any] = {}
    if isinstance(made, tuple) and len(made) == 2 and isinstance(made[0], torch.nn.Module):
        made, inputs = made
        if isinstance(inputs, dict):
            inputs, named = (), dict(inputs)
        elif not isinstance(inputs, (tuple, list)):
            inputs = (inputs,)
        inputs = tuple(inputs)
    if not isinstance(made, torch.nn.Module):
        raise UsageError(f"{spec}() returned {type(made).__name__}, not a torch.nn.Module "
                         f"or a (module, example_inputs) pair")
    if input_shapes:
        inputs, named = tuple(torch.randn(*s) for s in input_shapes), {}
    if not inputs and not named:
        raise UsageError(f"{spec}() gave no example inputs: pass --input-shape")
    return made.eval(), inputs, named


def _flatten(value) -> List[Any]:
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _flatten(v)]
    return [value]


def _is_saved(spec: str) -> bool:
    return spec.endswith(SAVED_SUFFIXES)


def _dynamic_dims(specs, module, inputs, named):
    """--dynamic-dims as traced.trace's dict by input name."""
    import traced

    if not specs:
        return None
    names = traced._example_inputs(module, inputs, named)[1]
    dims: Dict[str, Dict[int, str]] = {}
    for where, found in specs:
        if where is None:
            where = "1"
        if where.isdigit():
            i = int(where)
            if not 1 <= i <= len(names):
                raise UsageError(f"--dynamic-dims: no input {i} (the model "
                                 f"takes {len(names)}: {', '.join(names)})")
            where = names[i - 1]
        elif where not in names:
            raise UsageError(f"--dynamic-dims: no input named '{where}' (the "
                             f"inputs: {', '.join(names)})")
        dims.setdefault(where, {}).update(found)
    return dims


def _trace(args):
    """(traced.Module, torch module or None, inputs, keyword inputs): the
    traced MODEL, or the saved module MODEL names (no torch module, and no
    inputs)."""
    import traced

    if _is_saved(args.model):
        if not os.path.exists(args.model):
            raise UsageError(f"no such file: {args.model}")
        if getattr(args, "dynamic_dims", None):
            raise UsageError("--dynamic-dims applies when tracing; a saved "
                             "module keeps the dims it was traced with")
        return traced.load(args.model), None, (), {}
    module, inputs, named = model_and_inputs(args.model, args.input_shape)
    dims = _dynamic_dims(getattr(args, "dynamic_dims", None), module, inputs, named)
    m = traced.trace(module, *inputs, mode=args.mode, dynamic_dims=dims, **named)
    return m, module, inputs, named


def cmd_trace(args) -> int:
    m, _, _, _ = _trace(args)
    s = m.summary(print=False)
    print(f"traced {s.name}: {len(m.modules())} modules, "
          f"{s.total_params:,} parameters, {s.total_macs:,} MACs"
          + (" (at size 1 of every dynamic dim)" if s.dynamic else ""))
    if args.output:
        m.save(args.output)
        print(f"wrote {args.output}")
    return 0


def cmd_inspect(args) -> int:
    m, _, _, _ = _trace(args)
    shown = False
    if args.graph or not (args.summary or args.tabular or args.mlir):
        print(m.graph)
        shown = True
    if args.mlir:
        print(m.to_string(debuginfo=args.debuginfo))
    if args.tabular:
        if shown:
            print()
        m.print_tabular()
    if args.summary:
        m.summary(depth=args.depth)
    return 0


def _random_inputs(m, shapes):
    """Random inputs for a saved module's root graph: its shapes (a `?`
    dim takes the size --input-shape gives, else 1) and dtypes."""
    import torch

    from traced import _calls

    specs = _calls.specs_of_graph(m.graph)
    inputs = []
    for i, spec in enumerate(specs):
        if spec.kind == "none":
            inputs.append(None)
            continue
        if spec.kind != "tensor":
            raise UsageError(f"{spec.label} of the saved module is no tensor; "
                             f"compile takes random tensors only")
        given = shapes[i] if shapes and i < len(shapes) else None
        if given is not None and len(given) != len(spec.shape):
            raise UsageError(f"--input-shape for {spec.label} has "
                             f"{len(given)} dims, the graph's {len(spec.shape)}")
        size = [d if d is not None else (given[k] if given else 1)
                for k, d in enumerate(spec.shape)]
        dtype = getattr(torch, spec.dtype)
        if dtype.is_floating_point:
            inputs.append(torch.randn(size).to(dtype))
        elif dtype == torch.bool:
            inputs.append(torch.randint(0, 2, size).bool())
        else:
            inputs.append(torch.randint(0, 2, size).to(dtype))
    return tuple(inputs)


def cmd_compile(args) -> int:
    import torch
    import traced

    m, module, inputs, named = _trace(args)
    if args.output:
        import ctypes
        start = time.perf_counter()
        traced.save_library(m, args.output)
        took = time.perf_counter() - start
        lib = ctypes.CDLL(os.path.abspath(args.output))
        signature = ctypes.cast(lib.traced_forward_signature, ctypes.c_char_p)
        print(f"wrote {args.output} in {took:.2f} s: traced_forward "
              f"{signature.value.decode()} (C entry points: "
              f"include/TracedIR/ExecutionEngine/traced_abi.h)")
        return 0
    start = time.perf_counter()
    compiled = traced.compile(m)
    compile_s = time.perf_counter() - start
    if module is None:  # a saved module: against the reference interpreter
        inputs = _random_inputs(m, args.input_shape)
        reference = "the interpreter"
        expected = [t for t in _flatten(m.interpret(*inputs))
                    if isinstance(t, torch.Tensor)]
    else:
        reference = "torch"
        with torch.no_grad():
            expected = [t.detach() for t in _flatten(module(*inputs, **named))
                        if isinstance(t, torch.Tensor)]
    got = compiled(*inputs, **named)
    got = [g for g in (list(got) if isinstance(got, tuple) else [got])
           if isinstance(g, torch.Tensor)]
    if len(got) != len(expected):
        print(f"error: the compiled module returned {len(got)} tensors, "
              f"{reference} {len(expected)}", file=sys.stderr)
        return 1
    error = max((float((g.double() - e.double()).abs().max())
                 if e.numel() else 0.0) for g, e in zip(got, expected)) if got else 0.0
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        compiled(*inputs, **named)
        times.append(time.perf_counter() - start)
    print(f"compiled in {compile_s:.2f} s")
    print(f"max abs error vs {reference}: {error:.3g}")
    print(f"latency: median {statistics.median(times) * 1e3:.3f} ms over {args.repeat} runs")
    return 0


def cmd_draw(args) -> int:
    m, _, _, _ = _trace(args)
    m.draw(args.path, depth=args.depth, params=args.params)
    print(f"wrote {args.path}")
    return 0


def cmd_view(args) -> int:
    m, _, _, _ = _trace(args)
    from traced import view
    view.view(m, args.output)
    print(f"wrote {args.output}")
    if args.serve:
        server, url = view.serve_file(args.output, args.port)
        print(f"serving at {url} (Ctrl-C stops)", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
        finally:
            server.shutdown()
            server.server_close()
    return 0


def parser() -> argparse.ArgumentParser:
    """The argument parser of `python -m traced`."""
    p = argparse.ArgumentParser(
        prog="python -m traced",
        description="Trace a PyTorch model into TracedIR and inspect, save, "
                    "compile or draw it. MODEL is pkg.mod:factory (factory() "
                    "returns a module or a (module, example_inputs) pair), "
                    "or a module saved as .mlir, .mlirbc or .json.")
    sub = p.add_subparsers(dest="command", required=True)

    def common(name, help_text):
        c = sub.add_parser(name, help=help_text, description=help_text)
        c.add_argument("model", metavar="MODEL",
                       help="pkg.mod:factory, or a saved .mlir/.mlirbc/.json")
        c.add_argument("--input-shape", type=_shape, action="append", metavar="SIZES",
                       help="random float32 input of these sizes (1,3,224,224); "
                            "repeat for several inputs (a saved MODEL: the "
                            "sizes of its dynamic dims)")
        c.add_argument("--mode", default="auto", choices=("auto", "symbolic", "concrete"),
                       help="tracing mode (default auto)")
        c.add_argument("--dynamic-dims", type=_dynamic_dims_spec, action="append",
                       metavar="[INPUT:]DIM=NAME[,...]",
                       help="trace these dims of an input as dynamic (traced.trace's "
                            "dynamic_dims): 0=batch for input 1, mask:1=seq or "
                            "2:1=seq for another input (by name or number from "
                            "1); repeatable")
        return c

    c = common("trace", "trace the model; -o saves it (.mlir, .mlirbc, .json)")
    c.add_argument("-o", "--output", help="write the trace here (by suffix: "
                                          ".mlir text, .mlirbc bytecode, .json)")
    c.set_defaults(func=cmd_trace)

    c = common("inspect", "print the root graph, the MLIR, the fx-style table "
                          "or the summary")
    c.add_argument("--graph", action="store_true", help="the root graph (default)")
    c.add_argument("--mlir", action="store_true", help="the MLIR text")
    c.add_argument("--debuginfo", action="store_true", help="with --mlir: locations")
    c.add_argument("--tabular", action="store_true", help="torch.fx print_tabular layout")
    c.add_argument("--summary", action="store_true", help="torchinfo-style summary")
    c.add_argument("--depth", type=int, help="with --summary: deepest rows shown")
    c.set_defaults(func=cmd_inspect)

    c = common("compile", "compile for the CPU, run on the example input, "
                          "compare with torch (a saved MODEL: random inputs, "
                          "compared with the interpreter), time it; -o writes "
                          "a shared library instead")
    c.add_argument("--repeat", type=int, default=10, help="timed runs (default 10)")
    c.add_argument("-o", "--output", metavar="LIB.so",
                   help="write a shared library (traced.save_library) instead "
                        "of running")
    c.set_defaults(func=cmd_compile)

    c = common("draw", "draw the module graph to a file (Module.draw)")
    c.add_argument("path", help="output file")
    c.add_argument("--depth", type=int, help="nesting depth to expand")
    c.add_argument("--params", action="store_true", help="show parameters")
    c.set_defaults(func=cmd_draw)

    c = common("view", "write the graph explorer, one self-contained HTML "
                       "file (Module.view); --serve serves it on localhost")
    c.add_argument("-o", "--output", default="graph.html",
                   help="output file (default graph.html)")
    c.add_argument("--serve", action="store_true",
                   help="then serve it on localhost and print the URL")
    c.add_argument("--port", type=int, default=0,
                   help="with --serve: the port (default: a free one)")
    c.set_defaults(func=cmd_view)
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs `python -m traced` with `argv` (default sys.argv[1:]); returns
    the exit status: 0, 1 for a traced.Error, 2 for bad arguments."""
    import traced

    p = parser()
    args = p.parse_args(argv)
    try:
        return args.func(args)
    except UsageError as exc:
        p.error(str(exc))
    except traced.Error as exc:
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
