"""Where the C++ tools are, and the console scripts that run them.

An installed package (`pip install .`, docs/python.md) carries its own
traced-opt and traced-translate in traced/bin; the console scripts
`traced-opt` and `traced-translate` exec those. In the build tree
(PYTHONPATH=build/python) the tools are the build's: the extension is
build/python/traced/_traced*.so and the tools build/bin/*.
"""
import os
import sys

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def tool_path(name: str) -> str:
    """The path of the tool `name` (traced-opt, traced-translate): the
    package's bin/ when it has one, else the build's bin/ beside the
    extension's build/python (which need not exist)."""
    bundled = os.path.join(_PACKAGE_DIR, "bin", name)
    if os.path.exists(bundled):
        return bundled
    from . import _traced
    build = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.realpath(_traced.__file__))))
    return os.path.join(build, "bin", name)


def library_path(name: str) -> str:
    """A shared library built with the package (libtraced_cuda_runtime.so):
    the package's lib/, else the build's lib/ (which need not exist)."""
    bundled = os.path.join(_PACKAGE_DIR, "lib", name)
    if os.path.exists(bundled):
        return bundled
    return os.path.join(os.path.dirname(os.path.dirname(_PACKAGE_DIR)),
                        "lib", name)


def _exec(name: str):
    path = tool_path(name)
    if not os.path.exists(path):
        sys.exit(f"{name}: no {path} (this traced package carries no tools)")
    sys.stdout.flush()
    os.execv(path, [name] + sys.argv[1:])


def traced_opt():
    """The `traced-opt` console script."""
    _exec("traced-opt")


def traced_translate():
    """The `traced-translate` console script."""
    _exec("traced-translate")
