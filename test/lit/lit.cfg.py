# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "ARGUS"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.argus_obj_root, "test", "lit")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%examples", os.path.join(config.argus_src_root, "examples")))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%src_root", config.argus_src_root))

llvm_config.use_default_substitutions()  # FileCheck, count, not
llvm_config.with_environment("PATH", config.argus_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tools = [ToolSubst("argus-opt", unresolved="fatal")]
for optional in ["argus-layout", "argus-run"]:
    if os.path.exists(os.path.join(config.argus_tools_dir, optional)):
        tools.append(ToolSubst(optional, unresolved="ignore"))
        config.available_features.add(optional)
llvm_config.add_tool_substitutions(tools, [config.argus_tools_dir])

# Sanitizer settings reach the tools (scripts/sanitize.sh).
for _var in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
    if _var in os.environ:
        config.environment[_var] = os.environ[_var]
