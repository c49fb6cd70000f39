"""`pypto-opt -t ascendc`: print every generated file to stdout, each after a file marker. A
module whose kernels are not codegen-ready yet is lowered on a copy first, as pypto-compile does."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from pypto_xdsl.backend.ascendc.emit import FILE_MARKER


@dataclass(frozen=True)
class AscendCTarget(Target):
    """Ascend C kernels, ACL host code, CMakeLists.txt and README for a codegen-ready module."""

    name = "ascendc"

    entry: str | None = None
    """Orchestration function the driver (host/main.cpp) runs; default `main` or the last one."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        from pypto_xdsl.runtime.passes import emit_ascendc

        program = emit_ascendc(module, entry=self.entry)
        for path, text in program.files.items():
            output.write(FILE_MARKER.format(path=path) + "\n")
            output.write(text)


def get_ascendc_target() -> type[Target]:
    return AscendCTarget


def register_targets(opt_main) -> None:
    """Add the `ascendc` target to an xDSLOptMain (called by PyptoOptMain.register_all_targets)."""
    opt_main.available_targets["ascendc"] = get_ascendc_target
