"""`pip install .` for TracedIR (docs/python.md, "pip install").

setuptools (Debian's python3-setuptools, through pyproject.toml's
setuptools.build_meta) builds the package; its one extension, `_traced`,
is built by this project's CMake build, configured the way the Makefile
configures build/ (Release, clang-22, lld, the system's MLIR 22) in a
build folder of its own, build-pip/cmake (never the developer's build/).
The wheel's `traced` package holds the pure-Python modules
(python/traced), the extension, the two tools in traced/bin (the
console scripts `traced-opt` and `traced-translate` exec them) and,
where CUDA was found, libtraced_cuda_runtime.so in traced/lib.

Offline, with the build dependencies from Debian:

    pip install --no-build-isolation .

Environment: TRACED_PIP_BUILD_DIR (the CMake build folder, default
build-pip/cmake under the source tree), TRACED_PIP_JOBS (ninja -j,
default the core count), LLVM_DIR (default /usr/lib/llvm-22), CMAKE_ARGS
(more -D options, split on spaces).
"""
import os
import shutil
import subprocess
import sys
import time

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE_DIR = os.path.dirname(os.path.abspath(__file__))
# Everything pip's build writes in the source tree is under build-pip/:
# setuptools' own build folder and egg-info too (setuptools' default,
# build/, is the developer's CMake build).
PIP_DIR = os.path.join(SOURCE_DIR, "build-pip")
TOOLS = ("traced-opt", "traced-translate")


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    """Configures and builds the CMake targets the package needs, then
    copies them into the package being assembled."""

    def build_extension(self, ext):
        llvm = os.environ.get("LLVM_DIR", "/usr/lib/llvm-22")
        build = os.path.abspath(os.environ.get(
            "TRACED_PIP_BUILD_DIR", os.path.join(PIP_DIR, "cmake")))
        jobs = os.environ.get("TRACED_PIP_JOBS") or str(os.cpu_count() or 1)
        # The interpreter pip runs (a venv's python resolves to the system
        # python3.11 it was made from; the extension is built for it).
        python = os.path.realpath(sys.executable)
        configure = [
            "cmake", "-G", "Ninja", "-S", SOURCE_DIR, "-B", build,
            "-DCMAKE_BUILD_TYPE=Release",
            f"-DCMAKE_C_COMPILER={llvm}/bin/clang",
            f"-DCMAKE_CXX_COMPILER={llvm}/bin/clang++",
            "-DLLVM_USE_LINKER=lld",
            f"-DMLIR_DIR={llvm}/lib/cmake/mlir",
            f"-DLLVM_EXTERNAL_LIT={llvm}/bin/lit",
            f"-DTRACED_PYTHON_EXECUTABLE={python}",
        ] + os.environ.get("CMAKE_ARGS", "").split()
        start = time.monotonic()
        if not os.path.exists(os.path.join(build, "build.ninja")):
            self._run(configure)
        else:
            # Reconfigure only when the options changed (a re-run of
            # cmake on an unchanged cache is cheap but not free).
            self._run(configure, quiet=True)
        targets = ["traced-python", "_traced", "traced_linalg_runtime", *TOOLS]
        cuda = self._has_target(build, "traced_cuda_runtime")
        if cuda:
            targets.append("traced_cuda_runtime")
        self._run(["ninja", "-C", build, "-j", jobs, *targets])
        print(f"traced: CMake build in {build} took "
              f"{time.monotonic() - start:.0f} s", flush=True)

        # The extension where setuptools expects it, the tools beside it.
        target = self.get_ext_fullpath(ext.name)
        package = os.path.dirname(target)
        os.makedirs(package, exist_ok=True)
        built = os.path.join(build, "python", "traced",
                             os.path.basename(target))
        if not os.path.exists(built):
            raise RuntimeError(f"the CMake build made no {built} (is "
                               f"{python} the python it was configured for?)")
        shutil.copy2(built, target)
        os.makedirs(os.path.join(package, "bin"), exist_ok=True)
        for tool in TOOLS:
            shutil.copy2(os.path.join(build, "bin", tool),
                         os.path.join(package, "bin", tool))
        # The linear-algebra runtime save_library links (docs/linalg-runtime.md).
        os.makedirs(os.path.join(package, "lib"), exist_ok=True)
        shutil.copy2(os.path.join(build, "lib", "libtraced_linalg_runtime.a"),
                     os.path.join(package, "lib", "libtraced_linalg_runtime.a"))
        if cuda:
            shutil.copy2(os.path.join(build, "lib", "libtraced_cuda_runtime.so"),
                         os.path.join(package, "lib", "libtraced_cuda_runtime.so"))

    @staticmethod
    def _has_target(build, name):
        query = subprocess.run(["ninja", "-C", build, "-t", "query", name],
                               capture_output=True)
        return query.returncode == 0

    @staticmethod
    def _run(cmd, quiet=False):
        print("traced:", " ".join(cmd), flush=True)
        subprocess.run(cmd, check=True,
                       stdout=subprocess.DEVNULL if quiet else None)


# setuptools' staging folder is a copy of the package, made afresh each
# build (a module deleted from python/traced must not stay in the wheel);
# the CMake build folder is kept, so that a rebuild is incremental.
shutil.rmtree(os.path.join(PIP_DIR, "setuptools"), ignore_errors=True)
os.makedirs(PIP_DIR, exist_ok=True)
setup(
    packages=["traced"],
    package_dir={"traced": "python/traced"},
    ext_modules=[CMakeExtension("traced._traced")],
    cmdclass={"build_ext": CMakeBuild},
    options={
        "build": {"build_base": os.path.join(PIP_DIR, "setuptools")},
        "egg_info": {"egg_base": PIP_DIR},
    },
    zip_safe=False,
)
