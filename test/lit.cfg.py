# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TRACED"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py",
                   "Inputs", "round_trip.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.traced_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%test_src", config.test_source_root))

# `traced-translate --run` compiles as traced.compile does: verifying after
# every pass only where this is set (docs/cpu.md, "Progress and timing").
config.environment["TRACED_VERIFY_EACH"] = "1"

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.traced_tools_dir, config.llvm_tools_dir]
tools = ["traced-opt", "traced-translate", "traced-fuzz-parse",
         "traced-fuzz-bytecode", "traced-fuzz-json", "traced-fuzz-npy",
         "traced-fuzz-interpret", "traced-fuzz-diff", "traced-fuzz-onnx"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
