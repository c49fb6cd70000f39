"""`pypto.func` and `pypto.return`: a PyPTO function, its parameter directions, its scalar
write-backs and the bounds of its dynamic dimensions (`pypto.dim_bounds`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    StringAttr,
    SymbolNameConstraint,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation, opt_prop_def, prop_def, region_def, traits_def, var_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    CallableOpInterface,
    HasParent,
    IsTerminator,
    Pure,
    ReturnLike,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects.attributes import (
    INCORE_KINDS,
    FuncKind,
    FuncKindAttr,
    ParamDirection,
    ParamDirectionAttr,
    TaskIdType,
    TensorType,
    TileType,
    is_scalar_type,
)
from pypto_xdsl.dialects.dominance import IsolatedFromAboveAndDominance
from pypto_xdsl.dialects.launch import verify_block_dim
from pypto_xdsl.dialects.verification import pypto_op_definition

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

def format_types(types: Iterable[Attribute]) -> str:
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
        verify_block_dim(self)
        _verify_dim_bounds(self)
        inputs = self.function_type.inputs.data
        if self.body.block.arg_types != inputs:
            raise VerifyException(
                f"entry block argument types {format_types(self.body.block.arg_types)} do not match "
                f"the signature of @{self.sym_name.data} {format_types(inputs)}"
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
                    f"own results, so its results must end with {format_types(want)}, got {format_types(outputs)}"
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
                f"returns {format_types(self.arguments.types)} but @{func.sym_name.data} is declared "
                f"to return {format_types(expected)}"
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



def func_ops(module: Operation) -> Iterable[FuncOp]:
    """The functions directly inside a module, in order."""
    for op in module.regions[0].block.ops:
        if isinstance(op, FuncOp):
            yield op
