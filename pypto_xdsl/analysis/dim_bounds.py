"""Static bounds of dynamic dimensions, and where their run-time extents come from.

A named dynamic dimension (`N` in `!pypto.tensor<[N, 128], f32>`) is a run-time extent, but
buffers are sized statically: a tile of a dynamic width needs the largest width it can take.
That bound is

1. declared on the function: `pypto.dim_bounds = {N = 4096 : i64}` (what
   `pl.dynamic("N", max=4096)` becomes);
2. else derived from the call sites: at every `pypto.call` / `pypto.submit` of the function,
   the dimension of the argument the symbol is bound to is a static extent or a bounded symbol
   of the caller (the largest over the sites; unknown if one site is unbounded);
3. else a default the client supplies (a pass option), or none.

The extent itself, at run time, is `pypto.tensor.dim` of a tensor parameter that has the
symbol (`parameter_dim`): the value a kernel receives from its host.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue

from pypto_xdsl.dialects.attributes import TensorType, TileType
from pypto_xdsl.dialects.program import CallOp, FuncOp, SubmitOp, dim_bounds


def parameter_dim(func: FuncOp, symbol: str) -> tuple[BlockArgument, int] | None:
    """The first tensor parameter of `func` with dimension `symbol`, and that axis."""
    return tensor_axis(func.body.blocks[0].args, symbol)  # type: ignore[return-value]


def tensor_axis(values: Iterable[SSAValue], symbol: str) -> tuple[SSAValue, int] | None:
    """The first tensor of `values` with dimension `symbol`, and that axis."""
    for value in values:
        t = value.type
        if isinstance(t, TensorType):
            for axis, d in enumerate(t.get_shape()):
                if d == symbol:
                    return value, axis
    return None


def describe_parameter(func: FuncOp, symbol: str) -> str:
    """`dimension 1 of parameter %x (!pypto.tensor<[N, C], f32>)`, or where else the symbol is."""
    found = parameter_dim(func, symbol)
    if found is None:
        return f"the dimension {symbol} of @{func.sym_name.data}'s signature"
    arg, axis = found
    name = f"%{arg.name_hint}" if arg.name_hint else f"#{arg.index}"
    return f"dimension {axis} of parameter {name}: {arg.type}"


def missing_bound_message(func: FuncOp, symbol: str, needed_for: str, option: str | None = None) -> str:
    """Why a static size cannot be chosen, naming the parameter, the symbol and the remedies."""
    fix = (
        f'declare one with pl.dynamic("{symbol}", max=...), or '
        f"{{pypto.dim_bounds = {{{symbol} = ...}}}} on @{func.sym_name.data} or a function calling it"
    )
    if option is not None:
        fix += f", or give a default: {option}"
    return (
        f"{needed_for} needs a static bound on the dynamic dimension {symbol} "
        f"({describe_parameter(func, symbol)}), which has none: {fix}"
    )


def _caller(op: Operation) -> FuncOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        parent = parent.parent_op()
    return parent


class DimBounds:
    """Bounds of the dynamic dimensions of every function of `module` (see the module
    docstring). Call sites are collected in one walk, on first need; results are memoised."""

    def __init__(self, module: ModuleOp, default: int | None = None):
        self.module = module
        self.default = default
        self._sites: dict[str, list[CallOp | SubmitOp]] | None = None
        self._memo: dict[tuple[int, str], int | None] = {}
        self._active: set[tuple[int, str]] = set()

    def sites(self, func: FuncOp) -> list[CallOp | SubmitOp]:
        if self._sites is None:
            self._sites = {}
            for op in self.module.walk():
                if isinstance(op, CallOp | SubmitOp):
                    self._sites.setdefault(op.callee.root_reference.data, []).append(op)
        return self._sites.get(func.sym_name.data, [])

    def of(self, func: FuncOp, symbol: str) -> int | None:
        """The bound of `symbol` in `func`, or None when it has none."""
        key = (id(func), symbol)
        if key in self._memo:
            return self._memo[key]
        if key in self._active:  # a recursive call chain: no bound from this path
            return None
        self._active.add(key)
        try:
            bound = self._compute(func, symbol)
        finally:
            self._active.discard(key)
        self._memo[key] = bound
        return bound

    def _compute(self, func: FuncOp, symbol: str) -> int | None:
        declared = dim_bounds(func).get(symbol)
        if declared is not None:
            return declared
        derived = self._from_sites(func, symbol)
        return derived if derived is not None else self.default

    def _from_sites(self, func: FuncOp, symbol: str) -> int | None:
        sites = self.sites(func)
        if not sites:
            return None
        formals = func.function_type.inputs.data
        best: int | None = None
        for site in sites:
            caller = _caller(site)
            at_site: int | None = None
            for formal, actual in zip(formals, site.args):
                if not isinstance(formal, TensorType | TileType):
                    continue
                actual_type = actual.type
                if not isinstance(actual_type, TensorType | TileType):
                    continue
                for d, a in zip(formal.get_shape(), actual_type.get_shape()):
                    if d != symbol:
                        continue
                    if isinstance(a, int):
                        b: int | None = a
                    elif isinstance(a, str) and caller is not None:
                        b = self.of(caller, a)
                    else:
                        b = None
                    if b is not None:
                        at_site = b if at_site is None else min(at_site, b)
            if at_site is None:
                return None  # one unbounded call site leaves the symbol unbounded
            best = at_site if best is None else max(best, at_site)
        return best

    def table(self, func: FuncOp) -> Mapping[str, int | None]:
        """Every symbol of `func`'s signature with its bound."""
        symbols: list[str] = []
        for t in (*func.function_type.inputs.data, *func.function_type.outputs.data):
            if isinstance(t, TensorType | TileType):
                for d in t.get_shape():
                    if isinstance(d, str) and d not in symbols:
                        symbols.append(d)
        return {s: self.of(func, s) for s in symbols}
