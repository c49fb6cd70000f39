"""`inline-functions`: splice every `pypto.func inline` at its call sites, then drop it.

Algorithm (see docs/passes/inline-functions.md):

1. One walk builds the inline call graph (`pypto_xdsl.analysis.call_graph`). Without inline
   functions the pass stops after scanning the module's top-level ops.
2. Checks that run before anything changes: a `pypto.submit` of an inline function, a cycle
   of the inline -> inline graph (`a -> b -> a`, `loop -> loop`), a helper whose types use a
   symbol no parameter binds, a helper value whose name hint is an author-written `a__b`,
   and the arguments of every call site outside inline functions.
3. Each helper reachable from a call site is analysed once, callees first: its fresh-name
   templates, its symbols, and its expanded body (a detached copy in which the calls of other
   helpers whose argument types equal their parameter types are already spliced).
4. Every call site outside inline functions, in module order, is expanded: the helper's
   expanded body is cloned before the call with its block arguments mapped to the actual
   operands, the call's results are replaced by the cloned `pypto.return` operands and the
   call is erased. Types are specialised per site: the symbols of the helper's parameter
   types are bound from the actual argument types and every cloned op's result type is
   substituted and re-inferred (loop carries, branch and scope results follow their
   operands). Dump selections of the call follow into the spliced body. Helper calls left in
   the clone (those whose types needed specialising) are expanded next, each with its own
   argument check against its now concrete operands.
5. The inline functions are erased.

SSA makes the seed's rebinding machinery unnecessary: a callee "rebinding" a parameter only
defines a new value, so the caller's value is never changed; writes through tensors reach
the caller's storage because the cloned write ops operate on the caller's values.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import builtin, scf
from xdsl.dialects.builtin import DenseArrayBase, i32
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException, VerifyException

from pypto_xdsl.analysis.call_graph import InlineCallGraph, build_inline_call_graph
from pypto_xdsl.analysis.symbols import invalidate
from pypto_xdsl.dialects.attributes import (
    Dim,
    FuncKind,
    SymbolBindingError,
    TensorType,
    TileType,
    argument_mismatch,
    bind_shape,
    format_dim,
    substitute_symbols,
)
from pypto_xdsl.dialects.program import (
    CallOp,
    FuncOp,
    IncoreScopeOp,
    ReturnOp,
    SubmitOp,
    YieldOp,
    func_ops,
)
from pypto_xdsl.dialects.traits import InferResultTypes, aliased_operand
from pypto_xdsl.utils import paused_gc

# --------------------------------------------------------------------------- names

_KNOWN_ROLES = frozenset({"ssa", "iter", "rv", "phi", "tile", "tmp", "out", "store", "idx"})
_VERSION = re.compile(r"v(\d+)")


@dataclass(frozen=True)
class ParsedName:
    """An auto-name `<base>__<qualifier>_<role>_v<version>` (qualifier/role/version optional)."""

    base: str
    qualifier: str = ""
    role: str | None = None
    version: int | None = None

    def build(self, qualifier: str) -> str:
        parts = [p for p in (qualifier, self.qualifier) if p]
        if self.role is not None:
            parts.append(self.role)
        if self.version is not None:
            parts.append(f"v{self.version}")
        return f"{self.base}__{'_'.join(parts)}" if parts else self.base


def parse_auto_name(name: str) -> ParsedName | None:
    """Parse a name containing `__`; None when it is not a name without `__`."""
    boundary = name.find("__")
    if boundary < 0:
        return None
    base, suffix = name[:boundary], name[boundary + 2 :]
    version: int | None = None
    role: str | None = None
    head, sep, last = suffix.rpartition("_")
    if (m := _VERSION.fullmatch(last)) is not None:
        version = int(m.group(1))
        suffix = head if sep else ""
    head, sep, last = suffix.rpartition("_")
    if last in _KNOWN_ROLES:
        role = last
        suffix = head if sep else ""
    return ParsedName(base, suffix, role, version)


class ReservedNameError(ValueError):
    """An author-written name uses the reserved `__` delimiter."""


def fresh_name_parts(name: str) -> tuple[str, str]:
    """(prefix, suffix) such that the clone of `name` at site N is `prefix + N + suffix`.

    * `y` -> `y_inline<N>`;
    * a name ending in `_` has that `_` trimmed before joining: `_` -> `_inline<N>`,
      `x_` -> `x_inline<N>` (joining never creates the reserved `__`);
    * an auto-name with a parsed role or version gets `inline<N>` as its first qualifier:
      `t__inline_arg_v0` -> `t__inline<N>_inline_arg_v0`;
    * any other name containing `__` (an author-written `a__b`) raises ReservedNameError.
    """
    parsed = parse_auto_name(name)
    if parsed is not None:
        if parsed.role is None and parsed.version is None:
            raise ReservedNameError(
                f"name '{name}' contains the reserved auto-name delimiter '__' but is not an "
                f"auto-name '<base>__<qualifier>_<role>_v<N>'; rename it"
            )
        marker = "\x00"
        built = parsed.build(f"inline{marker}")
        prefix, _, suffix = built.partition(marker)
        return prefix, suffix
    if name.endswith("_"):
        name = name[:-1]
    return f"{name}_inline", ""


def fresh_name(name: str, counter: int) -> str:
    prefix, suffix = fresh_name_parts(name)
    return f"{prefix}{counter}{suffix}"


# --------------------------------------------------------------------------- analysis

_AMBIGUOUS = "\x00ambiguous:"


def _type_symbols(t: Attribute) -> set[str]:
    if isinstance(t, TensorType | TileType):
        return t.symbols()
    return set()


def _describe_value(v: SSAValue) -> str:
    if v.name_hint:
        return f"%{v.name_hint}"
    return f"block argument #{v.index}" if isinstance(v, BlockArgument) else "a value"


@dataclass
class HelperPlan:
    """What the pass learns once about an inline helper before cloning it anywhere.

    `block` is the helper's *expanded* body: a detached copy in which every call of another
    helper whose argument types equal that helper's parameter types has been spliced (from
    that helper's own expanded body, so each helper is expanded once, callees first). Calls
    whose types need specialising stay calls and are spliced at each final call site, where
    their operand types are concrete.
    """

    func: FuncOp
    block: Block
    body_ops: list[Operation]
    ret: ReturnOp
    renames: dict[SSAValue, tuple[str, str, int]]
    """value of `block` -> (prefix, suffix, k): its fresh name at a site numbered N is
    `prefix + (N + k) + suffix` (k = 0 for the helper's own values, k > 0 for the values of
    the k-th spliced nested site in pre-order)."""
    sites: int
    """1 + the number of nested sites spliced into `block` (numbers a splice consumes)."""
    calls_helpers: bool
    """`block` still contains calls of helpers (to splice at each final site)."""
    param_names: list[str]
    bound_symbols: frozenset[str] = field(default_factory=frozenset)
    """The symbols the parameter types bind (every symbol the helper uses)."""
    param_symbols: list[tuple[str, ...]] = field(default_factory=list)
    """The symbols of each parameter type, in order."""

    @property
    def name(self) -> str:
        return self.func.sym_name.data

    @property
    def params(self) -> tuple[BlockArgument, ...]:
        return self.block.args

    @functools.cached_property
    def returned(self) -> tuple[SSAValue, ...]:
        """The values the expanded body returns (read once, not through the accessor per site)."""
        return tuple(self.ret.arguments)

    @functools.cached_property
    def formals(self) -> tuple[Attribute, ...]:
        return tuple(self.func.function_type.inputs.data)

    @functools.cached_property
    def exact_site(self) -> SiteBinding:
        """The binding of every site whose argument types are the parameter types: each
        symbol stands for itself, nothing to specialise."""
        return SiteBinding({s: s for s in self.bound_symbols}, False, {}, self.formals)


def _callee(op: Operation, inline: dict[str, FuncOp]) -> str | None:
    if isinstance(op, CallOp):
        name = op.callee.root_reference.data
        if name in inline:
            return name
    return None


def analyse_helper(
    func: FuncOp, inline: dict[str, FuncOp], plans: dict[str, HelperPlan] | None = None
) -> HelperPlan:
    """Analyse a helper once: fresh-name templates, symbols, and its expanded body.

    `plans` holds the plans of the helpers it calls (callee-first order); without them no
    nested call is expanded here.
    """
    name = func.sym_name.data
    last = func.body.block.last_op
    if not isinstance(last, ReturnOp):
        raise PassFailedException(f"inline function @{name} does not end with pypto.return")
    templates: dict[SSAValue, tuple[str, str]] = {}
    symbols: set[str] = set()

    def note(v: SSAValue) -> None:
        symbols.update(_type_symbols(v.type))
        if v.name_hint is None:
            return
        try:
            templates[v] = fresh_name_parts(v.name_hint)
        except ReservedNameError as e:
            raise PassFailedException(f"in inline function @{name}: {e}") from e

    for op in func.body.walk():
        if op is func:
            continue
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    note(a)
        for r in op.results:
            note(r)
    param_symbols: set[str] = set()
    for t in func.function_type.inputs.data:
        param_symbols |= _type_symbols(t)
    for t in func.function_type.outputs.data:
        symbols |= _type_symbols(t)
    free = sorted(symbols - param_symbols)
    if free:
        listed = ", ".join(f"'{s}'" for s in free)
        raise PassFailedException(
            f"inline function @{name} uses symbol{'s' if len(free) > 1 else ''} {listed} that "
            f"none of its parameter types binds; inlining would leak {'them' if len(free) > 1 else 'it'} "
            f"into its callers (bind it through a parameter type)"
        )

    # The expanded body: a detached copy with nested exact-typed helper calls spliced.
    block = Block(arg_types=func.body.block.arg_types)
    vm: dict[SSAValue, SSAValue] = dict(zip(func.args, block.args))
    for op in func.body.block.ops:
        block.add_op(op.clone(vm, clone_name_hints=False))
    renames: dict[SSAValue, tuple[str, str, int]] = {
        vm[v]: (prefix, suffix, 0) for v, (prefix, suffix) in templates.items() if v in vm
    }
    sites = 1
    calls_helpers = False
    nested = [op for op in block.walk() if _callee(op, inline) is not None]
    for call in nested:
        assert isinstance(call, CallOp)
        callee = plans.get(call.callee.root_reference.data) if plans is not None else None
        formals = tuple(callee.func.function_type.inputs.data) if callee is not None else ()
        args = call.args
        if callee is None or tuple(a.type for a in args) != formals:
            calls_helpers = True  # specialised at each final site
            continue
        nvm: dict[SSAValue, SSAValue] = dict(zip(callee.params, args))
        new_ops = [
            op.clone(nvm, clone_name_hints=False)
            if op.regions
            else op.clone_without_regions(nvm, clone_name_hints=False)
            for op in callee.body_ops
        ]
        if new_ops:
            Rewriter.insert_op(new_ops, InsertPoint.before(call))
        for v, (prefix, suffix, k) in callee.renames.items():
            if (nv := nvm.get(v)) is not None:
                renames[nv] = (prefix, suffix, sites + k)
        for res, ret in zip(call.results, (nvm.get(v, v) for v in callee.returned)):
            # An unnamed returned value takes the name the call result would have had.
            if ret not in renames and res in renames:
                renames[ret] = renames[res]
            renames.pop(res, None)
            res.replace_all_uses_with(ret)
        dumps = list(call.operands[len(args) :])
        Rewriter.erase_op(call)
        if dumps:
            transfer_dumps(dumps, new_ops)
        calls_helpers = calls_helpers or callee.calls_helpers
        sites += callee.sites
    ops = list(block.ops)
    ret = ops.pop()
    assert isinstance(ret, ReturnOp)
    param_names = [
        f"#{i} (%{a.name_hint})" if a.name_hint else f"#{i}" for i, a in enumerate(func.args)
    ]
    per_param = [tuple(sorted(_type_symbols(t))) for t in func.function_type.inputs.data]
    return HelperPlan(
        func,
        block,
        ops,
        ret,
        renames,
        sites,
        calls_helpers,
        param_names,
        frozenset(param_symbols),
        per_param,
    )


# --------------------------------------------------------------------------- call sites


@dataclass
class SiteBinding:
    substitution: dict[str, Dim | str]
    specialise: bool
    ambiguous: dict[str, str]
    """symbol -> description of its conflicting extents"""
    arg_types: tuple[Attribute, ...] = ()
    """The argument types the binding was computed from."""


def _site_error(call: CallOp, caller: str, callee: str, message: str) -> PassFailedException:
    return PassFailedException(f"inlining the call to @{callee} in @{caller}: {message}")


def bind_site(
    call: CallOp, plan: HelperPlan, caller: str, args: Sequence[SSAValue] | None = None
) -> SiteBinding:
    """Check a call site's arguments against the helper's parameters and bind its symbols."""
    if args is None:
        args = call.arguments_fast()
    formals = plan.formals
    if len(args) == len(formals) and all(a.type is f for a, f in zip(args, formals)):
        return plan.exact_site  # the common case, checked by identity (parsed types are shared)
    callee = plan.name
    if len(args) != len(formals):
        raise _site_error(call, caller, callee, f"@{callee} takes {len(formals)} arguments, got {len(args)}")
    exact = True
    extents: dict[str, list[tuple[Dim, int]]] = {}
    for i, (arg, formal) in enumerate(zip(args, formals)):
        actual = arg.type
        if actual == formal:
            for s in plan.param_symbols[i]:
                extents.setdefault(s, []).append((s, i))
            continue
        exact = False
        local: dict[str, Dim] = {}
        try:
            reason = argument_mismatch(formal, actual, local)
            mismatch = None if reason is None else f"{reason} differs"
        except SymbolBindingError as e:
            mismatch = f"shape differs: {e}"
        if mismatch is not None:
            raise _site_error(
                call,
                caller,
                callee,
                f"argument #{i} has type {actual}, which does not match parameter "
                f"{plan.param_names[i]} of type {formal} ({mismatch})",
            )
        for s, d in local.items():
            extents.setdefault(s, []).append((d, i))
    substitution: dict[str, Dim | str] = {}
    ambiguous: dict[str, str] = {}
    for s, seen in extents.items():
        known = list(dict.fromkeys(d for d, _ in seen if d is not None))
        if len(known) > 1:
            ambiguous[s] = ", ".join(
                f"{format_dim(d)} by parameter {plan.param_names[i]}" for d, i in seen
            )
            substitution[s] = _AMBIGUOUS + s
        else:
            substitution[s] = known[0] if known else None
    return SiteBinding(substitution, not exact, ambiguous, tuple(a.type for a in args))


# --------------------------------------------------------------------------- cloning


class _Expander:
    """Expands call sites; holds the per-run counter and the helper plans."""

    def __init__(
        self,
        graph: InlineCallGraph,
        plans: dict[str, HelperPlan],
        prebound: dict[CallOp, SiteBinding] | None = None,
    ):
        self.graph = graph
        self.plans = plans
        self.prebound = prebound or {}
        self.counter = 0
        self.sites = 0

    # ---- one site

    def expand(self, call: CallOp, caller: str) -> list[CallOp]:
        """Splice one call; return the helper calls the splice created (to expand next)."""
        plan = self.plans[call.callee.root_reference.data]
        # Read the operands now: splicing earlier sites may have replaced them (and refined
        # their types, in which case the binding computed before any change is stale).
        site = self.prebound.pop(call, None)
        if site is not None:
            args = call.operands[: len(site.arg_types)]
            if tuple(a.type for a in args) != site.arg_types:
                site = bind_site(call, plan, caller, args)
        else:
            args = call.arguments_fast()
            site = bind_site(call, plan, caller, args)
        n = self.counter
        self.counter += plan.sites
        self.sites += plan.sites
        vm: dict[SSAValue, SSAValue] = dict(zip(plan.params, args))
        if site.specialise:
            ctx = _SpecContext(self, plan, site, caller)
            new_ops = [ctx.clone(op, vm) for op in plan.body_ops]
        else:
            # Every named value of the body gets its fresh name below, so the clones are
            # made without copying the original hints.
            new_ops = [
                op.clone(vm, clone_name_hints=False)
                if op.regions
                else op.clone_without_regions(vm, clone_name_hints=False)
                for op in plan.body_ops
            ]
        if new_ops:
            Rewriter.insert_op(new_ops, InsertPoint.before(call))
        for orig, (prefix, suffix, k) in plan.renames.items():
            v = vm.get(orig)
            if v is not None:
                v.name_hint = f"{prefix}{n + k}{suffix}"
        rets = [vm.get(v, v) for v in plan.returned]
        refined: list[SSAValue] = []
        for res, new in zip(call.results, rets):
            if res.type != new.type:
                refined.append(new)
            res.replace_all_uses_with(new)
        if refined:
            _propagate_refined_types(refined, self.graph, plan.name, caller)
        dumps = list(call.operands[len(args) :])  # operands are (args..., dumps...)
        Rewriter.erase_op(call)
        if dumps:
            transfer_dumps(dumps, new_ops)
        if not plan.calls_helpers:
            return []
        inline = self.graph.inline
        return [op for top in new_ops for op in top.walk() if _callee(op, inline) is not None]

    def expand_all(self, call: CallOp, caller: str) -> None:
        stack = [call]
        while stack:
            nested = self.expand(stack.pop(), caller)
            stack.extend(reversed(nested))


def _check_no_ambiguous(t: Attribute, op: Operation, ctx: _SpecContext) -> None:
    for s in _type_symbols(t):
        if s.startswith(_AMBIGUOUS):
            sym = s[len(_AMBIGUOUS) :]
            raise PassFailedException(
                f"inlining the call to @{ctx.plan.name} in @{ctx.caller}: symbol '{sym}' is bound "
                f"to different extents ({ctx.site.ambiguous[sym]}) and {op.name} uses it "
                f"explicitly in its type; give the parameters distinct symbols"
            )


class _SpecContext:
    """Clones a helper body with per-site type specialisation."""

    def __init__(self, expander: _Expander, plan: HelperPlan, site: SiteBinding, caller: str):
        self.expander = expander
        self.plan = plan
        self.site = site
        self.caller = caller
        self.subst = site.substitution

    def sub(self, t: Attribute) -> Attribute:
        return substitute_symbols(t, self.subst)  # type: ignore[arg-type]

    def clone(self, op: Operation, vm: dict[SSAValue, SSAValue]) -> Operation:
        new = op.clone_without_regions(vm, clone_name_hints=False)
        for old_region, new_region in zip(op.regions, new.regions):
            for block in old_region.blocks:
                arg_types = self.block_arg_types(new, new_region, block)
                for t in arg_types:
                    _check_no_ambiguous(t, op, self)
                nb = Block(arg_types=arg_types)
                new_region.add_block(nb)
                for oa, na in zip(block.args, nb.args):
                    vm[oa] = na
                for inner in block.ops:
                    nb.add_op(self.clone(inner, vm))
        if isinstance(new, InferResultTypes):
            self.set_result_types(op, new, [self.sub(t) for t in op.result_types], vm)
            try:
                inferred = list(new.infer_result_types())
            except VerifyException as e:
                raise PassFailedException(
                    f"inlining the call to @{self.plan.name} in @{self.caller}: {op.name}: {e}"
                ) from e
            types = inferred
        else:
            types = self.result_types(op, new)
        for t in types:
            _check_no_ambiguous(t, op, self)
        self.set_result_types(op, new, types, vm)
        return new

    def block_arg_types(self, new: Operation, new_region, block: Block) -> list[Attribute]:
        if isinstance(new, scf.ForOp):
            return [self.sub(block.args[0].type), *new.iter_args.types]
        if isinstance(new, scf.WhileOp):
            if new_region is new.before_region:
                return list(new.arguments.types)
            cond = new.before_region.block.last_op
            if isinstance(cond, scf.ConditionOp):
                return list(cond.args.types)
        return [self.sub(t) for t in block.arg_types]

    def result_types(self, op: Operation, new: Operation) -> list[Attribute]:
        if isinstance(new, scf.ForOp):
            return list(new.iter_args.types)
        if isinstance(new, scf.IfOp):
            term = new.true_region.block.last_op if new.true_region.blocks else None
            if isinstance(term, scf.YieldOp):
                return [v.type for v in term.operands]
        if isinstance(new, scf.WhileOp):
            return list(new.after_region.block.arg_types)
        if isinstance(new, IncoreScopeOp):
            term = new.body.block.last_op
            if isinstance(term, YieldOp):
                return [*term.values.types, *([new.task_id.type] if new.task_id is not None else [])]
        if isinstance(new, CallOp | SubmitOp):
            callee = self.expander.graph.functions.get(new.callee.root_reference.data)
            if callee is not None:
                outputs = call_result_types(callee, new.args.types)
                if isinstance(new, SubmitOp):
                    outputs = [*outputs, *([new.task_id.type] if new.task_id is not None else [])]
                if len(outputs) == len(new.results):
                    return outputs
        return [self.sub(t) for t in op.result_types]

    @staticmethod
    def set_result_types(
        op: Operation, new: Operation, types: Sequence[Attribute], vm: dict[SSAValue, SSAValue]
    ) -> None:
        for i, t in enumerate(types):
            r = new.results[i]
            if r.type != t:
                vm[op.results[i]] = Rewriter.replace_value_with_new_type(r, t)


def call_result_types(callee: FuncOp, arg_types: Sequence[Attribute]) -> list[Attribute]:
    """The callee's result types with its parameter symbols bound from `arg_types`."""
    binding: dict[str, Dim] = {}
    for formal, actual in zip(callee.function_type.inputs.data, arg_types):
        if isinstance(formal, TensorType | TileType) and isinstance(actual, TensorType | TileType):
            bind_shape(formal.get_shape(), actual.get_shape(), binding, strict=False)
    return [substitute_symbols(t, binding) for t in callee.function_type.outputs.data]


def _propagate_refined_types(
    values: list[SSAValue], graph: InlineCallGraph, callee: str, caller: str
) -> None:
    """The splice produced more precise types than the call declared (a `?` parameter
    became a static extent): re-infer the caller's users of those values."""
    work = list(values)
    while work:
        v = work.pop()
        for use in list(v.uses):
            user = use.operation
            if isinstance(user, InferResultTypes):
                try:
                    types = list(user.infer_result_types())
                except VerifyException as e:
                    raise PassFailedException(
                        f"inlining the call to @{callee} in @{caller}: {user.name}: {e}"
                    ) from e
            elif isinstance(user, CallOp | SubmitOp) and (
                f := graph.functions.get(user.callee.root_reference.data)
            ) is not None:
                types = call_result_types(f, user.args.types)
                if isinstance(user, SubmitOp) and user.task_id is not None:
                    types.append(user.task_id.type)
            elif isinstance(user, YieldOp) and isinstance(parent := user.parent_op(), IncoreScopeOp):
                types = list(user.values.types)
                if parent.task_id is not None:
                    types.append(parent.task_id.type)
                user = parent
            else:
                raise PassFailedException(
                    f"inlining the call to @{callee} in @{caller}: the inlined body gives "
                    f"{_describe_value(v)} the more precise type {v.type}, which its use by "
                    f"{user.name} cannot take; use the same shapes (or symbols) in the call "
                    f"and in @{callee}'s signature"
                )
            for i, t in enumerate(types):
                if i < len(user.results) and user.results[i].type != t:
                    work.append(Rewriter.replace_value_with_new_type(user.results[i], t))


# --------------------------------------------------------------------------- dumps


def _set_dumps(op: CallOp | SubmitOp | IncoreScopeOp, dumps: Sequence[SSAValue]) -> None:
    old = len(op.dumps)
    operands = list(op.operands)
    op.operands = [*operands[: len(operands) - old], *dumps]
    sizes = op.properties["operandSegmentSizes"]
    assert isinstance(sizes, DenseArrayBase)
    values = list(sizes.get_values())
    values[-1] = len(dumps)
    op.properties["operandSegmentSizes"] = DenseArrayBase.from_list(i32, values)


def transfer_dumps(dumped: Sequence[SSAValue], new_ops: Sequence[Operation]) -> None:
    """Add the call's dump selection to the spliced dispatches and scopes that use it.

    A dumped value is followed through write-through results aliasing it (`store`,
    `assemble`); calls and submits whose arguments use a followed value, and incore scopes
    whose body reads one, get those values appended to their `dumps` (existing entries
    first, no duplicates). Selections nothing consumes are dropped.
    """
    followed: dict[SSAValue, None] = dict.fromkeys(dumped)
    for top in new_ops:
        for op in top.walk():
            alias = aliased_operand(op)
            if alias is not None and alias in followed:
                followed[op.results[0]] = None
            if isinstance(op, CallOp | SubmitOp):
                used = [v for v in op.args if v in followed]
            elif isinstance(op, IncoreScopeOp):
                used = [
                    v for inner in op.body.walk() for v in inner.operands if v in followed
                ]
            else:
                continue
            if used:
                existing = list(op.dumps)
                merged = list(dict.fromkeys([*existing, *used]))
                if len(merged) != len(existing):
                    _set_dumps(op, merged)


# --------------------------------------------------------------------------- pass


@dataclass
class InlineStats:
    sites: int = 0
    """Call sites expanded (top-level and nested)."""
    removed: list[str] = field(default_factory=list)
    """The inline functions erased, in module order."""


def inline_functions(module: builtin.ModuleOp) -> InlineStats:
    """Run the inline-functions transformation on `module` (raises PassFailedException)."""
    with paused_gc():
        return _inline_functions(module)


def _inline_functions(module: builtin.ModuleOp) -> InlineStats:
    graph = build_inline_call_graph(module)
    stats = InlineStats()
    if not graph.inline:
        return stats
    if graph.submits:
        submit, caller = graph.submits[0]
        name = submit.callee.root_reference.data
        raise PassFailedException(
            f"pypto.submit of inline function @{name} in @{caller.sym_name.data}: an inline "
            f"function has no body of its own to launch as a task; call it with pypto.call "
            f"or make @{name} an incore function"
        )
    cycle = graph.find_cycle()
    if cycle is not None:
        raise PassFailedException(
            "cycle detected in the inline call graph: " + " -> ".join(cycle)
        )
    top = graph.top_level_calls()
    roots = list(dict.fromkeys(c.callee.root_reference.data for c, _ in top))
    plans: dict[str, HelperPlan] = {}
    for name in graph.callee_first_order(roots):
        plans[name] = analyse_helper(graph.inline[name], graph.inline, plans)
    prebound = {
        call: bind_site(call, plans[call.callee.root_reference.data], caller.sym_name.data)
        for call, caller in top
    }
    expander = _Expander(graph, plans, prebound)
    for call, caller in top:
        expander.expand_all(call, caller.sym_name.data)
    for name, f in graph.inline.items():
        Rewriter.erase_op(f, safe_erase=False)
        stats.removed.append(name)
    invalidate(module)
    stats.sites = expander.sites
    return stats


@dataclass(frozen=True)
class InlineFunctionsPass(ModulePass):
    """Splice every inline function at its call sites and remove the inline functions.

    With `verify-after` (the default) the InlineFunctionsEliminated property is checked
    after a run that removed inline functions (a module without any is left untouched).
    """

    name = "inline-functions"

    verify_after: bool = True

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        stats = inline_functions(op)
        if self.verify_after and stats.removed:
            verify_inline_functions_eliminated(op)


# --------------------------------------------------------------------------- verifier


def inline_functions_eliminated_errors(module: builtin.ModuleOp) -> list[str]:
    """Violations of the InlineFunctionsEliminated property, in module order."""
    errors: list[str] = []
    functions: dict[str, FuncOp] = {}
    for f in func_ops(module):
        functions.setdefault(f.sym_name.data, f)
    for f in func_ops(module):
        if f.func_kind == FuncKind.INLINE:
            errors.append(
                f"inline function @{f.sym_name.data} survived the inline-functions pass "
                f"(it should have been spliced and removed)"
            )
    for f in func_ops(module):
        for op in f.body.walk():
            if not isinstance(op, CallOp | SubmitOp):
                continue
            kind = "call" if isinstance(op, CallOp) else "submit"
            name = op.callee.root_reference.data
            callee = functions.get(name)
            where = f"in @{f.sym_name.data}"
            if callee is None:
                errors.append(
                    f"dangling {kind} to @{name} {where}: no such function in the module "
                    f"(likely a former inline callee that was not spliced)"
                )
            elif callee.func_kind == FuncKind.INLINE:
                errors.append(
                    f"{kind} to inline function @{name} {where} survived the inline-functions pass"
                )
    return errors


def verify_inline_functions_eliminated(module: builtin.ModuleOp) -> None:
    """Raise PassFailedException listing every violation of InlineFunctionsEliminated."""
    errors = inline_functions_eliminated_errors(module)
    if errors:
        raise PassFailedException(
            "InlineFunctionsEliminated violated:\n" + "\n".join(f"  {e}" for e in errors)
        )


@dataclass(frozen=True)
class VerifyInlineFunctionsEliminatedPass(ModulePass):
    """Check that no inline function, no call/submit to one and no dangling call is left."""

    name = "verify-inline-functions-eliminated"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        verify_inline_functions_eliminated(op)
