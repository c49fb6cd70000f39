"""PyPTO's `pypto.ir` names for the reference's examples: the compiler driver they call.

PyPTO's `pypto.ir` is its whole IR library; its examples use two names of it, `ir.compile`
(compile a program, write the generated files, return the output directory) and
`ir.OptimizationStrategy`. This module gives those two, over this project's pipeline and
Ascend C backend, and `serialize` / `deserialize` / `Function` (the IR as bytes: its MLIR
text); the rest of PyPTO's IR API has no counterpart here (the IR is xDSL's).
`pypto_xdsl.ir` (PyPTO's path: `from pypto_xdsl import ir`) re-exports this module's
`__all__`.
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path
from typing import Any

from xdsl.utils.exceptions import DiagnosticException

from pypto_xdsl.frontend.text import Function
from pypto_xdsl.runtime.config import BackendType, IgnoredOptionWarning, OptimizationStrategy

__all__ = ["Function", "OptimizationStrategy", "compile", "deserialize", "serialize"]


def _module_of(node: Any) -> Any:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.ir import Operation

    if isinstance(node, ModuleOp):
        return node
    module = getattr(node, "module", None)
    if isinstance(module, ModuleOp):
        return module
    if isinstance(node, Operation):
        return ModuleOp([node.clone()])
    raise TypeError(f"serialize: expected a Function, a program or an xDSL operation, got {type(node).__name__}")


def serialize(node: Any) -> bytes:
    """`node` (a `Function`, a `@pl.program`, a lowered program, a module or an op) as bytes:
    the UTF-8 MLIR text of its module, which `deserialize` and `pypto-opt` read back."""
    from io import StringIO

    from xdsl.printer import Printer

    out = StringIO()
    Printer(stream=out).print_op(_module_of(node))
    return out.getvalue().encode("utf-8")


def deserialize(data: bytes | str) -> Any:
    """What `serialize` wrote: a `Function` when the module holds one function, else the
    program (`.module`, `.functions`, printable). Bad input is a located xDSL ParseError."""
    from pypto_xdsl.dialects import make_context
    from pypto_xdsl.parsing import PyptoParser, decode_source
    from pypto_xdsl.runtime.jit import LoweredProgram

    text = decode_source(data, "<serialized>") if isinstance(data, bytes) else data
    module = PyptoParser(make_context(), text, "<serialized>").parse_module()
    module.verify()
    try:
        return Function(module)
    except ValueError:
        lowered = LoweredProgram(module, "")
        names = list(lowered.functions)
        lowered.entry = names[-1] if names else ""
        return lowered


def compile(  # noqa: A001  (PyPTO's name)
    program: Any,
    strategy: Any = None,
    dump_passes: bool = False,
    backend_type: Any = None,
    output_dir: str | Path | None = None,
    **options: Any,
) -> str:
    """Run `pypto-default` and the Ascend C backend on `program` (a `@pl.program`); write the
    kernels, host code and CMakeLists under `output_dir` (default
    `build_output/<name>_<time>/`) and return that directory."""
    ignored = {k: v for k, v in {"dump_passes": dump_passes, **options}.items() if v}
    if strategy not in (None, OptimizationStrategy.Default):
        ignored["strategy"] = strategy
    if backend_type not in (None, BackendType.Ascend910B):
        ignored["backend_type"] = backend_type
    if ignored:
        shown = ", ".join(f"{k}={v!r}" for k, v in ignored.items())
        warnings.warn(f"ir.compile options ignored by pypto-xdsl: {shown}", IgnoredOptionWarning, stacklevel=2)
    out = Path(output_dir) if output_dir is not None else Path("build_output") / (
        f"{program.name}_{time.strftime('%Y%m%d_%H%M%S')}"
    )
    try:
        program.compile(out)
    except (DiagnosticException, ValueError, NotImplementedError) as e:
        from pypto_xdsl.frontend.locate import located

        raise located(f"ir.compile: cannot compile {program.name}: {e}") from None
    return str(out)
