"""pypto-opt: xdsl-opt with the pypto dialect, its passes and targets."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from xdsl.xdsl_opt_main import xDSLOptMain

from pypto_xdsl.dialects import get_all_dialects
from pypto_xdsl.transforms import get_all_passes


class PyptoOptMain(xDSLOptMain):
    version_format = "pypto-opt (xdsl {xdsl_version})"

    def __init__(self, args: Sequence[str] | None = None):
        super().__init__(description="pypto modular optimizer driver", args=args)

    def register_all_dialects(self) -> None:
        # The multiverse already holds pypto when the package's entry point is installed.
        super().register_all_dialects()
        for name, factory in get_all_dialects().items():
            if name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in get_all_passes().items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        super().register_all_targets()
        try:
            from pypto_xdsl.backend.ascendc.target import register_targets
        except ImportError:
            return
        register_targets(self)


def main(args: Sequence[str] | None = None) -> None:
    PyptoOptMain(args).run()


if __name__ == "__main__":
    main(sys.argv[1:])
