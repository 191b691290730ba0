#!/usr/bin/env python3
"""The layering check of `make check` (docs/overview.md, "Layers").

Reads every `#include "TracedIR/<Component>/..."` in lib/ and
include/TracedIR/, every library's LINK_LIBS in lib/**/CMakeLists.txt, and
every import between the modules of python/traced (function-level imports
included), and fails when

* a file includes a header of a component its own may not depend on;
* a library links one of a component its own may not depend on;
* python/traced has an import cycle.

ALLOWED below is the layering: each component and the components it may
use. A lower layer never names a higher one; peers (Interpreter,
Transforms, Translate) do not name each other.

    /usr/bin/python3 tools/check_layers.py [--root DIR]
"""
import argparse
import ast
import os
import re
import sys

_BELOW_DIALECT = ["Support", "Base", "OpLibrary"]
_DIALECT = _BELOW_DIALECT + ["Dialect"]
ALLOWED = {
    "Support": [],
    # The dialect's types, attributes and Python values, below the op
    # library (StableHLO's Base): files in Dialect/ that FILE_COMPONENTS
    # names.
    "Base": ["Support"],
    "OpLibrary": ["Support", "Base"],
    "Dialect": _BELOW_DIALECT,
    # The interpreter's values (Tensor, RtValue, KernelArgs): used by the
    # kernels and by the rewrites that compute on weights.
    "Value": _BELOW_DIALECT,
    # Peers above the dialect: the interpreter (kernels, BLAS, the constant
    # evaluator), the rewrites, the trace formats.
    "Interpreter": _DIALECT + ["Value", "Runtime"],
    "Transforms": _DIALECT + ["Value"],
    "Translate": _DIALECT,
    # (Conversion emits calls of the runtimes' entry points: it may read
    # their headers' constants, not link them.)
    "Conversion": _DIALECT + ["Transforms", "Runtime"],
    # ONNX in and out: the export runs the surgery passes on a copy.
    "Onnx": _DIALECT + ["Transforms"],
    "ExecutionEngine": _DIALECT + ["Value", "Transforms", "Conversion",
                                   "Interpreter", "Runtime"],
    "InitAll": _DIALECT + ["Value", "Interpreter", "Transforms", "Translate",
                           "Conversion", "ExecutionEngine", "Onnx"],
    # The runtimes compiled code calls, below everything: the CUDA runtime
    # (linked into GPU libraries) and the linear-algebra runtime over LAPACK
    # (the interpreter's kernels call it too; docs/linalg-runtime.md). They
    # name nothing.
    "Runtime": [],
}
# Layers that live in another component's directory, by path prefix.
FILE_COMPONENTS = {
    "include/TracedIR/Dialect/Traced/TracedBase.h": "Base",
    "include/TracedIR/Dialect/Traced/PyValue.h": "Base",
    "lib/Dialect/Traced/Base/": "Base",
    # (generated from the .td files: the dialect class's declaration, the
    # types and the attributes)
    "include/TracedIR/Dialect/Traced/TracedDialect.h.inc": "Base",
    "include/TracedIR/Dialect/Traced/TracedTypes.": "Base",
    "include/TracedIR/Dialect/Traced/TracedAttrs.": "Base",
    "include/TracedIR/Interpreter/Value.h": "Value",
    "lib/Interpreter/Value/": "Value",
}
LIBRARIES = {
    "TracedSupport": "Support",
    "TracedBase": "Base",
    "TracedOpLibrary": "OpLibrary",
    "TracedDialect": "Dialect",
    "TracedValue": "Value",
    "TracedKernels": "Interpreter",
    "TracedInterpreter": "Interpreter",
    "TracedTransforms": "Transforms",
    "TracedTranslate": "Translate",
    "TracedOnnx": "Onnx",
    "TracedToLinalg": "Conversion",
    "TracedCpuCodegen": "Conversion",
    "TracedGpuCodegen": "Conversion",
    "TracedExecutionEngine": "ExecutionEngine",
    "TracedInitAll": "InitAll",
    "traced_linalg_runtime": "Runtime",
}


def component(rel):
    """The component of a path under lib/ or include/TracedIR/."""
    for prefix, comp in FILE_COMPONENTS.items():
        if rel.replace(os.sep, "/").startswith(prefix):
            return comp
    parts = rel.split(os.sep)
    if parts[0] == "lib" and len(parts) > 2:
        return parts[1]
    if parts[:2] == ["include", "TracedIR"] and len(parts) > 3:
        return parts[2]
    return None


def check_includes(root, problems):
    for top in ("lib", os.path.join("include", "TracedIR")):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith((".cpp", ".h", ".inc", ".c")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                own = component(rel)
                if own is None or own not in ALLOWED:
                    continue
                with open(path, errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        m = re.match(r'\s*#\s*include\s+"(TracedIR/[^/"]+/[^"]*)"', line)
                        if not m:
                            continue
                        used = component(os.path.join("include", m.group(1)))
                        if used != own and used not in ALLOWED[own]:
                            problems.append(
                                f"{rel}:{lineno}: {own} includes a header of "
                                f"{used} (a {own} file may include only "
                                f"{', '.join(ALLOWED[own]) or 'its own'})")


def check_links(root, problems):
    for dirpath, _, files in os.walk(os.path.join(root, "lib")):
        if "CMakeLists.txt" not in files:
            continue
        path = os.path.join(dirpath, "CMakeLists.txt")
        rel = os.path.relpath(path, root)
        text = open(path).read()
        for m in re.finditer(r"add_mlir_\w*library\((\w+)(.*?)\n\)", text, re.S):
            lib, body = m.group(1), m.group(2)
            own = LIBRARIES.get(lib)
            if own is None:
                continue
            links = re.search(r"LINK_LIBS\s+(?:PUBLIC|PRIVATE)?(.*)", body, re.S)
            for used_lib in re.findall(r"\b(Traced\w+)\b", links.group(1) if links else ""):
                used = LIBRARIES.get(used_lib)
                if used and used != own and used not in ALLOWED[own]:
                    problems.append(f"{rel}: {lib} ({own}) links {used_lib} ({used})")
        for m in re.finditer(r"target_link_libraries\((\w+)\s+(?:PUBLIC|PRIVATE|INTERFACE)?([^)]*)\)", text):
            own = LIBRARIES.get(m.group(1))
            for used_lib in re.findall(r"\b(Traced\w+)\b", m.group(2)):
                used = LIBRARIES.get(used_lib)
                if own and used and used != own and used not in ALLOWED[own]:
                    problems.append(f"{rel}: {m.group(1)} ({own}) links {used_lib} ({used})")


def python_imports(root):
    """module -> the package modules it imports (at any depth of the file)."""
    pkg = os.path.join(root, "python", "traced")
    graph = {}
    if not os.path.isdir(pkg):
        return graph
    modules = {f[:-3] for f in os.listdir(pkg) if f.endswith(".py")}
    for mod in sorted(modules):
        tree = ast.parse(open(os.path.join(pkg, mod + ".py")).read())
        deps = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    deps.add(node.module.split(".")[0])
                else:
                    deps.update(a.name for a in node.names)
        graph[mod] = sorted(d for d in deps if d in modules and d != mod)
    return graph


def check_python(root, problems):
    graph = python_imports(root)
    # The package's __init__ imports everything by design; a cycle through
    # it is the normal package shape, not a circle between modules.
    graph = {m: [d for d in ds if d != "__init__"]
             for m, ds in graph.items() if m != "__init__"}
    state, stack = {}, []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for d in graph.get(m, []):
            if state.get(d) == "open":
                cycle = stack[stack.index(d):] + [d]
                problems.append("python/traced import cycle: " + " -> ".join(cycle))
            elif d not in state:
                visit(d)
        stack.pop()
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    args = parser.parse_args()
    problems = []
    check_includes(args.root, problems)
    check_links(args.root, problems)
    check_python(args.root, problems)
    for p in problems:
        print(p)
    if problems:
        print(f"layering check: {len(problems)} problem(s) (docs/overview.md, 'Layers')")
        return 1
    print("layering check: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
