"""`python -m traced`: trace, inspect, compile or draw a model from the
command line (docs/python.md, "Command line").

The model is given as `pkg.mod:factory`: `factory()` returns a torch module,
or a (module, example_inputs) pair (example_inputs: a tensor or a tuple of
them). `--input-shape 1,3,224,224` (repeatable, one per input) makes random
float32 inputs instead.

    python -m traced trace torchvision.models:resnet18 --input-shape 1,3,224,224 -o r18.mlirbc
    python -m traced inspect mymodels:small --summary
    python -m traced compile mymodels:small --repeat 20
"""
from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from typing import Any, List, Optional, Sequence, Tuple


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


def model_and_inputs(spec: str, input_shapes: Optional[Sequence[Tuple[int, ...]]]):
    """(module in eval mode, tuple of example inputs) for `pkg.mod:factory`;
    `input_shapes` (random normal float32 inputs) replace the factory's."""
    import torch

    made = load_factory(spec)()
    inputs: Tuple[Any, ...] = ()
    if isinstance(made, tuple) and len(made) == 2 and isinstance(made[0], torch.nn.Module):
        made, inputs = made
        if not isinstance(inputs, (tuple, list)):
            inputs = (inputs,)
        inputs = tuple(inputs)
    if not isinstance(made, torch.nn.Module):
        raise UsageError(f"{spec}() returned {type(made).__name__}, not a torch.nn.Module "
                         f"or a (module, example_inputs) pair")
    if input_shapes:
        inputs = tuple(torch.randn(*s) for s in input_shapes)
    if not inputs:
        raise UsageError(f"{spec}() gave no example inputs: pass --input-shape")
    return made.eval(), inputs


def _flatten(value) -> List[Any]:
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _flatten(v)]
    return [value]


def _trace(args):
    import traced

    module, inputs = model_and_inputs(args.model, args.input_shape)
    return traced.trace(module, *inputs, mode=args.mode), module, inputs


def cmd_trace(args) -> int:
    m, _, _ = _trace(args)
    s = m.summary(print=False)
    print(f"traced {s.name}: {len(m.modules())} modules, "
          f"{s.total_params:,} parameters, {s.total_macs:,} MACs")
    if args.output:
        m.save(args.output)
        print(f"wrote {args.output}")
    return 0


def cmd_inspect(args) -> int:
    m, _, _ = _trace(args)
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


def cmd_compile(args) -> int:
    import numpy as np
    import torch
    import traced

    m, module, inputs = _trace(args)
    start = time.perf_counter()
    compiled = traced.compile(m)
    compile_s = time.perf_counter() - start
    with torch.no_grad():
        expected = [t.detach().numpy() for t in _flatten(module(*inputs))
                    if isinstance(t, torch.Tensor)]
    got = compiled(*inputs)
    got = list(got) if isinstance(got, tuple) else [got]
    if len(got) != len(expected):
        print(f"error: the compiled module returned {len(got)} tensors, torch "
              f"{len(expected)}", file=sys.stderr)
        return 1
    error = max((float(np.max(np.abs(np.asarray(g, np.float64) - e.astype(np.float64))))
                 if e.size else 0.0) for g, e in zip(got, expected)) if got else 0.0
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        compiled(*inputs)
        times.append(time.perf_counter() - start)
    print(f"compiled in {compile_s:.2f} s")
    print(f"max abs error vs torch: {error:.3g}")
    print(f"latency: median {statistics.median(times) * 1e3:.3f} ms over {args.repeat} runs")
    return 0


def cmd_draw(args) -> int:
    m, _, _ = _trace(args)
    m.draw(args.path, depth=args.depth, params=args.params)
    print(f"wrote {args.path}")
    return 0


def parser() -> argparse.ArgumentParser:
    """The argument parser of `python -m traced`."""
    p = argparse.ArgumentParser(
        prog="python -m traced",
        description="Trace a PyTorch model into TracedIR and inspect, save, "
                    "compile or draw it. MODEL is pkg.mod:factory; factory() "
                    "returns a module or a (module, example_inputs) pair.")
    sub = p.add_subparsers(dest="command", required=True)

    def common(name, help_text):
        c = sub.add_parser(name, help=help_text, description=help_text)
        c.add_argument("model", metavar="MODEL", help="pkg.mod:factory")
        c.add_argument("--input-shape", type=_shape, action="append", metavar="SIZES",
                       help="random float32 input of these sizes (1,3,224,224); "
                            "repeat for several inputs")
        c.add_argument("--mode", default="auto", choices=("auto", "symbolic", "concrete"),
                       help="tracing mode (default auto)")
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
                          "compare with torch, time it")
    c.add_argument("--repeat", type=int, default=10, help="timed runs (default 10)")
    c.set_defaults(func=cmd_compile)

    c = common("draw", "draw the module graph to a file (Module.draw)")
    c.add_argument("path", help="output file")
    c.add_argument("--depth", type=int, help="nesting depth to expand")
    c.add_argument("--params", action="store_true", help="show parameters")
    c.set_defaults(func=cmd_draw)
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
