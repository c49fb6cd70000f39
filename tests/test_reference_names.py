"""PyPTO's module paths under `pypto_xdsl` (the reference's programs run with `pypto` changed to
`pypto_xdsl` on their import lines): every path the reference's examples import exists, the
names they take from it are ours, and a reference name pypto-xdsl does not provide fails with
an error that says so, on attribute access and in a `from ... import`."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pypto_xdsl.reference_names import ReferenceImportError, ReferenceNameError

PROJECT_ROOT = Path(__file__).resolve().parents[1]

# The module paths of PyPTO the reference's examples import (examples/**: `git grep "^\s*(from
# |import) pypto"`), as their pypto_xdsl paths.
REFERENCE_PATHS = (
    "pypto_xdsl",
    "pypto_xdsl.language",
    "pypto_xdsl.language.distributed",
    "pypto_xdsl.runtime",
    "pypto_xdsl.runtime.distributed_runner",
    "pypto_xdsl.ir",
    "pypto_xdsl.ir.pass_manager",
    "pypto_xdsl.ir.distributed_compiled_program",
    "pypto_xdsl.backend",
    "pypto_xdsl.backend.pto_backend",
)


def _python(code: str) -> str:
    """Run `code` in a fresh interpreter (so what it imports is not already loaded); its stdout."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=PROJECT_ROOT
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("path", REFERENCE_PATHS)
def test_every_reference_path_imports(path):
    module = __import__(path, fromlist=["_"])
    assert module.__name__ == path


def test_the_names_the_examples_import_are_this_projects():
    from pypto_xdsl import ir
    from pypto_xdsl.backend import BackendType
    from pypto_xdsl.ir.pass_manager import OptimizationStrategy
    from pypto_xdsl.runtime import RunConfig, TensorSpec, config, program, run, tensor_spec
    from pypto_xdsl.runtime import ir as runtime_ir

    assert BackendType is config.BackendType
    assert OptimizationStrategy is config.OptimizationStrategy
    assert ir.OptimizationStrategy is config.OptimizationStrategy
    assert ir.compile is runtime_ir.compile
    assert (RunConfig, TensorSpec, run) == (config.RunConfig, tensor_spec.TensorSpec, program.run)


def test_import_pypto_xdsl_as_pypto_reaches_the_subpackages():
    import pypto_xdsl as pypto
    from pypto_xdsl.runtime import ir as runtime_ir

    assert pypto.ir.compile is runtime_ir.compile
    assert pypto.language.function is not None
    assert {"ir", "language", "runtime", "backend"} <= set(dir(pypto))
    with pytest.raises(AttributeError, match="module 'pypto_xdsl' has no attribute 'DataTyp'"):
        pypto.DataTyp  # noqa: B018


def test_the_backend_package_loads_no_runtime_until_backend_type_is_used():
    shown = _python(
        """
        import sys
        import pypto_xdsl.backend
        import pypto_xdsl.backend.pto_backend
        print(sorted(m for m in sys.modules if m.startswith("pypto_xdsl.runtime")))
        from pypto_xdsl.backend import BackendType
        print(BackendType.Ascend910B.value)
        """
    )
    assert shown.splitlines() == ["[]", "Ascend910B"]


@pytest.mark.parametrize(
    ("module", "name", "reason"),
    [
        ("pypto_xdsl.ir", "IRBuilder", "the IR here is xDSL's"),
        ("pypto_xdsl.ir.pass_manager", "PassManager", "RunConfig(pipeline=...)"),
        ("pypto_xdsl.ir.distributed_compiled_program", "DistributedCompiledProgram", "sub-workers"),
        ("pypto_xdsl.backend", "SoC", "RunConfig(target=...)"),
        ("pypto_xdsl.backend.pto_backend", "PTOCodegen", "Ascend C backend"),
        ("pypto_xdsl.runtime", "Worker", "use ChipWorker"),
        ("pypto_xdsl.runtime", "DistributedWorker", "multi-chip"),
        ("pypto_xdsl.runtime.distributed_runner", "_tensor_from_continuous", "multi-chip"),
    ],
)
def test_an_unsupported_reference_name_says_so(module, name, reason):
    reference = "pypto" + module.removeprefix("pypto_xdsl")
    expected = f"{reference}.{name} is a PyPTO name that pypto-xdsl does not provide"
    target = __import__(module, fromlist=["_"])
    with pytest.raises(ReferenceNameError) as attribute:
        getattr(target, name)
    assert str(attribute.value).startswith(expected) and reason in str(attribute.value)
    assert isinstance(attribute.value, AttributeError) and not hasattr(target, name)
    # `from m import name` would drop an AttributeError's message for "cannot import name".
    with pytest.raises(ReferenceImportError) as imported:
        exec(f"from {module} import {name}", {})
    assert str(imported.value) == str(attribute.value)
    assert isinstance(imported.value, ImportError)


def test_the_error_says_what_the_module_provides():
    import pypto_xdsl.ir as ir

    with pytest.raises(AttributeError, match=r"pypto_xdsl\.ir provides Function, OptimizationStrategy, compile, deserialize, serialize, "):
        ir.serialize_everything  # noqa: B018
    with pytest.raises(ImportError, match=r"pypto_xdsl\.runtime provides BackendType, .*RunConfig, TensorSpec, run$"):
        exec("from pypto_xdsl.runtime import DistributedWorker, RunConfig", {})


def test_names_that_are_no_reference_names_keep_the_usual_errors():
    import pypto_xdsl.runtime as runtime

    with pytest.raises(AttributeError) as typo:
        runtime.RunConfg  # noqa: B018
    assert type(typo.value) is AttributeError
    with pytest.raises(ImportError, match="cannot import name 'RunConfg'"):
        exec("from pypto_xdsl.runtime import RunConfg", {})


def test_the_backends_own_submodules_still_import_through_the_package():
    shown = _python(
        """
        from pypto_xdsl.backend import ascendc
        import pypto_xdsl.backend as backend
        print(ascendc.__name__, hasattr(backend, "__wrapped__"))
        """
    )
    assert shown.split() == ["pypto_xdsl.backend.ascendc", "False"]


def test_partial_codegen_error_is_the_backends_own():
    from pypto_xdsl.backend.ascendc.emit import PartialCodegenError as backends
    from pypto_xdsl.backend.pto_backend import PartialCodegenError

    assert PartialCodegenError is backends
