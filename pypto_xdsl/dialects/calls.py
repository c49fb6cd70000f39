"""`pypto.call` and `pypto.submit`: a call of a function and an asynchronous task launch,
each verified against its callee's signature (`check_call_signature`)."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from xdsl.dialects.builtin import (
    DenseArrayBase,
    FlatSymbolRefAttrConstr,
    FunctionType,
    IndexType,
    SymbolRefAttr,
    UnitAttr,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import SymbolUserOpInterface
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.analysis.symbols import lookup_symbol
from pypto_xdsl.dialects.attributes import (
    FuncKind,
    ParamDirection,
    SymbolBindingError,
    TaskIdType,
    argument_mismatch,
    substitute_symbols,
)
from pypto_xdsl.dialects.functions import FuncOp
from pypto_xdsl.dialects.launch import (
    parse_cores,
    parse_dumps,
    parse_task_ids,
    print_cores,
    print_dumps,
    print_task_ids,
    verify_launch,
)
from pypto_xdsl.dialects.verification import pypto_op_definition
from pypto_xdsl.parsing import parse_call_tail


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
        verify_launch(op, len(args))
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
        cores = parse_cores(parser)
        dumps = parse_dumps(parser)
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
        print_cores(printer, self.cores)
        print_dumps(printer, self.dumps)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(FunctionType.from_lists(self.args.types, self.res.types))


class SubmitOpSymbolUser(SymbolUserOpInterface):
    def verify(self, op: Operation) -> None:
        assert isinstance(op, SubmitOp)
        verify_launch(op, len(op.args))
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
        cores = parse_cores(parser)
        deps = parse_task_ids(parser, "deps")
        dumps = parse_dumps(parser)
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
        print_cores(printer, self.cores)
        print_task_ids(printer, "deps", self.deps)
        print_dumps(printer, self.dumps)
        if self.allow_early_resolve is not None:
            printer.print_string(" early_resolve")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(FunctionType.from_lists(self.args.types, self.outputs.types))
