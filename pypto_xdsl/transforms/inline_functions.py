"""`inline-functions`: splice every `pypto.func inline` at its call sites, then drop it.

Structure (see docs/passes/inline-functions.md):

* `InlineFunctionsPass` (a `ModulePass`) does the module-level work: the inline call graph
  (`pypto_xdsl.analysis.call_graph`), the checks that run before anything changes (a
  `pypto.submit` of an inline function, a cycle, helper names and symbols, the arguments of
  every call site outside inline functions), the helper plans and the expansions of the
  helpers called from those sites (`pypto_xdsl.analysis.inline_plans`), then one
  `PatternRewriteWalker` per calling function, and finally the erasure of the helpers.
* `InlineCallPattern` rewrites one `pypto.call` of an inline helper through the
  `PatternRewriter`: the helper's expansion is cloned before the call with its block
  arguments mapped to the call's operands (types specialised to the operands when they
  differ from the parameter types), the cloned values get their fresh names, the call's
  results are replaced by the cloned `pypto.return` operands, the call's dump selection
  follows into the splice, and the call is erased. Helper calls left in the clone (those
  whose types needed specialising) are spliced right away, from a work stack.

SSA makes most of the seed's rebinding machinery unnecessary: a callee "rebinding" a
parameter only defines a new value, so the caller's value is never changed; writes through
tensors reach the caller's storage because the cloned write ops operate on the caller's
values. An explicit `out`/`inout` *scalar* parameter is the caller's variable: its final
value is an extra result of the call (see `pypto.func`), which the splice replaces like any
other result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import builtin, scf
from xdsl.dialects.builtin import DenseArrayBase, i32
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException, VerifyException

from pypto_xdsl.analysis.call_graph import InlineCallGraph, build_inline_call_graph
from pypto_xdsl.analysis.inline_plans import (
    Expansion,
    HelperPlan,
    InlinePlans,
    ParsedName,
    ReservedNameError,
    analyse_helper,
    describe_value,
    fresh_name,
    fresh_name_parts,
    parse_auto_name,
    type_symbols,
)
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
    ManualScopeOp,
    SubmitOp,
    YieldOp,
    func_ops,
)
from pypto_xdsl.dialects.traits import InferResultTypes, aliased_operand
from pypto_xdsl.transforms.rewriting import FlatPatternRewriteWalker
from pypto_xdsl.utils import paused_gc, walk_ops

__all__ = [
    "Expansion",
    "HelperPlan",
    "InlineCallPattern",
    "InlineFunctionsPass",
    "InlineStats",
    "ParsedName",
    "ReservedNameError",
    "VerifyInlineFunctionsEliminatedPass",
    "analyse_helper",
    "fresh_name",
    "fresh_name_parts",
    "inline_functions",
    "inline_functions_eliminated_errors",
    "parse_auto_name",
    "verify_inline_functions_eliminated",
]

_AMBIGUOUS = "\x00ambiguous:"


# --------------------------------------------------------------------------- call sites


@dataclass
class SiteBinding:
    substitution: dict[str, Dim | str]
    specialise: bool
    ambiguous: dict[str, str]
    """symbol -> description of its conflicting extents"""
    arg_types: tuple[Attribute, ...] = ()
    """The argument types the binding was computed from."""


_EXACT_SITES: dict[int, tuple[HelperPlan, SiteBinding]] = {}


def exact_site(plan: HelperPlan) -> SiteBinding:
    """The binding of every site whose argument types are the parameter types: each
    symbol stands for itself, nothing to specialise."""
    cached = _EXACT_SITES.get(id(plan))
    if cached is not None and cached[0] is plan:
        return cached[1]
    site = SiteBinding({s: s for s in plan.bound_symbols}, False, {}, plan.formals)
    _EXACT_SITES[id(plan)] = (plan, site)
    return site


def _site_error(caller: str, callee: str, message: str) -> PassFailedException:
    return PassFailedException(f"inlining the call to @{callee} in @{caller}: {message}")


def bind_site(
    call: CallOp, plan: HelperPlan, caller: str, args: Sequence[SSAValue] | None = None
) -> SiteBinding:
    """Check a call site's arguments against the helper's parameters and bind its symbols."""
    if args is None:
        args = call.arguments_fast()
    formals = plan.formals
    if len(args) == len(formals) and all(a.type is f for a, f in zip(args, formals)):
        return exact_site(plan)  # the common case, checked by identity (parsed types are shared)
    callee = plan.name
    if len(args) != len(formals):
        raise _site_error(caller, callee, f"@{callee} takes {len(formals)} arguments, got {len(args)}")
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


# --------------------------------------------------------------------------- splicing


def _clone_ops(ops: Sequence[Operation], vm: dict[SSAValue, SSAValue]) -> list[Operation]:
    # Every named value of the body gets its fresh name after cloning, so the clones are
    # made without copying the original hints. Most body ops have no regions and no
    # successors: those are rebuilt with `create` directly (the bulk of a large splice).
    new_ops: list[Operation] = []
    get = vm.get
    for op in ops:
        if op.regions or op.successors:
            new_ops.append(op.clone(vm, clone_name_hints=False))
            continue
        new = type(op).create(
            operands=[get(v, v) for v in op.operands],
            result_types=op.result_types,
            properties=op.properties,
            attributes=op.attributes,
            location=op.location,
        )
        for old, res in zip(op.results, new.results):
            vm[old] = res
        new_ops.append(new)
    return new_ops


@dataclass(frozen=True)
class SpliceTemplate:
    """A region-free expansion compiled, once per helper, into the steps that rebuild it.

    Each step is one body op: its class, its operands as indices into the splice's value
    list (the call's arguments, then every step's results in order), and the result types,
    properties, attributes and location the clone shares with the original. A splice then
    looks values up by position instead of hashing them into a value map, and knows the
    positions of the values to rename and to return; expansions with regions or successors
    (loops, branches, scopes) are cloned op by op instead.
    """

    steps: tuple[tuple[type[Operation], tuple[int, ...], tuple[Attribute, ...], dict, dict, Attribute], ...]
    returned: tuple[int, ...]
    renames: tuple[tuple[int, str, str, int], ...]
    """(position, prefix, suffix, k): see `Expansion.renames`."""

    @staticmethod
    def build(expansion: Expansion) -> SpliceTemplate | None:
        position: dict[SSAValue, int] = {a: i for i, a in enumerate(expansion.block.args)}
        steps = []
        for op in expansion.body_ops:
            if op.regions or op.successors or any(v not in position for v in op.operands):
                return None
            steps.append(
                (
                    type(op),
                    tuple(position[v] for v in op.operands),
                    tuple(op.result_types),
                    op.properties,
                    op.attributes,
                    op.location,
                )
            )
            for r in op.results:
                position[r] = len(position)
        if any(v not in position for v in expansion.returned):
            return None
        renames = tuple(
            (position[v], prefix, suffix, k)
            for v, (prefix, suffix, k) in expansion.renames.items()
            if v in position
        )
        return SpliceTemplate(tuple(steps), tuple(position[v] for v in expansion.returned), renames)

    def instantiate(self, args: Sequence[SSAValue], n: int) -> tuple[list[Operation], list[SSAValue]]:
        """The spliced ops for a site numbered `n` with arguments `args` (detached, named),
        and the values they return."""
        values = list(args)
        extend = values.extend
        new_ops: list[Operation] = []
        for op_type, operands, result_types, properties, attributes, location in self.steps:
            new = op_type.create(
                operands=[values[i] for i in operands],
                result_types=result_types,
                properties=properties,
                attributes=attributes,
                location=location,
            )
            extend(new.results)
            new_ops.append(new)
        for i, prefix, suffix, k in self.renames:
            values[i].name_hint = f"{prefix}{n + k}{suffix}"
        return new_ops, [values[i] for i in self.returned]


class InlineExpander:
    """Splices call sites through a `PatternRewriter`; holds the per-run site counter."""

    def __init__(
        self,
        graph: InlineCallGraph,
        plans: InlinePlans,
        prebound: dict[CallOp, SiteBinding] | None = None,
    ):
        self.graph = graph
        self.plans = plans
        self.prebound = prebound or {}
        self.templates: dict[str, SpliceTemplate | None] = {}
        self.counter = 0
        self.sites = 0
        self.failed: PassFailedException | None = None
        """The first error a pattern application met (raised by the pass after the walk)."""

    def expand(
        self, call: CallOp, caller: str, rewriter: PatternRewriter, insertion_point: InsertPoint
    ) -> list[CallOp]:
        """Splice one call; return the helper calls the splice created (to expand next)."""
        name = call.callee.root_reference.data
        plan = self.plans[name]
        expansion = self.plans.expansion(name)
        # Read the operands now: splicing earlier sites may have replaced them (and refined
        # their types, in which case a binding computed before any change is stale).
        args = call.arguments_fast()
        site = self.prebound.pop(call, None) if self.prebound else None
        if site is None or tuple(a.type for a in args) != site.arg_types:
            site = bind_site(call, plan, caller, args)
        n = self.counter
        self.counter += expansion.sites
        self.sites += expansion.sites
        template = None if site.specialise else self.template(name, expansion)
        if template is not None:
            new_ops, rets = template.instantiate(args, n)
        else:
            vm: dict[SSAValue, SSAValue] = dict(zip(expansion.block.args, args))
            if site.specialise:
                ctx = _SpecContext(self, plan, site, caller)
                new_ops = [ctx.clone(op, vm) for op in expansion.body_ops]
            else:
                new_ops = _clone_ops(expansion.body_ops, vm)
            for orig, (prefix, suffix, k) in expansion.renames.items():
                v = vm.get(orig)
                if v is not None:
                    v.name_hint = f"{prefix}{n + k}{suffix}"
            rets = [vm.get(v, v) for v in expansion.returned]
        rewriter.insert(new_ops, insertion_point)
        refined: list[SSAValue] = []
        for res, new in zip(call.results, rets):
            if res.type != new.type:
                refined.append(new)
            rewriter.replace_all_uses_with(res, new)
        if refined:
            _propagate_refined_types(refined, self.graph, plan.name, caller, rewriter)
        dumps = list(call.operands[len(args) :])  # operands are (args..., dumps...)
        rewriter.erase(call)
        if dumps:
            transfer_dumps(dumps, new_ops, rewriter)
        if not expansion.calls_helpers:
            return []
        plans = self.plans.plans
        return [
            op
            for top in new_ops
            for op in walk_ops(top)
            if isinstance(op, CallOp) and op.callee.root_reference.data in plans
        ]

    def template(self, name: str, expansion: Expansion) -> SpliceTemplate | None:
        """The helper's splice template, compiled on its first exact-typed site."""
        try:
            return self.templates[name]
        except KeyError:
            template = self.templates[name] = SpliceTemplate.build(expansion)
            return template

    def expand_all(self, call: CallOp, caller: str, rewriter: PatternRewriter) -> None:
        """Splice `call` and, depth first, the helper calls each splice leaves.

        A helper can be spliced into itself only through a cycle of the call graph, which the
        pass rejects before expanding; the depth bound makes a missed cycle an error instead
        of an endless expansion.
        """
        limit = len(self.plans.plans)
        stack: list[tuple[CallOp, int]] = [(call, 0)]
        while stack:
            site, depth = stack.pop()
            if depth > limit:
                raise PassFailedException(
                    f"inlining the call to @{site.callee.root_reference.data} in @{caller}: "
                    f"helpers nest deeper than the {limit} inline functions of the module, so "
                    f"the inline call graph has a cycle"
                )
            # The walker put the rewriter before the matched call; nested sites sit elsewhere.
            point = rewriter.insertion_point if site is call else InsertPoint.before(site)
            nested = self.expand(site, caller, rewriter, point)
            stack.extend((c, depth + 1) for c in reversed(nested))


class InlineCallPattern(RewritePattern):
    """A `pypto.call` of an inline helper, in a function that is not inline itself: splice it
    (and the helper calls the splice leaves, see `InlineExpander.expand_all`)."""

    def __init__(self, expander: InlineExpander, caller: str):
        self.expander = expander
        self.caller = caller
        self.helpers = expander.plans.plans

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if type(op) is not CallOp or op.callee.root_reference.data not in self.helpers:
            return
        if self.expander.failed is not None:
            return  # the pass reports the first failure after the walk
        try:
            self.expander.expand_all(op, self.caller, rewriter)
        except PassFailedException as e:
            # Raised by the pass, not through the walker (which would attach a dump of the
            # whole module to the diagnostic).
            self.expander.failed = e


def _check_no_ambiguous(t: Attribute, op: Operation, ctx: _SpecContext) -> None:
    for s in type_symbols(t):
        if s.startswith(_AMBIGUOUS):
            sym = s[len(_AMBIGUOUS) :]
            raise PassFailedException(
                f"inlining the call to @{ctx.plan.name} in @{ctx.caller}: symbol '{sym}' is bound "
                f"to different extents ({ctx.site.ambiguous[sym]}) and {op.name} uses it "
                f"explicitly in its type; give the parameters distinct symbols"
            )


class _SpecContext:
    """Clones a helper body with per-site type specialisation (the ops are detached until
    the expander inserts them)."""

    def __init__(self, expander: InlineExpander, plan: HelperPlan, site: SiteBinding, caller: str):
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
        if isinstance(new, ManualScopeOp):
            term = new.body.block.last_op
            if isinstance(term, YieldOp):
                return list(term.values.types)
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
    values: list[SSAValue],
    graph: InlineCallGraph,
    callee: str,
    caller: str,
    rewriter: PatternRewriter,
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
            elif isinstance(user, YieldOp) and isinstance(parent := user.parent_op(), IncoreScopeOp | ManualScopeOp):
                types = list(user.values.types)
                if isinstance(parent, IncoreScopeOp) and parent.task_id is not None:
                    types.append(parent.task_id.type)
                user = parent
            else:
                raise PassFailedException(
                    f"inlining the call to @{callee} in @{caller}: the inlined body gives "
                    f"{describe_value(v)} the more precise type {v.type}, which its use by "
                    f"{user.name} cannot take; use the same shapes (or symbols) in the call "
                    f"and in @{callee}'s signature"
                )
            for i, t in enumerate(types):
                if i < len(user.results) and user.results[i].type != t:
                    work.append(rewriter.replace_value_with_new_type(user.results[i], t))


# --------------------------------------------------------------------------- dumps


def _set_dumps(op: CallOp | SubmitOp | IncoreScopeOp, dumps: Sequence[SSAValue]) -> None:
    old = len(op.dumps)
    operands = list(op.operands)
    sizes = op.properties["operandSegmentSizes"]
    assert isinstance(sizes, DenseArrayBase)
    values = list(sizes.get_values())
    # dumps is the segment after args (call/submit: args, [deps,] dumps, ...; scope: deps, dumps, ...)
    index = _dumps_segment(op)
    start = sum(values[:index])
    op.operands = [*operands[:start], *dumps, *operands[start + old :]]
    values[index] = len(dumps)
    op.properties["operandSegmentSizes"] = DenseArrayBase.from_list(i32, values)


def _dumps_segment(op: Operation) -> int:
    if isinstance(op, CallOp):
        return 1
    return 2 if isinstance(op, SubmitOp) else 1


def transfer_dumps(
    dumped: Sequence[SSAValue], new_ops: Sequence[Operation], rewriter: PatternRewriter | None = None
) -> None:
    """Add the call's dump selection to the spliced dispatches and scopes that use it.

    A dumped value is followed through write-through results aliasing it (`store`,
    `assemble`); calls and submits whose arguments use a followed value, and incore scopes
    whose body reads one, get those values appended to their `dumps` (existing entries
    first, no duplicates). Selections nothing consumes are dropped.
    """
    followed: dict[SSAValue, None] = dict.fromkeys(dumped)
    for top in new_ops:
        for op in walk_ops(top):
            alias = aliased_operand(op)
            if alias is not None and alias in followed:
                followed[op.results[0]] = None
            if isinstance(op, CallOp | SubmitOp):
                used = [v for v in op.args if v in followed]
            elif isinstance(op, IncoreScopeOp):
                used = [
                    v for inner in walk_ops(op.body) for v in inner.operands if v in followed
                ]
            else:
                continue
            if used:
                existing = list(op.dumps)
                merged = list(dict.fromkeys([*existing, *used]))
                if len(merged) != len(existing):
                    _set_dumps(op, merged)
                    if rewriter is not None:
                        rewriter.notify_op_modified(op)


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


SUBMIT_OF_INLINE_MESSAGE = (
    "dangling submit to @{name} in @{caller}: pypto.submit of an inline function cannot be "
    "spliced (an inline function has no body of its own to launch as a task), and removing "
    "@{name} would leave the submit with no such function in the module (likely a former "
    "inline callee that was not spliced); call it with pypto.call or make @{name} an incore "
    "function"
)
"""PyPTO leaves such a submit dangling for its InlineFunctionsEliminated verifier; the pass
reports it before changing anything, in the verifier's words."""


def _inline_functions(module: builtin.ModuleOp) -> InlineStats:
    graph = build_inline_call_graph(module)
    stats = InlineStats()
    if not graph.inline:
        return stats
    if graph.submits:
        submit, caller = graph.submits[0]
        raise PassFailedException(
            SUBMIT_OF_INLINE_MESSAGE.format(
                name=submit.callee.root_reference.data, caller=caller.sym_name.data
            )
        )
    cycle = graph.find_cycle()
    if cycle is not None:
        raise PassFailedException(
            "cycle detected in the inline call graph: " + " -> ".join(cycle)
        )
    top = graph.top_level_calls()
    roots = list(dict.fromkeys(c.callee.root_reference.data for c, _ in top))
    plans = InlinePlans(
        {name: analyse_helper(graph.inline[name]) for name in graph.callee_first_order(roots)},
        transfer_dumps,
    )
    # Every site is checked before anything changes; the bindings that specialise types are
    # kept (the others are rebound, by an identity check, when the site is spliced).
    prebound: dict[CallOp, SiteBinding] = {}
    for call, caller in top:
        site = bind_site(call, plans[call.callee.root_reference.data], caller.sym_name.data)
        if site.specialise:
            prebound[call] = site
    for name in roots:
        plans.expansion(name)
    expander = InlineExpander(graph, plans, prebound)
    sites: dict[FuncOp, list[Operation]] = {}
    for call, caller in top:
        sites.setdefault(caller, []).append(call)
    for caller, calls in sites.items():
        # The walker visits the call sites only (in program order: the call graph's walk).
        walker = FlatPatternRewriteWalker(
            InlineCallPattern(expander, caller.sym_name.data), apply_recursively=False, only=calls
        )
        walker.rewrite_region(caller.body)
        if expander.failed is not None:
            raise expander.failed
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
        for op in walk_ops(f.body):
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
