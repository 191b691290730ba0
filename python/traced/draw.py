"""Pictures of traced graphs, through Graphviz's `dot` (docs/python.md).

The DOT text comes from the C++ core (`traced-translate --traced-to-dot`
writes the same): each traced submodule call is a cluster, collapsed to a
box below `depth`; edges carry shape and dtype.
"""
import os
import shutil
import subprocess

from ._traced import Error

# Formats by file suffix; ".dot" writes the DOT text itself.
_FORMATS = {".svg": "svg", ".png": "png", ".pdf": "pdf", ".dot": None}


def to_dot(state, depth=None, params=False):
    if depth is not None and (not isinstance(depth, int) or isinstance(depth, bool)
                              or depth < 1):
        raise Error(f"depth must be a positive int or None (every level), not {depth!r}")
    return state.to_dot(depth or 0, bool(params))


def draw(state, path, depth=None, params=False, format=None):
    path = os.fspath(path)
    suffix = os.path.splitext(path)[1].lower()
    if format is None:
        if suffix not in _FORMATS:
            raise Error(f"cannot tell the picture format of '{path}': use a "
                        f".svg, .png, .pdf or .dot name, or pass format=")
        format = _FORMATS[suffix]
    elif format == "dot":
        format = None
    elif format not in ("svg", "png", "pdf"):
        raise Error(f"unknown picture format '{format}' (svg, png, pdf, dot)")
    text = to_dot(state, depth, params)
    if format is None:
        with open(path, "w") as f:
            f.write(text)
        return path
    dot = shutil.which("dot")
    if dot is None:
        raise Error("Graphviz's 'dot' is not installed (Debian: apt-get install "
                    "graphviz); m.to_dot() gives the DOT text without it")
    done = subprocess.run([dot, f"-T{format}", "-o", path], input=text.encode(),
                          capture_output=True)
    if done.returncode != 0:
        raise Error(f"dot failed on the picture of the module: "
                    f"{done.stderr.decode(errors='replace').strip()}")
    return path
