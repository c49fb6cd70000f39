# lit configuration for tests/filecheck (run: lit tests/filecheck, or lit . from the root).
import os
import shutil

import lit.formats

config.name = "pypto-xdsl"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["lit.cfg.py", "Output", "inputs"]

project_root = os.path.dirname(os.path.abspath(__file__))
config.test_source_root = os.path.join(project_root, "tests", "filecheck")
config.test_exec_root = config.test_source_root

llvm_bin = "/usr/lib/llvm-22/bin"
venv_bin = os.path.join(project_root, ".venv", "bin")
config.environment["PATH"] = os.pathsep.join([venv_bin, os.environ.get("PATH", ""), llvm_bin])
config.environment["PYTHONPATH"] = project_root + os.pathsep + os.environ.get("PYTHONPATH", "")

mlir_opt = shutil.which("mlir-opt", path=config.environment["PATH"])
if mlir_opt:
    config.available_features.add("mlir-opt")
    config.substitutions.append(("%mlir-opt", mlir_opt))

# Shorthands first: lit applies substitutions in order.
config.substitutions.append(
    (
        "PYPTO_ROUNDTRIP",
        "pypto-opt %s --split-input-file --print-op-generic | pypto-opt --split-input-file | filecheck %s",
    )
)
config.substitutions.append(
    (
        "PYPTO_GENERIC_ROUNDTRIP",
        "pypto-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=CHECK-GENERIC",
    )
)
config.substitutions.append(
    (
        "PYPTO_VERIFY_DIAG",
        "pypto-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s",
    )
)
