"""C++ emission helpers shared by the kernel and host printers.

`CxxWriter` walks a block of IR and prints C++ statements: `arith` scalar arithmetic becomes
expressions (constants are inlined as literals), `scf.for`/`scf.if` become C++ loops and
branches with their carried values as variables. Subclasses print their own ops through
`emit_other` and decide how tensor values flow through regions (`tensor_value`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from pypto_xdsl.analysis.cxx_names import (  # noqa: F401  (re-exported for the printers and tests)
    CPP_KEYWORDS,
    BackendError,
    Namer,
    ctype,
    op_error,
)
from pypto_xdsl.dialects.attributes import TensorType, TileType, element_byte_width

UB_BYTES = 192 * 1024
BLOCK_BYTES = 32
REPEAT_BYTES = 256
MAX_REPEAT = 255


def byte_width(t: Attribute) -> int:
    return element_byte_width(t)


def float_literal(value: float, t: Attribute) -> str:
    c = ctype(t)
    if math.isnan(value):
        return f"std::numeric_limits<{c}>::quiet_NaN()"
    if math.isinf(value):
        sign = "-" if value < 0 else ""
        return f"{sign}std::numeric_limits<{c}>::infinity()"
    text = repr(value) if isinstance(t, Float64Type) else f"{value:.9g}"
    if "e" not in text and "." not in text and "inf" not in text:
        text += ".0"
    if isinstance(t, Float32Type):
        return text + "f"
    if isinstance(t, Float64Type):
        return text
    return f"static_cast<{c}>({text}f)"


def int_literal(value: int, t: Attribute) -> str:
    c = ctype(t)
    if c == "bool":
        return "true" if value else "false"
    if c == "int32_t":
        return str(value)
    if c == "int64_t" and -(2**31) <= value < 2**31:
        return str(value)
    return f"static_cast<{c}>({value})"


@dataclass
class Expr:
    """A C++ expression and its C++ type; `literal` expressions are inlined constants."""

    text: str
    ctype: str
    literal: bool = False
    const_value: int | float | None = None


def cast_to(e: Expr, c: str) -> str:
    if e.ctype == c:
        return e.text
    return f"static_cast<{c}>({e.text})"


@dataclass
class Lines:
    """Indented C++ lines."""

    lines: list[str] = field(default_factory=list)
    depth: int = 1

    def add(self, text: str = "") -> None:
        self.lines.append(("  " * self.depth + text) if text else "")

    def indent(self) -> None:
        self.depth += 1

    def dedent(self) -> None:
        self.depth -= 1


_BINARY_INT = {
    arith.AddiOp: "+",
    arith.SubiOp: "-",
    arith.MuliOp: "*",
    arith.DivSIOp: "/",
    arith.DivUIOp: "/",
    arith.RemSIOp: "%",
    arith.RemUIOp: "%",
    arith.AndIOp: "&",
    arith.OrIOp: "|",
    arith.XOrIOp: "^",
    arith.ShLIOp: "<<",
    arith.ShRSIOp: ">>",
    arith.AddfOp: "+",
    arith.SubfOp: "-",
    arith.MulfOp: "*",
    arith.DivfOp: "/",
}

_CMPI = {
    "eq": "==",
    "ne": "!=",
    "slt": "<",
    "sle": "<=",
    "sgt": ">",
    "sge": ">=",
    "ult": "<",
    "ule": "<=",
    "ugt": ">",
    "uge": ">=",
}

_CMPF = {"oeq": "==", "one": "!=", "olt": "<", "ole": "<=", "ogt": ">", "oge": ">=", "ueq": "==", "une": "!="}


@dataclass(frozen=True)
class NoValue:
    """A carried value with no C++ representation (a task id: launches on one stream are ordered)."""

    result: SSAValue


class CxxWriter:
    """Prints blocks of arith/scf (and, through subclasses, pypto) ops as C++ statements."""

    NO_STORAGE_MESSAGE = "this tensor value has no storage the printer knows"

    def __init__(self, namer: Namer):
        self.namer = namer
        self.exprs: dict[SSAValue, Expr] = {}
        self.out = Lines()
        # tensor value -> the storage window it names (a printer-specific view object)
        self.tensor_views: dict[SSAValue, object] = {}

    # ---- hooks

    def emit_other(self, op: Operation) -> None:
        raise op_error(op, "this op is not supported by the Ascend C backend")

    def bind_tensor(self, value: SSAValue, source: SSAValue) -> None:
        """`value` names the same tensor storage as `source` (through a region boundary)."""
        self.tensor_views[value] = self.tensor_root(source)

    def tensor_root(self, value: SSAValue) -> object:
        """The storage window `value` names; an error naming its op when there is none."""
        root = self.tensor_views.get(value)
        if root is None:
            owner = value.owner
            op = owner if isinstance(owner, Operation) else owner.parent_op()
            raise op_error(op, self.NO_STORAGE_MESSAGE)  # type: ignore[arg-type]
        return root

    def carried_kind(self, op: Operation, t: Attribute) -> str:
        """'tensor', 'scalar' or 'none' (a value with no C++ form); raises for anything else (tiles)."""
        if isinstance(t, TensorType):
            return "tensor"
        if isinstance(t, TileType):
            raise op_error(
                op,
                f"tile values ({t}) cannot be carried through scf regions yet; keep tiles inside "
                "one loop iteration or branch",
            )
        try:
            ctype(t)
        except BackendError:
            raise op_error(op, f"values of type {t} cannot be carried through scf regions") from None
        return "scalar"

    # ---- helpers

    def name_for(self, value: SSAValue, fallback: str = "v") -> str:
        hint = value.name_hint
        return self.namer.fresh(hint if hint else fallback)

    def expr(self, value: SSAValue) -> Expr:
        e = self.exprs.get(value)
        if e is None:
            owner = value.owner
            op = owner if isinstance(owner, Operation) else owner.parent_op()
            raise op_error(op, f"value of type {value.type} has no C++ equivalent here")  # type: ignore[arg-type]
        return e

    def define(self, value: SSAValue, text: str, c: str) -> Expr:
        name = self.name_for(value)
        self.out.add(f"const {c} {name} = {text};")
        e = Expr(name, c)
        self.exprs[value] = e
        return e

    # ---- walking

    def emit_block(self, block: Block) -> None:
        for op in block.ops:
            self.emit_op(op)

    def emit_op(self, op: Operation) -> None:
        if isinstance(op, arith.ConstantOp):
            self.emit_constant(op)
        elif type(op) in _BINARY_INT:
            lhs, rhs = self.expr(op.operands[0]), self.expr(op.operands[1])
            c = ctype(op.results[0].type)
            self.define(op.results[0], f"{lhs.text} {_BINARY_INT[type(op)]} {rhs.text}", c)
        elif isinstance(op, arith.CeilDivSIOp | arith.CeilDivUIOp):
            lhs, rhs = self.expr(op.operands[0]), self.expr(op.operands[1])
            c = ctype(op.results[0].type)
            self.define(op.results[0], f"({lhs.text} + {rhs.text} - 1) / {rhs.text}", c)
        elif isinstance(op, arith.FloorDivSIOp):
            lhs, rhs = self.expr(op.operands[0]), self.expr(op.operands[1])
            c = ctype(op.results[0].type)
            a, b = lhs.text, rhs.text
            self.define(
                op.results[0], f"({a} / {b}) - ((({a} % {b}) != 0) && (({a} < 0) != ({b} < 0)))", c
            )
        elif isinstance(op, arith.MaxSIOp | arith.MaxUIOp | arith.MaximumfOp | arith.MaxnumfOp):
            lhs, rhs = self.expr(op.operands[0]), self.expr(op.operands[1])
            self.define(op.results[0], f"{lhs.text} > {rhs.text} ? {lhs.text} : {rhs.text}", ctype(op.results[0].type))
        elif isinstance(op, arith.MinSIOp | arith.MinUIOp | arith.MinimumfOp | arith.MinnumfOp):
            lhs, rhs = self.expr(op.operands[0]), self.expr(op.operands[1])
            self.define(op.results[0], f"{lhs.text} < {rhs.text} ? {lhs.text} : {rhs.text}", ctype(op.results[0].type))
        elif isinstance(op, arith.NegfOp):
            self.define(op.results[0], f"-{self.expr(op.operands[0]).text}", ctype(op.results[0].type))
        elif isinstance(op, arith.CmpiOp):
            pred = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
            lhs, rhs = self.expr(op.lhs), self.expr(op.rhs)
            self.define(op.result, f"{lhs.text} {_CMPI[pred]} {rhs.text}", "bool")
        elif isinstance(op, arith.CmpfOp):
            pred = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
            if pred not in _CMPF:
                raise op_error(op, f"predicate '{pred}' is not supported")
            lhs, rhs = self.expr(op.lhs), self.expr(op.rhs)
            self.define(op.result, f"{lhs.text} {_CMPF[pred]} {rhs.text}", "bool")
        elif isinstance(op, arith.SelectOp):
            cond, a, b = (self.expr(v) for v in op.operands)
            self.define(op.result, f"{cond.text} ? {a.text} : {b.text}", ctype(op.result.type))
        elif isinstance(
            op,
            arith.IndexCastOp
            | arith.SIToFPOp
            | arith.UIToFPOp
            | arith.FPToSIOp
            | arith.FPToUIOp
            | arith.ExtFOp
            | arith.TruncFOp
            | arith.ExtSIOp
            | arith.ExtUIOp
            | arith.TruncIOp,
        ):
            c = ctype(op.results[0].type)
            self.define(op.results[0], f"static_cast<{c}>({self.expr(op.operands[0]).text})", c)
        elif isinstance(op, scf.ForOp):
            self.emit_for(op)
        elif isinstance(op, scf.IfOp):
            self.emit_if(op)
        elif isinstance(op, scf.WhileOp):
            self.emit_while(op)
        elif isinstance(op, scf.YieldOp | scf.ConditionOp):
            raise op_error(op, "unexpected scf.yield")
        else:
            self.emit_other(op)

    def emit_constant(self, op: arith.ConstantOp) -> None:
        value = op.value
        t = op.result.type
        if isinstance(value, IntegerAttr):
            v = value.value.data
            self.exprs[op.result] = Expr(int_literal(v, t), ctype(t), literal=True, const_value=v)
        elif isinstance(value, FloatAttr):
            v = value.value.data
            self.exprs[op.result] = Expr(float_literal(v, t), ctype(t), literal=True, const_value=v)
        else:
            raise op_error(op, f"constant {value} is not a scalar")

    # ---- control flow

    def _carried_vars(
        self, op: Operation, results: Sequence[SSAValue], hints: Sequence[SSAValue] = ()
    ) -> list[str | None]:
        """Names of C++ variables for scalar results of a region op (None for tensors).

        The variable is named after the region's block argument (`hints`) when it has a name
        hint, else after the result.
        """
        names: list[str | NoValue | None] = []
        for k, r in enumerate(results):
            kind = self.carried_kind(op, r.type)
            if kind == "tensor":
                names.append(None)
            elif kind == "none":
                names.append(NoValue(r))
            else:
                hint = hints[k] if k < len(hints) and hints[k].name_hint else r
                names.append(self.name_for(hint, "r"))
        return names

    def _assign_yield(self, op: Operation, targets: Sequence[str | NoValue | None], yielded: Sequence[SSAValue],
                      carried: Sequence[SSAValue]) -> None:
        """Assign yielded scalars to `targets`; check yielded tensors alias `carried` ones."""
        pending: list[tuple[str, str]] = []
        for target, value, into in zip(targets, yielded, carried):
            if isinstance(target, NoValue):
                continue
            if target is None:
                if self.tensor_root(value) != self.tensor_root(into):
                    raise op_error(
                        op,
                        "a tensor yielded from a region must name the same storage as the value it "
                        "replaces (write through the carried tensor)",
                    )
                continue
            e = self.expr(value)
            if e.text != target:
                pending.append((target, e.text))
        if len(pending) > 1:
            temps = []
            for target, text in pending:
                tmp = self.namer.fresh(f"{target}_next")
                self.out.add(f"const auto {tmp} = {text};")
                temps.append((target, tmp))
            pending = temps
        for target, text in pending:
            self.out.add(f"{target} = {text};")

    def emit_for(self, op: scf.ForOp) -> None:
        lb, ub, step = self.expr(op.lb), self.expr(op.ub), self.expr(op.step)
        body = op.body.block
        iv = body.args[0]
        iv_name = self.name_for(iv, "i")
        c = ctype(iv.type)
        vars_ = self._carried_vars(op, op.res, body.args[1:])
        for var, init, res, arg in zip(vars_, op.iter_args, op.res, body.args[1:]):
            if var is None:
                self.bind_tensor(arg, init)
                self.bind_tensor(res, init)
            elif isinstance(var, NoValue):
                continue
            else:
                self.out.add(f"{ctype(res.type)} {var} = {self.expr(init).text};")
                self.exprs[arg] = Expr(var, ctype(res.type))
                self.exprs[res] = Expr(var, ctype(res.type))
        step_text = "++" + iv_name if step.const_value == 1 else f"{iv_name} += {step.text}"
        self.out.add(f"for ({c} {iv_name} = {lb.text}; {iv_name} < {ub.text}; {step_text}) {{")
        self.exprs[iv] = Expr(iv_name, c)
        self.out.indent()
        for inner in body.ops:
            if isinstance(inner, scf.YieldOp):
                self._assign_yield(op, vars_, inner.operands, body.args[1:])
            else:
                self.emit_op(inner)
        self.out.dedent()
        self.out.add("}")

    def emit_if(self, op: scf.IfOp) -> None:
        cond = self.expr(op.cond)
        vars_ = self._carried_vars(op, op.output)
        for var, res in zip(vars_, op.output):
            if isinstance(var, NoValue):
                continue
            elif var is not None:
                self.out.add(f"{ctype(res.type)} {var}{{}};")
                self.exprs[res] = Expr(var, ctype(res.type))
        # Tensor results: both branches must yield the same storage; bind to the then-branch's.
        self.out.add(f"if ({cond.text}) {{")
        branches = [op.true_region] + ([op.false_region] if op.false_region.blocks else [])
        for k, region in enumerate(branches):
            if k == 1:
                self.out.add("} else {")
                else_at = len(self.out.lines)
            block = region.block
            self.out.indent()
            for inner in block.ops:
                if isinstance(inner, scf.YieldOp):
                    for var, value, res in zip(vars_, inner.operands, op.output):
                        if var is None:
                            if k == 0:
                                self.bind_tensor(res, value)
                            elif self.tensor_root(value) != self.tensor_root(res):
                                raise op_error(op, "both branches must yield tensors naming the same storage")
                    self._assign_yield(op, vars_, list(inner.operands), list(op.output))
                else:
                    self.emit_op(inner)
            self.out.dedent()
            if k == 1 and len(self.out.lines) == else_at:
                self.out.lines.pop()  # an else branch that prints nothing is not printed
        self.out.add("}")

    def emit_while(self, op: scf.WhileOp) -> None:
        """`scf.while` as `while (true) { before; results = forwarded; if (!cond) break; after; carried = yielded; }`.

        The carried values (the `before` block's arguments) and the values `scf.condition`
        forwards (the loop's results, which are also the `after` block's arguments) are two
        sets of C++ variables. Tensors must keep naming the carried storage (as for scf.for).
        """
        before, after = op.before_region.block, op.after_region.block
        cond_op = before.last_op
        assert isinstance(cond_op, scf.ConditionOp)
        carried = self._carried_vars(op, before.args, before.args)
        for k, (var, init, arg) in enumerate(zip(carried, op.arguments, before.args)):
            if var is None:
                self.bind_tensor(arg, init)
            elif isinstance(var, NoValue):
                continue
            else:
                c = ctype(arg.type)
                self.out.add(f"{c} {var} = {cast_to(self.expr(init), c)};")
                self.exprs[arg] = Expr(var, c)  # type: ignore[arg-type]
        forwarded = self._carried_vars(op, op.res, after.args)
        for k, (var, res, arg) in enumerate(zip(forwarded, op.res, after.args)):
            if var is None or isinstance(var, NoValue):
                continue
            c = ctype(res.type)
            self.out.add(f"{c} {var}{{}};")
            self.exprs[res] = self.exprs[arg] = Expr(var, c)  # type: ignore[arg-type]
        carried_roots = [self.tensor_root(a) for a, v in zip(before.args, carried) if v is None]
        self.out.add("while (true) {")
        self.out.indent()
        for inner in before.ops:
            if inner is not cond_op:
                self.emit_op(inner)
                continue
            for var, value, res, arg in zip(forwarded, cond_op.args, op.res, after.args):
                if var is None:
                    if self.tensor_root(value) not in carried_roots:
                        raise op_error(
                            op, "a tensor forwarded by scf.condition must name the storage of one of the "
                            "loop's carried tensors"
                        )
                    self.bind_tensor(res, value)
                    self.bind_tensor(arg, value)
            self._assign_yield(op, forwarded, list(cond_op.args), list(op.res))
            cond = self.expr(cond_op.condition)
            test = f"!{cond.text}" if cond.text.isidentifier() else f"!({cond.text})"
            self.out.add(f"if ({test}) break;")
        for inner in after.ops:
            if isinstance(inner, scf.YieldOp):
                self._assign_yield(op, carried, list(inner.operands), list(before.args))
            else:
                self.emit_op(inner)
        self.out.dedent()
        self.out.add("}")
