"""Dialects registered by pypto-opt: our own plus the upstream ones users mix in."""

from collections.abc import Callable

from xdsl.ir import Dialect


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    def get_pypto() -> Dialect:
        from pypto_xdsl.dialects.pypto import Pypto

        return Pypto

    return {"pypto": get_pypto}
