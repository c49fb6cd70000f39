"""Program-structure ops: functions, calls, returns, incore scopes and task submission."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FlatSymbolRefAttrConstr,
    FunctionType,
    IndexType,
    IntegerAttr,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    UnitAttr,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    AttrSizedResultSegments,
    IRDLOperation,
    lazy_traits_def,
    opt_prop_def,
    opt_result_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    CallableOpInterface,
    HasParent,
    IsTerminator,
    NoTerminator,
    Pure,
    RecursiveMemoryEffect,
    ReturnLike,
    SymbolOpInterface,
    SymbolUserOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.analysis.symbols import lookup_symbol
from pypto_xdsl.dialects.attributes import (
    INCORE_KINDS,
    FuncKind,
    FuncKindAttr,
    Level,
    LevelAttr,
    ParamDirection,
    ParamDirectionAttr,
    SplitMode,
    SplitModeAttr,
    SymbolBindingError,
    TaskIdType,
    TensorType,
    TileType,
    argument_mismatch,
    is_scalar_type,
    substitute_symbols,
)
from pypto_xdsl.dialects.dominance import IsolatedFromAboveAndDominance
from pypto_xdsl.dialects.verification import pypto_op_definition
from pypto_xdsl.parsing import parse_call_tail

BLOCK_DIM_ATTR = "pypto.block_dim"
"""Discardable attribute of a call/submit (or of the incore function it launches): run the
kernel on N cores (SPMD); `pypto.tile.get_block_idx` tells the instances apart."""


def _verify_block_dim(op: Operation) -> None:
    attr = op.attributes.get(BLOCK_DIM_ATTR)
    if attr is not None and (not isinstance(attr, IntegerAttr) or attr.value.data < 1):
        raise VerifyException(f"'{BLOCK_DIM_ATTR}' must be a positive integer, got {attr}")


DIM_BOUNDS_ATTR = "pypto.dim_bounds"
"""Discardable attribute of a `pypto.func`: `{N = 4096 : i64, ...}`, the largest extent each
named dynamic dimension of its signature takes (`pl.dynamic("N", max=4096)`). Static buffer
sizes (tiles, workspace) are chosen for it; runtimes check the actual extents against it."""


def _verify_dim_bounds(func: FuncOp) -> None:
    attr = func.attributes.get(DIM_BOUNDS_ATTR)
    if attr is None:
        return
    if not isinstance(attr, DictionaryAttr):
        raise VerifyException(f"'{DIM_BOUNDS_ATTR}' must be a dictionary {{symbol = bound}}, got {attr}")
    symbols: set[str] = set()
    for t in (*func.function_type.inputs.data, *func.function_type.outputs.data):
        if isinstance(t, TensorType | TileType):
            symbols.update(t.symbols())
    for name, bound in attr.data.items():
        if name not in symbols:
            raise VerifyException(
                f"'{DIM_BOUNDS_ATTR}' bounds {name}, which is no dimension of the signature of "
                f"@{func.sym_name.data}"
            )
        if not isinstance(bound, IntegerAttr) or bound.value.data < 1:
            raise VerifyException(f"'{DIM_BOUNDS_ATTR}': the bound of {name} must be a positive integer, got {bound}")


def dim_bounds(func: FuncOp) -> dict[str, int]:
    """The bounds `pypto.dim_bounds` declares on `func` (symbol -> largest extent)."""
    attr = func.attributes.get(DIM_BOUNDS_ATTR)
    if not isinstance(attr, DictionaryAttr):
        return {}
    return {k: v.value.data for k, v in attr.data.items() if isinstance(v, IntegerAttr)}
NO_DEP_ATTR = "pypto.no_dep"
"""Discardable attribute of a call/submit: the argument positions (sorted, distinct) that take
no part in task-dependency tracking (PyPTO's `pl.at(no_dep_args=[...])`, outlined)."""


def launch_cores(op: Operation) -> SSAValue | None:
    """The core count a call/submit/incore scope reads at run time (`cores(%n)`), if any."""
    cores = getattr(op, "cores", None)
    if cores is None or len(cores) == 0:
        return None
    return cores[0]


def launch_block_dim(call: Operation, callee: FuncOp | None) -> int:
    """How many cores a call/submit (or an incore scope, with no callee) launches its callee
    on: the launching op's attribute first, then the callee's.

    Raises ValueError for a launch whose core count is a run-time value (`launch_cores`).
    """
    if (cores := launch_cores(call)) is not None:
        raise ValueError(
            f"{call.name} launches on a core count known only at run time "
            f"(cores(%{cores.name_hint or '?'}))"
        )
    for holder in (call, callee):
        if holder is None:
            continue
        attr = holder.attributes.get(BLOCK_DIM_ATTR)
        if isinstance(attr, IntegerAttr):
            return attr.value.data
    return 1


def _verify_launch(op: Operation, n_args: int | None) -> None:
    """Block dim (static attribute or `cores(%n)` operand, not both) and the no-dep slots."""
    _verify_block_dim(op)
    if launch_cores(op) is not None and BLOCK_DIM_ATTR in op.attributes:
        raise VerifyException(
            f"the core count is given twice: '{BLOCK_DIM_ATTR}' and a cores(...) operand"
        )
    no_dep = op.attributes.get(NO_DEP_ATTR)
    if no_dep is None:
        return
    values = _dense_i64(no_dep)
    if values is None:
        raise VerifyException(f"'{NO_DEP_ATTR}' must be an array<i64: ...> of argument positions")
    if list(values) != sorted(set(values)) or (values and values[0] < 0):
        raise VerifyException(f"'{NO_DEP_ATTR}' must list distinct argument positions in ascending order")
    if n_args is not None and values and values[-1] >= n_args:
        raise VerifyException(
            f"'{NO_DEP_ATTR}' names argument #{values[-1]}, but there are {n_args} arguments"
        )


def _dense_i64(attr: Attribute) -> tuple[int, ...] | None:
    if isinstance(attr, DenseArrayBase) and attr.elt_type == i64:
        return tuple(attr.get_values())  # type: ignore[arg-type]
    return None


def no_dep_positions(op: Operation) -> tuple[int, ...]:
    """The argument positions of a call/submit marked no-dep (`NO_DEP_ATTR`)."""
    attr = op.attributes.get(NO_DEP_ATTR)
    return (_dense_i64(attr) or ()) if attr is not None else ()


# --------------------------------------------------------------------------- pypto.func


def _types(types: Iterable[Attribute]) -> str:
    return "(" + ", ".join(str(t) for t in types) + ")"


class FuncOpCallableInterface(CallableOpInterface):
    @classmethod
    def get_callable_region(cls, op: Operation) -> Region:
        assert isinstance(op, FuncOp)
        return op.body

    @classmethod
    def get_argument_types(cls, op: Operation) -> tuple[Attribute, ...]:
        assert isinstance(op, FuncOp)
        return op.function_type.inputs.data

    @classmethod
    def get_result_types(cls, op: Operation) -> tuple[Attribute, ...]:
        assert isinstance(op, FuncOp)
        return op.function_type.outputs.data


_DIRECTIONS = tuple(d.value for d in ParamDirection)


@pypto_op_definition
class FuncOp(IRDLOperation):
    """A PyPTO function.

    pypto.func [kind] @name([in|out|inout] %arg: T, ...) [-> (R, ...)] [attributes {...}] {
      ...
    }

    Tensors are storage: an `out`/`inout` tensor parameter is written through. A scalar
    `out`/`inout` parameter is the caller's variable: the function returns its final value
    after its own results (`scalar_writebacks`), and the caller rebinds the variable to it.
    """

    name = "pypto.func"

    body = region_def("single_block")
    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    kind = prop_def(FuncKindAttr, default_value=FuncKindAttr(FuncKind.OPAQUE))
    arg_dirs = opt_prop_def(ArrayAttr[ParamDirectionAttr])

    traits = traits_def(IsolatedFromAboveAndDominance(), SymbolOpInterface(), FuncOpCallableInterface())

    def __init__(
        self,
        sym_name: str,
        input_types: Sequence[Attribute],
        output_types: Sequence[Attribute],
        kind: FuncKind = FuncKind.OPAQUE,
        directions: Sequence[ParamDirection] | None = None,
        body: Region | None = None,
    ):
        if body is None:
            body = Region(Block(arg_types=input_types))
        properties: dict[str, Attribute | None] = {
            "sym_name": StringAttr(sym_name),
            "function_type": FunctionType.from_lists(input_types, output_types),
            "kind": FuncKindAttr(kind),
        }
        if directions is not None and any(d != ParamDirection.IN for d in directions):
            properties["arg_dirs"] = ArrayAttr(ParamDirectionAttr(d) for d in directions)
        super().__init__(properties=properties, regions=[body])

    # ---- accessors

    @property
    def func_kind(self) -> FuncKind:
        return self.kind.data

    @property
    def is_incore(self) -> bool:
        return self.func_kind in INCORE_KINDS

    @property
    def directions(self) -> tuple[ParamDirection, ...]:
        if self.arg_dirs is None:
            return (ParamDirection.IN,) * len(self.function_type.inputs)
        return tuple(d.data for d in self.arg_dirs.data)

    def set_directions(self, directions: Sequence[ParamDirection]) -> None:
        if all(d == ParamDirection.IN for d in directions):
            self.arg_dirs = None
        else:
            self.arg_dirs = ArrayAttr(ParamDirectionAttr(d) for d in directions)

    def set_kind(self, kind: FuncKind) -> None:
        self.kind = FuncKindAttr(kind)

    @property
    def args(self) -> tuple[SSAValue, ...]:
        return self.body.block.args

    @property
    def scalar_writebacks(self) -> tuple[int, ...]:
        """The scalar parameters marked `out`/`inout`, in order: the caller's variables.

        A scalar is a value, so a function cannot write through it; it returns the
        parameter's final value instead, after its declared results, and the caller
        rebinds its variable to that result (PyPTO's explicit scalar calling convention).
        """
        return scalar_writebacks(self.function_type.inputs.data, self.directions)

    @property
    def declared_results(self) -> int:
        """How many results are the function's own (the rest are scalar write-backs)."""
        return len(self.function_type.outputs) - len(self.scalar_writebacks)

    def update_function_type(self) -> None:
        """Recompute the signature from the entry block and the return op."""
        ret = self.body.block.last_op
        outputs = ret.operand_types if isinstance(ret, ReturnOp) else ()
        self.function_type = FunctionType.from_lists(self.body.block.arg_types, outputs)

    # ---- verification

    def verify_(self) -> None:
        _verify_block_dim(self)
        _verify_dim_bounds(self)
        inputs = self.function_type.inputs.data
        if self.body.block.arg_types != inputs:
            raise VerifyException(
                f"entry block argument types {_types(self.body.block.arg_types)} do not match "
                f"the signature of @{self.sym_name.data} {_types(inputs)}"
            )
        if self.arg_dirs is not None and len(self.arg_dirs) != len(inputs):
            raise VerifyException(
                f"@{self.sym_name.data} has {len(inputs)} parameters but "
                f"{len(self.arg_dirs)} directions"
            )
        for i, (direction, t) in enumerate(zip(self.directions, inputs)):
            if direction != ParamDirection.IN and isinstance(t, TileType | TaskIdType):
                raise VerifyException(
                    f"parameter #{i} of @{self.sym_name.data} is {t} and cannot be "
                    f"'{direction.value}': only tensors and scalars are written through"
                )
        if self.func_kind == FuncKind.GROUP:
            from pypto_xdsl.dialects.cross_core import verify_group

            verify_group(self)
        writebacks = self.scalar_writebacks
        if writebacks:
            outputs = self.function_type.outputs.data
            want = tuple(inputs[i] for i in writebacks)
            if len(outputs) < len(want) or outputs[len(outputs) - len(want) :] != want:
                listed = ", ".join(f"#{i} ({self.directions[i].value} {inputs[i]})" for i in writebacks)
                raise VerifyException(
                    f"@{self.sym_name.data} has scalar out/inout parameter{'s' if len(want) > 1 else ''} "
                    f"{listed}: it returns {'their' if len(want) > 1 else 'its'} final value after its "
                    f"own results, so its results must end with {_types(want)}, got {_types(outputs)}"
                )

    # ---- custom syntax

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        kind = parser.parse_optional_str_enum(FuncKind) or FuncKind.OPAQUE
        sym_name = parser.parse_symbol_name().data
        directions: list[ParamDirection] = []

        def parse_param() -> Parser.Argument:
            keyword = parser.parse_optional_keyword_in(_DIRECTIONS)
            directions.append(ParamDirection(keyword) if keyword else ParamDirection.IN)
            return parser.parse_argument()

        args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parse_param)
        outputs: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            if parser.parse_optional_punctuation("(") is not None:
                if parser.parse_optional_punctuation(")") is None:
                    outputs = parser.parse_comma_separated_list(
                        parser.Delimiter.NONE, parser.parse_type
                    )
                    parser.parse_punctuation(")")
            else:
                outputs = [parser.parse_type()]
        attributes = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region(args)
        op = cls(sym_name, [a.type for a in args], outputs, kind, directions, body)
        if attributes is not None:
            op.attributes |= attributes.data
        return op

    def print(self, printer: Printer) -> None:
        if self.func_kind != FuncKind.OPAQUE:
            printer.print_string(f" {self.func_kind.value}")
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)

        def print_param(item: tuple[SSAValue, ParamDirection]) -> None:
            arg, direction = item
            if direction != ParamDirection.IN:
                printer.print_string(f"{direction.value} ")
            printer.print_block_argument(arg)  # type: ignore[arg-type]

        with printer.in_parens():
            printer.print_list(zip(self.body.block.args, self.directions), print_param)
        outputs = self.function_type.outputs.data
        if outputs:
            printer.print_string(" -> ")
            if len(outputs) == 1 and not isinstance(outputs[0], FunctionType):
                printer.print_attribute(outputs[0])
            else:
                with printer.in_parens():
                    printer.print_list(outputs, printer.print_attribute)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


@pypto_op_definition
class ReturnOp(IRDLOperation):
    """Terminator of `pypto.func`: the function's results."""

    name = "pypto.return"
    arguments = var_operand_def()
    traits = traits_def(HasParent(FuncOp), IsTerminator(), ReturnLike(), Pure())
    assembly_format = "attr-dict ($arguments^ `:` type($arguments))?"

    def __init__(self, *values: SSAValue | Operation):
        super().__init__(operands=[values])

    def verify_(self) -> None:
        func = self.parent_op()
        if not isinstance(func, FuncOp):
            return  # detached: HasParent reports a wrong parent
        expected = func.function_type.outputs.data
        if self.arguments.types != expected:
            raise VerifyException(
                f"returns {_types(self.arguments.types)} but @{func.sym_name.data} is declared "
                f"to return {_types(expected)}"
            )


def scalar_writebacks(
    inputs: Sequence[Attribute], directions: Sequence[ParamDirection]
) -> tuple[int, ...]:
    """Indices of the scalar parameters marked `out`/`inout` (see `FuncOp.scalar_writebacks`)."""
    return tuple(
        i
        for i, (t, d) in enumerate(zip(inputs, directions))
        if d != ParamDirection.IN and is_scalar_type(t)
    )


# --------------------------------------------------------------------------- call/submit


def check_call_signature(
    op: Operation,
    callee_name: str,
    args: Sequence[SSAValue],
    results: Sequence[Attribute],
    *,
    allow_omitted_outputs: bool = False,
) -> FuncOp:
    """Verify a call-like op against its callee; return the callee.

    Symbols in the callee's parameter types are bound from the actual argument types
    (consistently across parameters, except for inline callees whose parameters may bind a
    shared symbol per site) and substituted into its result types.
    """
    callee = lookup_symbol(op, callee_name)
    if callee is None:
        raise VerifyException(f"'@{callee_name}' does not refer to a function in this module")
    if not isinstance(callee, FuncOp):
        raise VerifyException(f"'@{callee_name}' refers to {callee.name}, not a pypto.func")
    formals = callee.function_type.inputs.data
    if tuple(a.type for a in args) == formals and tuple(results) == callee.function_type.outputs.data:
        return callee  # the common case: types match exactly, no symbols to bind
    too_few = len(args) < len(formals)
    if len(args) > len(formals) or (too_few and not allow_omitted_outputs):
        raise VerifyException(
            f"@{callee_name} takes {len(formals)} arguments, got {len(args)}"
        )
    if too_few and any(d != ParamDirection.OUT for d in callee.directions[len(args):]):
        raise VerifyException(
            f"@{callee_name} takes {len(formals)} arguments, got {len(args)}; only trailing "
            f"'out' parameters may be omitted"
        )
    strict = callee.func_kind != FuncKind.INLINE
    binding: dict[str, int | str | None] = {}
    for i, (arg, formal) in enumerate(zip(args, formals)):
        actual = arg.type
        try:
            mismatch = argument_mismatch(formal, actual, binding, strict)
        except SymbolBindingError as e:
            raise VerifyException(
                f"argument #{i} of the call to @{callee_name}: {e} ({actual} passed for {formal})"
            ) from e
        if mismatch == "type":
            raise VerifyException(
                f"argument #{i} of the call to @{callee_name} has type {actual}, expected {formal}"
            )
        if mismatch is not None:
            raise VerifyException(
                f"argument #{i} of the call to @{callee_name} has type {actual}, "
                f"which does not match parameter type {formal} ({mismatch} differs)"
            )
    expected = [substitute_symbols(t, binding) for t in callee.function_type.outputs.data]
    if len(expected) != len(results):
        raise VerifyException(
            f"@{callee_name} returns {len(expected)} values, but the call has "
            f"{len(results)} results"
        )
    for i, (got, want) in enumerate(zip(results, expected)):
        if got != want:
            raise VerifyException(
                f"result #{i} of the call to @{callee_name} has type {got}, expected {want}"
            )
    return callee


class CallOpSymbolUser(SymbolUserOpInterface):
    def verify(self, op: Operation) -> None:
        assert isinstance(op, CallOp)
        args = op.arguments_fast()
        _verify_launch(op, len(args))
        check_call_signature(op, op.callee.string_value(), args, op.result_types)


@pypto_op_definition
class CallOp(IRDLOperation):
    """A direct call: `%r = pypto.call @f(%a, %b) [cores(%n)] [dumps(%a : T)] : (A, B) -> R`.

    `cores(%n)` launches an incore callee on `%n` cores (a count known at run time; a static
    count is the `pypto.block_dim` attribute).
    """

    name = "pypto.call"
    callee = prop_def(FlatSymbolRefAttrConstr)
    args = var_operand_def()
    dumps = var_operand_def()
    cores = var_operand_def(IndexType)
    res = var_result_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(CallOpSymbolUser())

    def __init__(
        self,
        callee: str | SymbolRefAttr,
        args: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        dumps: Sequence[SSAValue | Operation] = (),
        cores: SSAValue | Operation | None = None,
    ):
        if isinstance(callee, str):
            callee = SymbolRefAttr(callee)
        super().__init__(
            operands=[args, dumps, [cores] if cores is not None else []],
            result_types=[result_types],
            properties={"callee": callee},
        )

    def arguments_fast(self) -> Sequence[SSAValue]:
        """`args`, skipping the accessor's segment-size decoding for a call the parser built
        without dumps (it shares one segment-sizes attribute per argument count)."""
        if self.properties.get("operandSegmentSizes") is _segments(len(self.operands), 0, 0):
            return self.operands
        return self.args

    # Hand-written rather than declarative: calls dominate large programs, and this parses
    # about twice as fast as the equivalent assembly format.
    @classmethod
    def parse(cls, parser: Parser) -> CallOp:
        if (fast := parse_call_tail(parser)) is not None:
            name, args, outputs = fast
            return cls.create(
                operands=args,
                result_types=outputs,
                properties={"callee": _symbol_ref(name), "operandSegmentSizes": _segments(len(args), 0, 0)},
            )
        callee = parser.parse_symbol_name()
        unresolved = parser.parse_op_args_list()
        cores = _parse_cores(parser)
        dumps = _parse_dumps(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        inputs, outputs = _parse_signature(parser)
        if len(inputs) != len(unresolved):
            parser.raise_error(
                f"pypto.call has {len(unresolved)} arguments but {len(inputs)} types",
                pos,
                parser.pos,
            )
        args = [parser.resolve_operand(u, t) for u, t in zip(unresolved, inputs)]
        op = cls.create(
            operands=[*args, *dumps, *cores],
            result_types=outputs,
            properties={
                "callee": _symbol_ref(callee.data),
                "operandSegmentSizes": _segments(len(args), len(dumps), len(cores)),
            },
        )
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.callee.string_value())
        printer.print_operands(self.args)
        _print_cores(printer, self.cores)
        _print_dumps(printer, self.dumps)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(FunctionType.from_lists(self.args.types, self.res.types))


class SubmitOpSymbolUser(SymbolUserOpInterface):
    def verify(self, op: Operation) -> None:
        assert isinstance(op, SubmitOp)
        _verify_launch(op, len(op.args))
        check_call_signature(
            op, op.callee.string_value(), op.args, op.outputs.types, allow_omitted_outputs=True
        )


def _parse_signature(parser: Parser) -> tuple[list[Attribute], list[Attribute]]:
    """`(A, B) -> R` or `(A, B) -> (R, S)`: a function type's parts, without building one."""
    inputs = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
    parser.parse_punctuation("->")
    outputs = parser.parse_optional_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
    return inputs, [parser.parse_type()] if outputs is None else outputs


# Parsing builds these per call op; a program has few distinct callees and segment sizes.
@functools.lru_cache(maxsize=4096)
def _symbol_ref(name: str) -> SymbolRefAttr:
    return SymbolRefAttr(name)


@functools.lru_cache(maxsize=256)
def _segments(*sizes: int) -> DenseArrayBase:
    return DenseArrayBase.from_list(i32, sizes)


def _parse_task_ids(parser: Parser, keyword: str) -> list[SSAValue]:
    if parser.parse_optional_keyword(keyword) is None:
        return []
    unresolved = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
    return [parser.resolve_operand(u, TaskIdType()) for u in unresolved]


def _parse_cores(parser: Parser) -> list[SSAValue]:
    if parser.parse_optional_keyword("cores") is None:
        return []
    with parser.in_parens():
        value = parser.parse_unresolved_operand()
    return [parser.resolve_operand(value, IndexType())]


def _print_cores(printer: Printer, values: Sequence[SSAValue]) -> None:
    if values:
        printer.print_string(" cores(")
        printer.print_operand(values[0])
        printer.print_string(")")


def _parse_keyword_values(parser: Parser, keyword: str) -> list[SSAValue]:
    """`keyword(%a, %b : A, B)` (dumps, no_dep): values with their types."""
    if parser.parse_optional_keyword(keyword) is None:
        return []
    parser.parse_punctuation("(")
    unresolved = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    if len(types) != len(unresolved):
        parser.raise_error(f"{keyword} lists {len(unresolved)} values but {len(types)} types")
    return [parser.resolve_operand(u, t) for u, t in zip(unresolved, types)]


def _print_keyword_values(printer: Printer, keyword: str, values: Sequence[SSAValue]) -> None:
    if values:
        printer.print_string(f" {keyword}(")
        printer.print_list(values, printer.print_operand)
        printer.print_string(" : ")
        printer.print_list([v.type for v in values], printer.print_attribute)
        printer.print_string(")")


def _parse_dumps(parser: Parser) -> list[SSAValue]:
    return _parse_keyword_values(parser, "dumps")


def _print_task_ids(printer: Printer, keyword: str, values: Sequence[SSAValue]) -> None:
    if values:
        printer.print_string(f" {keyword}(")
        printer.print_list(values, printer.print_operand)
        printer.print_string(")")


def _print_dumps(printer: Printer, values: Sequence[SSAValue]) -> None:
    _print_keyword_values(printer, "dumps", values)


@pypto_op_definition
class SubmitOp(IRDLOperation):
    """Asynchronous task launch of a function.

    %r, %tid = pypto.submit @k(%a) [cores(%n)] [deps(%t0, ...)] [dumps(%a : T)]
               [early_resolve] : (A) -> (R)
    The last result is the launched task's `!pypto.task_id`. Trailing `out` parameters of
    the callee may be omitted (the runtime allocates them). `early_resolve` (PyPTO's
    `allow_early_resolve=True`) lets the runtime resolve the task id before the task ends.
    """

    name = "pypto.submit"
    callee = prop_def(FlatSymbolRefAttrConstr)
    args = var_operand_def()
    deps = var_operand_def(TaskIdType)
    dumps = var_operand_def()
    cores = var_operand_def(IndexType)
    outputs = var_result_def()
    task_id = result_def(TaskIdType)
    allow_early_resolve = opt_prop_def(UnitAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(SubmitOpSymbolUser())

    def __init__(
        self,
        callee: str | SymbolRefAttr,
        args: Sequence[SSAValue | Operation],
        output_types: Sequence[Attribute],
        deps: Sequence[SSAValue | Operation] = (),
        dumps: Sequence[SSAValue | Operation] = (),
        cores: SSAValue | Operation | None = None,
        allow_early_resolve: bool = False,
    ):
        if isinstance(callee, str):
            callee = SymbolRefAttr(callee)
        super().__init__(
            operands=[args, deps, dumps, [cores] if cores is not None else []],
            result_types=[output_types, TaskIdType()],
            properties={"callee": callee, "allow_early_resolve": UnitAttr() if allow_early_resolve else None},
        )

    @classmethod
    def parse(cls, parser: Parser) -> SubmitOp:
        callee = parser.parse_symbol_name()
        unresolved = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        cores = _parse_cores(parser)
        deps = _parse_task_ids(parser, "deps")
        dumps = _parse_dumps(parser)
        early = parser.parse_optional_keyword("early_resolve") is not None
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        fn_type = parser.parse_function_type()
        if len(fn_type.inputs) != len(unresolved):
            parser.raise_error(
                f"pypto.submit has {len(unresolved)} arguments but {len(fn_type.inputs)} types"
            )
        args = [parser.resolve_operand(u, t) for u, t in zip(unresolved, fn_type.inputs)]
        op = cls(callee.data, args, fn_type.outputs.data, deps, dumps, cores[0] if cores else None, early)
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.callee.string_value())
        printer.print_operands(self.args)
        _print_cores(printer, self.cores)
        _print_task_ids(printer, "deps", self.deps)
        _print_dumps(printer, self.dumps)
        if self.allow_early_resolve is not None:
            printer.print_string(" early_resolve")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(FunctionType.from_lists(self.args.types, self.outputs.types))


# --------------------------------------------------------------------------- incore scope


@pypto_op_definition
class YieldOp(IRDLOperation):
    """Terminator of `pypto.incore_scope` and `pypto.manual_scope`: the values used after it."""

    name = "pypto.yield"
    values = var_operand_def()
    traits = lazy_traits_def(
        lambda: (HasParent(IncoreScopeOp, ManualScopeOp), IsTerminator(), ReturnLike(), Pure())
    )
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue | Operation):
        super().__init__(operands=[values])


def _verify_yield(op: Operation, region: Region, results: Sequence[Attribute]) -> None:
    term = region.block.last_op
    if not isinstance(term, YieldOp):
        raise VerifyException(f"{op.name} body must end with pypto.yield")
    if term.values.types != tuple(results):
        raise VerifyException(
            f"pypto.yield yields {_types(term.values.types)} but the scope declares "
            f"results {_types(results)}"
        )
    if region.block.args:
        raise VerifyException(f"{op.name} body takes no block arguments")


@pypto_op_definition
class IncoreScopeOp(IRDLOperation):
    """`with pl.at(level=CORE_GROUP, ...)`: a region run once on a core group.

    %r:2, %tid = pypto.incore_scope [name("k")] [level(core_group)] [split(up_down)]
                 [slots(2)] [early_resolve] [cores(%n)] [deps(%t0)] [dumps(%x : T)]
                 [no_dep(%w : W)] [-> (A, B)] [task_id] { ...
      pypto.yield %a, %b : A, B
    }
    Not isolated from above: the body reads values defined before the scope.

    * `cores(%n)`: an SPMD scope on `%n` cores, a count known at run time (a static count
      is the `pypto.block_dim` attribute);
    * `no_dep(...)`: captured values the launch's dependency tracking ignores (PyPTO's
      `no_dep_args=`), like `dumps(...)` operands of the scope, not uses of its body;
    * `early_resolve`: PyPTO's `allow_early_resolve=True` (the launch becomes a submit).
    """

    name = "pypto.incore_scope"
    deps = var_operand_def(TaskIdType)
    dumps = var_operand_def()
    no_dep = var_operand_def()
    cores = var_operand_def(IndexType)
    outputs = var_result_def()
    task_id = opt_result_def(TaskIdType)
    name_hint = opt_prop_def(StringAttr)
    level = prop_def(LevelAttr, default_value=LevelAttr(Level.CORE_GROUP))
    split = opt_prop_def(SplitModeAttr)
    slot_num = opt_prop_def(IntegerAttr)
    allow_early_resolve = opt_prop_def(UnitAttr)
    body = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True), AttrSizedResultSegments(as_property=True))
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self,
        output_types: Sequence[Attribute],
        body: Region,
        *,
        name_hint: str | None = None,
        deps: Sequence[SSAValue | Operation] = (),
        dumps: Sequence[SSAValue | Operation] = (),
        with_task_id: bool = False,
        level: Level = Level.CORE_GROUP,
        split: SplitMode | None = None,
        slot_num: int | None = None,
        no_dep: Sequence[SSAValue | Operation] = (),
        cores: SSAValue | Operation | None = None,
        allow_early_resolve: bool = False,
    ):
        super().__init__(
            operands=[deps, dumps, no_dep, [cores] if cores is not None else []],
            result_types=[output_types, [TaskIdType()] if with_task_id else []],
            regions=[body],
            properties={
                "name_hint": StringAttr(name_hint) if name_hint is not None else None,
                "level": LevelAttr(level),
                "split": SplitModeAttr(split) if split is not None else None,
                "slot_num": IntegerAttr(slot_num, 64) if slot_num is not None else None,
                "allow_early_resolve": UnitAttr() if allow_early_resolve else None,
            },
        )

    @property
    def yield_op(self) -> YieldOp:
        term = self.body.block.last_op
        assert isinstance(term, YieldOp)
        return term

    def verify_(self) -> None:
        _verify_launch(self, None)
        _verify_yield(self, self.body, self.outputs.types)
        parent = self.parent_op()
        while parent is not None:
            if isinstance(parent, IncoreScopeOp):
                raise VerifyException(
                    "pypto.incore_scope cannot be nested inside another pypto.incore_scope"
                )
            if isinstance(parent, FuncOp):
                if parent.is_incore:
                    raise VerifyException(
                        f"pypto.incore_scope inside {parent.func_kind.value} function "
                        f"@{parent.sym_name.data}: the function already runs on a core"
                    )
                break
            parent = parent.parent_op()

    @classmethod
    def parse(cls, parser: Parser) -> IncoreScopeOp:
        name_hint = level = split = slot_num = None
        if parser.parse_optional_keyword("name") is not None:
            with parser.in_parens():
                name_hint = parser.parse_str_literal()
        if parser.parse_optional_keyword("level") is not None:
            with parser.in_parens():
                level = parser.parse_str_enum(Level)
        if parser.parse_optional_keyword("split") is not None:
            with parser.in_parens():
                split = parser.parse_str_enum(SplitMode)
        if parser.parse_optional_keyword("slots") is not None:
            with parser.in_parens():
                slot_num = parser.parse_integer(allow_boolean=False, allow_negative=False)
        early = parser.parse_optional_keyword("early_resolve") is not None
        cores = _parse_cores(parser)
        deps = _parse_task_ids(parser, "deps")
        dumps = _parse_dumps(parser)
        no_dep = _parse_keyword_values(parser, "no_dep")
        output_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            output_types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        with_task_id = parser.parse_optional_keyword("task_id") is not None
        attributes = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        op = cls(
            output_types,
            body,
            name_hint=name_hint,
            deps=deps,
            dumps=dumps,
            with_task_id=with_task_id,
            level=level or Level.CORE_GROUP,
            split=split,
            slot_num=slot_num,
            no_dep=no_dep,
            cores=cores[0] if cores else None,
            allow_early_resolve=early,
        )
        if attributes is not None:
            op.attributes |= attributes.data
        return op

    def print(self, printer: Printer) -> None:
        if self.name_hint is not None:
            printer.print_string(" name(")
            printer.print_string_literal(self.name_hint.data)
            printer.print_string(")")
        if self.level.data != Level.CORE_GROUP:
            printer.print_string(f" level({self.level.data.value})")
        if self.split is not None:
            printer.print_string(f" split({self.split.data.value})")
        if self.slot_num is not None:
            printer.print_string(f" slots({self.slot_num.value.data})")
        if self.allow_early_resolve is not None:
            printer.print_string(" early_resolve")
        _print_cores(printer, self.cores)
        _print_task_ids(printer, "deps", self.deps)
        _print_dumps(printer, self.dumps)
        _print_keyword_values(printer, "no_dep", self.no_dep)
        if self.outputs:
            printer.print_string(" -> (")
            printer.print_list(self.outputs.types, printer.print_attribute)
            printer.print_string(")")
        if self.task_id is not None:
            printer.print_string(" task_id")
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)


@pypto_op_definition
class ManualScopeOp(IRDLOperation):
    """`with pl.manual_scope():` a region whose tasks are ordered only by their explicit
    `deps` (PyPTO's manual runtime scope).

    %r = pypto.manual_scope [-> (A)] { ...
      pypto.yield %a : A
    }
    Run once, in place; it launches nothing itself. Scopes and calls inside it are
    outlined and inlined like anywhere else, and the region stays in its function.
    """

    name = "pypto.manual_scope"
    outputs = var_result_def()
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(self, output_types: Sequence[Attribute], body: Region):
        super().__init__(result_types=[output_types], regions=[body])

    def verify_(self) -> None:
        _verify_yield(self, self.body, self.outputs.types)

    @classmethod
    def parse(cls, parser: Parser) -> ManualScopeOp:
        output_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            output_types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        attributes = parser.parse_optional_attr_dict_with_keyword()
        op = cls(output_types, parser.parse_region())
        if attributes is not None:
            op.attributes |= attributes.data
        return op

    def print(self, printer: Printer) -> None:
        if self.outputs:
            printer.print_string(" -> (")
            printer.print_list(self.outputs.types, printer.print_attribute)
            printer.print_string(")")
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)


SPLIT_AIV_EXCLUSIVE_MESSAGE = (
    "scope combines a function-level split ({split}, pl.split(...)) with pl.split_aiv "
    "region(s); these are mutually exclusive AIV-split mechanisms. Remove the scope's "
    "split(...) or the pypto.split_aiv region(s): the function-level split would otherwise "
    "be silently dropped (the per-region split governs the lanes). To pin a custom "
    "cross-core slot count, use slots(N), which is orthogonal to splitting."
)


@pypto_op_definition
class SplitAivOp(IRDLOperation):
    """`for aiv_id in pl.split_aiv(2, mode=M)`: a region run once per AIV lane.

    pypto.split_aiv up_down (%aiv_id : index) { ... }
    The block argument is the lane index (0 or 1). The region lives inside a
    `pypto.incore_scope` (or an InCore function, after outlining) and is kept as is by
    outline-incore-scopes. It cannot be combined with a `split(...)` on its scope.
    """

    name = "pypto.split_aiv"
    mode = prop_def(SplitModeAttr)
    body = region_def("single_block")
    traits = traits_def(NoTerminator(), RecursiveMemoryEffect())

    def __init__(self, mode: SplitMode, body: Region | None = None):
        if body is None:
            body = Region(Block(arg_types=[IndexType()]))
        super().__init__(properties={"mode": SplitModeAttr(mode)}, regions=[body])

    @property
    def lane(self) -> SSAValue:
        return self.body.block.args[0]

    def verify_(self) -> None:
        args = self.body.block.args
        if len(args) != 1 or not isinstance(args[0].type, IndexType):
            raise VerifyException("pypto.split_aiv body takes exactly one 'index' argument (the lane id)")
        parent = self.parent_op()
        while parent is not None:
            if isinstance(parent, IncoreScopeOp):
                if parent.split is not None:
                    raise VerifyException(
                        SPLIT_AIV_EXCLUSIVE_MESSAGE.format(split=parent.split.data.value)
                    )
                return
            if isinstance(parent, FuncOp):
                if parent.is_incore:
                    return
                break
            parent = parent.parent_op()
        raise VerifyException(
            "pypto.split_aiv must be inside a pypto.incore_scope or an InCore function"
        )

    @classmethod
    def parse(cls, parser: Parser) -> SplitAivOp:
        mode = parser.parse_str_enum(SplitMode)
        parser.parse_punctuation("(")
        arg = parser.parse_argument()
        parser.parse_punctuation(")")
        attributes = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region([arg])
        op = cls(mode, body)
        if attributes is not None:
            op.attributes |= attributes.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.mode.data.value} (")
        printer.print_block_argument(self.body.block.args[0])
        printer.print_string(")")
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


def func_ops(module: Operation) -> Iterable[FuncOp]:
    """The functions directly inside a module, in order."""
    for op in module.regions[0].block.ops:
        if isinstance(op, FuncOp):
            yield op
