"""Region ops of the program: `pypto.incore_scope` (a `pl.at` / `pl.spmd` region run on a core
group), `pypto.manual_scope`, `pypto.split_aiv` (one run per AIV lane) and the `pypto.yield`
that ends a scope."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IndexType, IntegerAttr, StringAttr, UnitAttr
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
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsTerminator,
    NoTerminator,
    Pure,
    RecursiveMemoryEffect,
    ReturnLike,
)
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects.attributes import Level, LevelAttr, SplitMode, SplitModeAttr, TaskIdType
from pypto_xdsl.dialects.functions import FuncOp, format_types
from pypto_xdsl.dialects.launch import (
    parse_cores,
    parse_dumps,
    parse_keyword_values,
    parse_task_ids,
    print_cores,
    print_dumps,
    print_keyword_values,
    print_task_ids,
    verify_launch,
)
from pypto_xdsl.dialects.verification import pypto_op_definition


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
            f"pypto.yield yields {format_types(term.values.types)} but the scope declares "
            f"results {format_types(results)}"
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
        verify_launch(self, None)
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
        cores = parse_cores(parser)
        deps = parse_task_ids(parser, "deps")
        dumps = parse_dumps(parser)
        no_dep = parse_keyword_values(parser, "no_dep")
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
        print_cores(printer, self.cores)
        print_task_ids(printer, "deps", self.deps)
        print_dumps(printer, self.dumps)
        print_keyword_values(printer, "no_dep", self.no_dep)
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
