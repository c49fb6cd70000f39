"""Dialects registered by pypto-opt: our own plus the upstream ones users mix in."""

from collections.abc import Callable

from xdsl.context import Context
from xdsl.ir import Dialect


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    def get_pypto() -> Dialect:
        from pypto_xdsl.dialects.pypto import Pypto

        return Pypto

    def get_ascendc() -> Dialect:
        from pypto_xdsl.dialects.ascendc import AscendC

        return AscendC

    return {"pypto": get_pypto, "ascendc": get_ascendc}


def make_context() -> Context:
    """A context with the pypto and ascendc dialects and every upstream xDSL dialect (lazily loaded)."""
    from xdsl.dialects import get_all_dialects as xdsl_dialects

    ctx = Context()
    for name, factory in xdsl_dialects().items():
        ctx.register_dialect(name, factory)
    for name, factory in get_all_dialects().items():
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, factory)
    return ctx
