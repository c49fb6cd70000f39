"""What inline-functions learns about its helpers before it changes anything.

* **Fresh names** (`fresh_name_parts`): the name a value of a helper gets at a call site
  numbered N (`y` -> `y_inline<N>`, auto-names keep their role and version).
* **Helper plans** (`analyse_helper`): per inline helper, once: the fresh-name template of
  each of its values, its symbols (every symbol must be bound by a parameter type) and its
  parameters.
* **Expansions** (`InlinePlans.expansion`): a helper's body with every nested call of a
  helper whose argument types *equal* that helper's parameter types already spliced, built
  on first use as the source of a final splice and cached. Such nested splices are the same
  at every final site up to that site's substitution, so a helper called from N sites costs
  one expansion plus N clones, not N times its call tree. The expansion is built with a
  work stack over the original helper bodies (pre-order, no recursion); only helpers that
  are spliced at a final site get one, so the cached expansions together are never larger
  than the program the pass produces (each is cloned there at least once), also for deep
  chains of helpers.

Numbering: a final site numbered N gives the helper's own values `N`, and the k-th nested
site of the expansion (pre-order) `N + k`; `Expansion.sites` is how many numbers a final
splice consumes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from pypto_xdsl.dialects.attributes import TensorType, TileType
from pypto_xdsl.dialects.program import CallOp, FuncOp, ReturnOp
from pypto_xdsl.utils import walk_ops

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


# --------------------------------------------------------------------------- plans


def type_symbols(t: Attribute) -> set[str]:
    if isinstance(t, TensorType | TileType):
        return t.symbols()
    return set()


@dataclass
class Expansion:
    """A helper body with its exact-typed nested helper calls spliced (a detached block)."""

    block: Block
    body_ops: list[Operation]
    ret: ReturnOp
    renames: dict[SSAValue, tuple[str, str, int]]
    """value of `block` -> (prefix, suffix, k): its fresh name at a final site numbered N is
    `prefix + (N + k) + suffix`."""
    sites: int
    """1 + the number of nested sites spliced into `block` (numbers a final splice consumes)."""
    calls_helpers: bool
    """`block` still holds calls of helpers (their types need specialising at each final site)."""

    @functools.cached_property
    def returned(self) -> tuple[SSAValue, ...]:
        """The values the expansion returns (read once, not through the accessor per site)."""
        return tuple(self.ret.arguments)


@dataclass
class HelperPlan:
    """What the pass learns once about an inline helper, before cloning it anywhere."""

    func: FuncOp
    templates: dict[SSAValue, tuple[str, str]]
    """value of the helper body -> (prefix, suffix) of its fresh names."""
    param_names: list[str]
    bound_symbols: frozenset[str] = field(default_factory=frozenset)
    """The symbols the parameter types bind (every symbol the helper uses)."""
    param_symbols: list[tuple[str, ...]] = field(default_factory=list)
    """The symbols of each parameter type, in order."""
    expansion: Expansion | None = None
    """Built on first use as the source of a final splice (`InlinePlans.expansion`)."""

    @property
    def name(self) -> str:
        return self.func.sym_name.data

    @functools.cached_property
    def formals(self) -> tuple[Attribute, ...]:
        return tuple(self.func.function_type.inputs.data)


def analyse_helper(func: FuncOp) -> HelperPlan:
    """Analyse one helper: fresh-name templates, symbols, parameters.

    Raises PassFailedException for a helper without trailing `pypto.return`, an
    author-written `a__b` name, or a symbol no parameter type binds.
    """
    name = func.sym_name.data
    last = func.body.block.last_op
    if not isinstance(last, ReturnOp):
        raise PassFailedException(f"inline function @{name} does not end with pypto.return")
    templates: dict[SSAValue, tuple[str, str]] = {}
    symbols: set[str] = set()

    def note(v: SSAValue) -> None:
        symbols.update(type_symbols(v.type))
        if v.name_hint is None:
            return
        try:
            templates[v] = fresh_name_parts(v.name_hint)
        except ReservedNameError as e:
            raise PassFailedException(f"in inline function @{name}: {e}") from e

    for op in walk_ops(func.body):
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    note(a)
        for r in op.results:
            note(r)
    param_symbols: set[str] = set()
    for t in func.function_type.inputs.data:
        param_symbols |= type_symbols(t)
    for t in func.function_type.outputs.data:
        symbols |= type_symbols(t)
    free = sorted(symbols - param_symbols)
    if free:
        listed = ", ".join(f"'{s}'" for s in free)
        raise PassFailedException(
            f"inline function @{name} uses symbol{'s' if len(free) > 1 else ''} {listed} that "
            f"none of its parameter types binds; inlining would leak {'them' if len(free) > 1 else 'it'} "
            f"into its callers (bind it through a parameter type)"
        )
    param_names = [
        f"#{i} (%{a.name_hint})" if a.name_hint else f"#{i}" for i, a in enumerate(func.args)
    ]
    per_param = [tuple(sorted(type_symbols(t))) for t in func.function_type.inputs.data]
    return HelperPlan(func, templates, param_names, frozenset(param_symbols), per_param)


def _clone_ops(ops: Sequence[Operation], vm: dict[SSAValue, SSAValue]) -> list[Operation]:
    return [
        op.clone(vm, clone_name_hints=False)
        if op.regions
        else op.clone_without_regions(vm, clone_name_hints=False)
        for op in ops
    ]


@dataclass
class InlinePlans:
    """The plans of the helpers reachable from final call sites, and their expansions."""

    plans: dict[str, HelperPlan]
    transfer_dumps: Callable[[Sequence[SSAValue], Sequence[Operation]], None]
    """How a nested call's dump selection follows into the ops spliced for it."""

    def __getitem__(self, name: str) -> HelperPlan:
        return self.plans[name]

    def expansion(self, name: str) -> Expansion:
        plan = self.plans[name]
        if plan.expansion is None:
            plan.expansion = self._expand(plan)
        return plan.expansion

    def _exact_callee(self, op: Operation) -> HelperPlan | None:
        """The plan of the helper `op` calls with exactly its parameter types, if any."""
        if not isinstance(op, CallOp):
            return None
        callee = self.plans.get(op.callee.root_reference.data)
        if callee is None:
            return None
        args = op.arguments_fast()
        formals = callee.formals
        if len(args) != len(formals) or any(a.type != f for a, f in zip(args, formals)):
            return None
        return callee

    def _is_helper_call(self, op: Operation) -> bool:
        return isinstance(op, CallOp) and op.callee.root_reference.data in self.plans

    def _expand(self, plan: HelperPlan) -> Expansion:
        func = plan.func
        block = Block(arg_types=func.body.block.arg_types)
        vm: dict[SSAValue, SSAValue] = dict(zip(func.args, block.args))
        for op in func.body.block.ops:
            block.add_op(op.clone(vm, clone_name_hints=False))
        renames: dict[SSAValue, tuple[str, str, int]] = {
            vm[v]: (prefix, suffix, 0) for v, (prefix, suffix) in plan.templates.items() if v in vm
        }
        sites = 1
        calls_helpers = False
        # Pre-order over the exact-typed call tree: a spliced call's own helper calls come
        # next, before its siblings (the numbering the sites get). A helper nests in itself
        # only through a cycle, which the pass rejects first; the depth bound turns a missed
        # cycle into an error instead of an endless expansion.
        limit = len(self.plans)
        stack: list[tuple[Operation, int]] = [(op, 1) for op in walk_ops(block) if self._is_helper_call(op)]
        stack.reverse()
        while stack:
            call, depth = stack.pop()
            assert isinstance(call, CallOp)
            if depth > limit:
                raise PassFailedException(
                    f"expanding inline function @{plan.name}: helpers nest deeper than the {limit} "
                    f"inline functions of the module, so the inline call graph has a cycle"
                )
            callee = self._exact_callee(call)
            if callee is None:
                calls_helpers = True  # specialised at each final site
                continue
            args = call.arguments_fast()
            cfunc = callee.func
            nvm: dict[SSAValue, SSAValue] = dict(zip(cfunc.args, args))
            body = list(cfunc.body.block.ops)
            ret = body.pop()
            assert isinstance(ret, ReturnOp)
            new_ops = _clone_ops(body, nvm)
            if new_ops:
                Rewriter.insert_op(new_ops, InsertPoint.before(call))
            for v, (prefix, suffix) in callee.templates.items():
                if (nv := nvm.get(v)) is not None:
                    renames[nv] = (prefix, suffix, sites)
            for res, value in zip(call.results, ret.arguments):
                new = nvm.get(value, value)
                # An unnamed returned value takes the name the call result would have had.
                if new not in renames and res in renames:
                    renames[new] = renames[res]
                renames.pop(res, None)
                res.replace_all_uses_with(new)
            dumps = list(call.operands[len(args) :])
            Rewriter.erase_op(call)
            if dumps:
                self.transfer_dumps(dumps, new_ops)
            sites += 1
            nested = [op for top in new_ops for op in walk_ops(top) if self._is_helper_call(op)]
            stack.extend((op, depth + 1) for op in reversed(nested))
        ops = list(block.ops)
        ret = ops.pop()
        assert isinstance(ret, ReturnOp)
        return Expansion(block, ops, ret, renames, sites, calls_helpers)


def describe_value(v: SSAValue) -> str:
    if v.name_hint:
        return f"%{v.name_hint}"
    return f"block argument #{v.index}" if isinstance(v, BlockArgument) else "a value"
