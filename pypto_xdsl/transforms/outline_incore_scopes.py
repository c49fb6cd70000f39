"""outline-incore-scopes: `pypto.incore_scope` regions -> InCore functions + calls.

Each `pypto.incore_scope` in an `opaque` or `orchestration` `pypto.func` becomes a new
`pypto.func incore @<func>_incore_<k>` (or its `name(...)` hint, see "Naming"), inserted
after its parent, and a `pypto.call` (or `pypto.submit`) takes the scope's place, inside
whatever `scf` region held it. An opaque parent becomes `orchestration`. The page
`docs/passes/outline-incore-scopes.md` describes the behaviour; this docstring summarises.

Inputs: the scope body's free values (`pypto_xdsl.analysis.free_values`), in first-use
order; `ConstantLike` ops without operands (`arith.constant`) are cloned into the new
function instead of being passed.

Outputs, in this order:
1. one per scope result (the yielded values), in yield order; a tensor result that writes
   through a captured tensor (store/assemble/matmul_acc results, through scf carries, see
   `pypto_xdsl.analysis.write_through`) returns **that parameter**;
2. then every captured tensor written inside the body that no result of step 1 already
   returns, in first-write order (the parameter itself is returned).
Later uses, in the parent, of a written captured tensor (those the call dominates) read
the call's result instead, so they are ordered after the write.

Directions: a written tensor parameter that is also read (directly or through an alias)
is `inout`, `out` if only written; everything else is `in`.

Task ids: a scope with a `task_id` result or `deps(...)` becomes a `pypto.submit` with
those deps; its task id replaces the scope's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import (
    UNKNOWN_LOC,
    ArrayAttr,
    DenseArrayBase,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint
from xdsl.traits import ConstantLike, SymbolOpInterface
from xdsl.utils.exceptions import PassFailedException

from pypto_xdsl.analysis import deferred_wait
from pypto_xdsl.analysis.free_values import FreeValues, collect_free_values
from pypto_xdsl.analysis.symbols import invalidate
from pypto_xdsl.analysis.write_through import (
    VIEW_OPS,
    WriteThrough,
    callee_directions,
    write_target,
)
from pypto_xdsl.dialects.attributes import (
    INCORE_KINDS,
    ORCHESTRATION_LIKE_KINDS,
    FuncKind,
    FuncKindAttr,
    Level,
    ParamDirection,
    ParamDirectionAttr,
    SplitMode,
    SplitModeAttr,
    TensorType,
)
from pypto_xdsl.dialects.distributed import DeferWaitOp
from pypto_xdsl.dialects.program import (
    BLOCK_DIM_ATTR,
    NO_DEP_ATTR,
    SPLIT_AIV_EXCLUSIVE_MESSAGE,
    SYNC_START_ATTR,
    CallOp,
    FuncOp,
    IncoreScopeOp,
    ReturnOp,
    SplitAivOp,
    SubmitOp,
    YieldOp,
)
from pypto_xdsl.transforms.rewriting import FlatPatternRewriteWalker
from pypto_xdsl.utils import paused_gc, walk_ops

_LEVEL_KIND = {
    Level.CORE_GROUP: FuncKind.INCORE,
    Level.AIC: FuncKind.AIC,
    Level.AIV: FuncKind.AIV,
}

# Uses of a tensor that neither read nor write its data: loop carries and yields forward
# the storage (the analysis follows them), `tensor.dim` reads metadata only.
_METADATA_OPS = frozenset({"pypto.tensor.dim"})


def _is_carry_use(op: Operation, index: int) -> bool:
    if isinstance(op, YieldOp | scf.YieldOp | scf.WhileOp):
        return True
    if isinstance(op, scf.ForOp):
        return index >= 3
    if isinstance(op, scf.ConditionOp):
        return index >= 1
    return False


_CONSTANT_LIKE: dict[type[Operation], bool] = {}


def _is_cheap_constant(value: SSAValue) -> bool:
    """Results of operand-less, region-less `ConstantLike` ops are cloned, not passed."""
    owner = value.owner
    if not isinstance(owner, Operation):
        return False
    cls = type(owner)
    const = _CONSTANT_LIKE.get(cls)
    if const is None:
        const = _CONSTANT_LIKE[cls] = owner.has_trait(ConstantLike)
    return const and not owner.operands and not owner.regions


# ---- fast builders: `Operation.create` with the properties the typed builders would set
# (the typed `__init__`s re-check every operand against its constraint, which dominates the
# cost of outlining thousands of scopes; the module verifier checks the result anyway).

_KIND_ATTRS = {k: FuncKindAttr(k) for k in FuncKind}
_DIR_ATTRS = {d: ParamDirectionAttr(d) for d in ParamDirection}


_SEGMENTS: dict[tuple[int, ...], DenseArrayBase] = {}
_NO_NESTED_REFERENCES: ArrayAttr[StringAttr] = ArrayAttr(())
_FUNCTION_TYPES: dict[tuple[tuple[Attribute, ...], tuple[Attribute, ...]], FunctionType] = {}
_DIRECTION_ARRAYS: dict[tuple[ParamDirection, ...], ArrayAttr] = {}


def _segments(*sizes: int) -> DenseArrayBase:
    seg = _SEGMENTS.get(sizes)
    if seg is None:
        seg = _SEGMENTS[sizes] = DenseArrayBase.from_list(i32, sizes)
    return seg


def _function_type(inputs: tuple[Attribute, ...], outputs: tuple[Attribute, ...]) -> FunctionType:
    key = (inputs, outputs)
    ft = _FUNCTION_TYPES.get(key)
    if ft is None:
        ft = FunctionType.from_lists(inputs, outputs)
        if len(_FUNCTION_TYPES) < 4096:
            _FUNCTION_TYPES[key] = ft
    return ft


def _make_func(
    name: StringAttr,
    inputs: list[Attribute],
    outputs: list[Attribute],
    kind: FuncKind,
    directions: list[ParamDirection],
    body: Region,
) -> FuncOp:
    properties: dict[str, Attribute] = {
        "sym_name": name,
        "function_type": _function_type(tuple(inputs), tuple(outputs)),
        "kind": _KIND_ATTRS[kind],
    }
    if any(d != ParamDirection.IN for d in directions):
        key = tuple(directions)
        dirs = _DIRECTION_ARRAYS.get(key)
        if dirs is None:
            dirs = _DIRECTION_ARRAYS[key] = ArrayAttr([_DIR_ATTRS[d] for d in directions])
        properties["arg_dirs"] = dirs
    return FuncOp.create(properties=properties, regions=[body], location=UNKNOWN_LOC)


def _make_call(
    name: StringAttr, args: list[SSAValue], out_types: list[Attribute], dumps: list[SSAValue]
) -> CallOp:
    return CallOp.create(
        operands=[*args, *dumps],
        result_types=out_types,
        properties={
            "callee": SymbolRefAttr(name, _NO_NESTED_REFERENCES),
            "operandSegmentSizes": _segments(len(args), len(dumps), 0),
        },
        location=UNKNOWN_LOC,
    )


def _clone_constant(op: Operation) -> Operation:
    """Clone an operand-less, region-less constant op (cheaper than `op.clone()`)."""
    new = type(op).create(  # `create` copies the property and attribute dicts
        result_types=op.result_types,
        properties=op.properties,
        attributes=op.attributes,
        location=UNKNOWN_LOC,
    )
    for old, res in zip(op.results, new.results):
        res.name_hint = old.name_hint
    return new


def _segment_sizes(op: Operation, prop: str) -> tuple[int, ...]:
    seg = op.properties[prop]
    assert isinstance(seg, DenseArrayBase)
    return tuple(seg.get_values())  # type: ignore[arg-type]


def _symbol_names(module: ModuleOp) -> set[str]:
    names: set[str] = set()
    for op in module.body.block.ops:
        if op.has_trait(SymbolOpInterface):
            sym = op.get_attr_or_prop("sym_name")
            if isinstance(sym, StringAttr):
                names.add(sym.data)
    return names


def _fail(func: FuncOp, message: str) -> PassFailedException:
    return PassFailedException(f"outline-incore-scopes: in @{func.sym_name.data}: {message}")


# --------------------------------------------------------------------------- naming


class _Namer:
    """Outlined-function names: per-function counter, program-wide reserved set."""

    def __init__(self, reserved: set[str]):
        self.reserved = reserved

    def _suffixed(self, base: str, local: set[str]) -> str:
        i = 0
        while f"{base}_{i}" in local or f"{base}_{i}" in self.reserved:
            i += 1
        return f"{base}_{i}"

    def choose(self, func_name: str, hint: str | None, counter: int, local: set[str]) -> str:
        candidate = hint if hint else f"{func_name}_incore_{counter}"
        if candidate in local:
            # In-function collision: my_kernel, my_kernel_0, my_kernel_1, ...
            name = self._suffixed(candidate, local)
        elif candidate in self.reserved:
            # Collision with a symbol from elsewhere: namespace it under this function.
            name = f"{func_name}_{candidate}"
            if name in local or name in self.reserved:
                name = self._suffixed(name, local)
        else:
            name = candidate
        local.add(name)
        self.reserved.add(name)
        return name


# --------------------------------------------------------------------------- renames


class _Renames:
    """Flat value -> latest-version map, scoped by block.

    Each layer of undo records belongs to a block: entries made while outlining a scope in
    block B (and path compressions made while resolving an op inside B) hold for the rest of
    B, nested regions included, and are undone when the walk leaves B. The walk visits ops
    in program order, so `enter(op)` can tell from `op`'s block which layers still hold: it
    keeps the chain of blocks from the function body to the block being walked (a
    depth-first path, so entering a block costs its distance from the path, leaving costs
    the layers it pops: constant per op amortised, at any nesting depth).
    """

    def __init__(self, body: Block) -> None:
        self.map: dict[SSAValue, SSAValue] = {}
        self._body = body
        self._path: list[Block] = [body]  # body ... the block of the op last entered
        self._on_path: dict[Block, int] = {body: 0}
        self._blocks: list[Block] = [body]  # the blocks of the undo layers, along the path
        self._undo: list[list[tuple[SSAValue, SSAValue | None]]] = [[]]
        self._last: Block | None = body

    def enter(self, op: Operation) -> bool:
        """Make the layers those of `op`'s position; False when `op` is not in the function."""
        block = op.parent
        if block is self._last:
            return True
        on_path = self._on_path
        depth = on_path.get(block)
        if depth is None:
            # A block below the path: climb to the path, then extend it downwards.
            climbed: list[Block] = []
            b = block
            while b is not None and b not in on_path:
                climbed.append(b)
                parent = b.parent_op()
                b = parent.parent if parent is not None else None
            if b is None:
                return False
            depth = on_path[b]
            self._truncate(depth)
            for c in reversed(climbed):
                on_path[c] = len(self._path)
                self._path.append(c)
        else:
            self._truncate(depth)
        self._last = block
        return True

    def _truncate(self, depth: int) -> None:
        """Leave every block of the path below position `depth`, undoing their layers."""
        path = self._path
        while len(path) > depth + 1:
            left = path.pop()
            del self._on_path[left]
            if len(self._blocks) > 1 and self._blocks[-1] is left:
                self._pop()

    def _pop(self) -> None:
        self._blocks.pop()
        for key, old in reversed(self._undo.pop()):
            if old is None:
                del self.map[key]
            else:
                self.map[key] = old

    def set(self, block: Block, key: SSAValue, value: SSAValue) -> None:
        """`key` now reads as `value` for the rest of `block` (the position last entered)."""
        if self._blocks[-1] is not block:
            self._blocks.append(block)
            self._undo.append([])
        self._record(key, value)

    def _record(self, key: SSAValue, value: SSAValue) -> None:
        self._undo[-1].append((key, self.map.get(key)))
        self.map[key] = value

    def resolve(self, value: SSAValue) -> SSAValue:
        """The latest version of `value` (path-compressed, so chains stay short)."""
        m = self.map
        latest = m.get(value)
        if latest is None:
            return value
        path = [value]
        while latest in m:
            path.append(latest)
            latest = m[latest]
        for v in path[:-1]:  # the last hop already points at `latest`
            self._record(v, latest)
        return latest


# --------------------------------------------------------------------------- per scope


@dataclass
class _BodyAnalysis:
    """What one walk of a scope body finds."""

    written: dict[SSAValue, None]  # captured tensors written, first-write order
    read: set[SSAValue]  # captured tensors read (directly or through an alias)
    split_aiv_modes: list[SplitMode]
    defers_completion: bool = False  # the body registers pypto.system.defer_wait conditions


class _FunctionOutliner:
    """The per-function state of outlining: names, counter, latest versions of written
    captures, where outlined functions go."""

    def __init__(self, module: ModuleOp, func: FuncOp, namer: _Namer, cursor: Operation):
        self.module = module
        self.func = func
        self.func_name = func.sym_name.data
        self.namer = namer
        self.cursor = cursor  # outlined functions go after this op
        self.counter = 0
        self.local_names: set[str] = set()
        self.renames = _Renames(func.body.block)
        self.outlined = 0
        self.failed: PassFailedException | None = None

    # ---- one scope

    def _analyse(self, scope: IncoreScopeOp) -> tuple[FreeValues, _BodyAnalysis, WriteThrough]:
        """One walk of the scope body: free values, writes and reads of captured tensors."""
        written: dict[SSAValue, None] = {}
        read: set[SSAValue] = set()
        modes: list[SplitMode] = []
        inside: set[SSAValue] = set()  # filled by the walk; values defined in the body
        # Storage roots stop at the first value defined outside the body (a capture).
        lineage = WriteThrough(is_boundary=lambda v: v not in inside)

        waits: list[bool] = []

        def on_op(op: Operation, defined: set[SSAValue]) -> None:
            # Exact-class tests: both ops are final, and `isinstance` on op classes goes
            # through ABC subclass checks (this runs on every op of every scope body).
            cls = type(op)
            if cls is SplitAivOp:
                modes.append(op.mode.data)  # type: ignore[attr-defined]
            elif cls is DeferWaitOp and not waits:
                waits.append(True)
            target = write_target(op)
            atomic = target is not None and (
                "atomic" in op.attributes or "atomic" in op.properties
            )
            call_dirs = callee_directions(op)
            for i, v in enumerate(op.operands):
                if not isinstance(v.type, TensorType):
                    continue
                root = lineage.root(v) if v in defined else v
                if root in defined:
                    continue  # storage allocated inside the scope
                if target is not None and target[0] == i:
                    written.setdefault(root)
                    if atomic:
                        read.add(root)  # read-modify-write
                elif call_dirs is not None and i < len(call_dirs) and call_dirs[i] != ParamDirection.IN:
                    written.setdefault(root)  # the callee writes through this argument
                    if call_dirs[i] == ParamDirection.INOUT:
                        read.add(root)
                elif op.name in _METADATA_OPS or _is_carry_use(op, i) or VIEW_OPS.get(op.name) == i:
                    continue  # no data read here (reads through a view count where they happen)
                else:
                    read.add(root)

        renames = self.renames
        free = collect_free_values(
            scope.body,
            remap=renames.resolve if renames.map else None,
            remapped=renames.map,
            on_op=on_op,
            defined=inside,
        )
        return free, _BodyAnalysis(written, read, modes, bool(waits)), lineage

    def outline(self, scope: IncoreScopeOp, rewriter: PatternRewriter) -> None:
        # The scope's own operands (deps, dumps) see earlier writes too.
        if self.renames.map:
            self.read_latest(scope, rewriter)

        free, body, lineage = self._analyse(scope)

        # Parameters (first-use order) and cloned constants.
        captured: list[SSAValue] = []
        constants: list[SSAValue] = []
        for v in free.values:
            (constants if _is_cheap_constant(v) else captured).append(v)
        param_index = {v: i for i, v in enumerate(captured)}

        # Outputs.
        yield_op = scope.body.block.last_op
        assert isinstance(yield_op, YieldOp)
        # Segment-sized accessors decode a property on every access: read them once.
        n_deps, n_dumps, n_no_dep, _ = _segment_sizes(scope, "operandSegmentSizes")
        n_results, n_tids = _segment_sizes(scope, "resultSegmentSizes")
        all_operands = scope.operands
        scope_deps = all_operands[:n_deps]
        scope_dumps = all_operands[n_deps : n_deps + n_dumps]
        scope_no_dep = all_operands[n_deps + n_dumps : n_deps + n_dumps + n_no_dep]
        scope_cores = all_operands[n_deps + n_dumps + n_no_dep :]
        all_results = scope.results
        scope_results = all_results[:n_results]
        task_id = all_results[n_results] if n_tids else None
        out_values: list[tuple[int | None, SSAValue]] = []  # (param index | None, value)
        covered: dict[SSAValue, int] = {}  # written captured tensor -> output position
        for y in yield_op.values:
            idx = None
            if isinstance(y.type, TensorType):
                root = lineage.root(y) if y in free.defined else y
                if root in param_index and root.type == y.type:
                    idx = param_index[root]
                    covered.setdefault(root, len(out_values))
            elif y in param_index:
                idx = param_index[y]
            out_values.append((idx, y))
        for c in body.written:
            if c in param_index and c not in covered:
                covered[c] = len(out_values)
                out_values.append((param_index[c], c))

        directions = []
        for c in captured:
            if c in body.written and isinstance(c.type, TensorType):
                directions.append(ParamDirection.INOUT if c in body.read else ParamDirection.OUT)
            else:
                directions.append(ParamDirection.IN)

        no_dep_positions: list[int] = []
        for v in scope_no_dep:
            if v not in param_index:
                raise _fail(
                    self.func,
                    f"pl.at(no_dep_args=[...]) references tensor '{v.name_hint or '?'}', which is not "
                    f"captured by the scope body. Only tensors actually read or written inside "
                    f"`with pl.at(...):` can appear in no_dep_args=.",
                )
            no_dep_positions.append(param_index[v])

        # Name.
        hint = scope.name_hint.data if scope.name_hint is not None else None
        name = self.namer.choose(self.func_name, hint, self.counter, self.local_names)
        self.counter += 1

        # Move the body into the new function.
        # The body's ops leave the function (the walker does not visit them: `survey` lists
        # no op of a scope body).
        block = scope.body.detach_block(0)
        args = []
        for i, c in enumerate(captured):
            arg = block.insert_arg(c.type, i)
            if c.name_hint:
                arg.name_hint = c.name_hint
            args.append(arg)
            for op, idx in free.uses[c]:
                op.operands[idx] = arg
        first = block.first_op
        for c in constants:
            clone = _clone_constant(c.owner)  # type: ignore[arg-type]
            if first is None:
                block.add_op(clone)
            else:
                block.insert_op_before(clone, first)
            for op, idx in free.uses[c]:
                op.operands[idx] = clone.results[0]
        yielded_now = yield_op.operands  # free uses were rewired above
        returned = [
            args[idx] if idx is not None else yielded_now[pos]
            for pos, (idx, _) in enumerate(out_values)
        ]
        block.insert_op_before(ReturnOp.create(operands=returned, location=UNKNOWN_LOC), yield_op)
        block.erase_op(yield_op)  # the body is detached: it is built, not rewritten

        kind = _LEVEL_KIND.get(scope.level.data, FuncKind.INCORE)
        name_attr = StringAttr(name)
        new_func = _make_func(
            name_attr,
            [c.type for c in captured],
            [v.type for v in returned],
            kind,
            directions,
            Region(block),
        )
        self._stamp_attributes(scope, new_func, body)
        if body.defers_completion:
            new_func.attributes["deferred_completion_waiter"] = UnitAttr()
        rewriter.insert(new_func, InsertPoint.after(self.cursor))
        self.cursor = new_func

        # The call site.
        call_args = list(captured)
        dump_positions = sorted({param_index[d] for d in scope_dumps if d in param_index})
        dumps = [captured[i] for i in dump_positions]
        out_types = [v.type for v in returned]
        early = scope.allow_early_resolve is not None
        cores = scope_cores[0] if scope_cores else None
        if task_id is not None or scope_deps or early:
            call: Operation = SubmitOp(
                name, call_args, out_types, list(scope_deps), dumps, cores, allow_early_resolve=early
            )
            results = list(call.results[:-1])
            if task_id is not None:
                call.results[-1].name_hint = task_id.name_hint
                rewriter.replace_all_uses_with(task_id, call.results[-1])
            else:
                call.results[-1].name_hint = "tid"
        elif cores is not None:
            call = CallOp(name, call_args, out_types, dumps, cores)
            results = list(call.results)
        else:
            call = _make_call(name_attr, call_args, out_types, dumps)
            results = list(call.results)
        if no_dep_positions:
            call.attributes[NO_DEP_ATTR] = DenseArrayBase.from_list(i64, sorted(set(no_dep_positions)))
        if (block_dim := scope.attributes.get(BLOCK_DIM_ATTR)) is not None:
            call.attributes[BLOCK_DIM_ATTR] = block_dim  # an SPMD scope: the launch runs on N cores
        if (sync_start := scope.attributes.get(SYNC_START_ATTR)) is not None:
            call.attributes[SYNC_START_ATTR] = sync_start  # PyPTO keeps it on the dispatch
        parent_block = scope.parent_block()
        assert parent_block is not None
        rewriter.insert(call, InsertPoint.before(scope))
        for old, new in zip(scope_results, results):
            new.name_hint = old.name_hint
            rewriter.replace_all_uses_with(old, new)
        for c, pos in covered.items():
            if pos >= n_results:
                results[pos].name_hint = c.name_hint
            self.renames.set(parent_block, c, results[pos])
        rewriter.erase(scope)
        self.outlined += 1

    def read_latest(self, op: Operation, rewriter: PatternRewriter) -> None:
        """Operands of `op` naming a tensor an earlier scope wrote read the call's result."""
        rmap = self.renames.map
        operands = op.operands
        changed = False
        for i, v in enumerate(operands):
            if v in rmap:
                operands[i] = self.renames.resolve(v)
                changed = True
        if changed:
            rewriter.notify_op_modified(op)

    def _stamp_attributes(self, scope: IncoreScopeOp, func: FuncOp, body: _BodyAnalysis) -> None:
        attrs: dict[str, Attribute] = {}
        if scope.split is not None:
            attrs["split"] = SplitModeAttr(scope.split.data)
        if scope.slot_num is not None:
            attrs["slot_num"] = IntegerAttr(scope.slot_num.value.data, 64)
        if body.split_aiv_modes:
            attrs["split_aiv"] = UnitAttr()
            modes = set(body.split_aiv_modes)
            if len(modes) == 1 and SplitMode.NONE not in modes:
                attrs["split"] = SplitModeAttr(next(iter(modes)))
        if attrs:
            func.attributes |= attrs


class OutlineIncoreScopePattern(RewritePattern):
    """Outlines a `pypto.incore_scope` of the function being walked (see the module
    docstring) and, on every later op of the function, reads the latest version of the
    captured tensors earlier scopes wrote (the call results returning them)."""

    def __init__(self, outliner: _FunctionOutliner):
        self.outliner = outliner

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        outliner = self.outliner
        if outliner.failed is not None or not outliner.renames.enter(op):
            return
        if type(op) is IncoreScopeOp:
            try:
                outliner.outline(op, rewriter)
            except PassFailedException as e:
                # Raised by the pass after the walk, not through the walker (which would
                # attach a dump of the whole module to the diagnostic).
                outliner.failed = e
        elif outliner.renames.map:
            outliner.read_latest(op, rewriter)


# --------------------------------------------------------------------------- checks


def enclosing_scope(op: Operation, stop: Operation) -> IncoreScopeOp | None:
    """The innermost incore scope around `op`, searching no further out than `stop`."""
    parent = op.parent_op()
    while parent is not None and parent is not stop:
        if isinstance(parent, IncoreScopeOp):
            return parent
        parent = parent.parent_op()
    return None


@dataclass
class _Survey:
    """One walk of a function: its scopes, and the ops the pattern has to visit."""

    scopes: list[IncoreScopeOp]
    visit: list[Operation]
    """In program order: the scopes, and the ops outside scopes with a tensor operand (only
    those can read a tensor an earlier scope wrote)."""


def survey(func: FuncOp) -> _Survey:
    """Walk `func` once; raise PassFailedException for nested or misplaced scopes, a scope
    combining split(...) with pypto.split_aiv regions, and a deferred waiter (a scope
    registering pypto.system.defer_wait conditions) that breaks the waiter contract
    (`pypto_xdsl.analysis.deferred_wait`)."""
    scopes: list[IncoreScopeOp] = []
    # The scopes and the ops outside scopes that take a tensor, in program order. (A set of
    # the values the scopes use would be a tighter filter, but costs a hash per operand of
    # every scope body, more than visiting a few extra orchestration ops.)
    visit: list[Operation] = []
    waiters: list[IncoreScopeOp] = []
    # Pre-order with a stack of block iterators (no recursion, constant cost per op).
    stack: list[Iterator[Operation]] = [iter(func.body.block.ops)]
    while stack:
        for op in stack[-1]:
            if type(op) is IncoreScopeOp:
                if func.func_kind in INCORE_KINDS:
                    raise _fail(
                        func,
                        f"pypto.incore_scope inside {func.func_kind.value} function: an InCore "
                        f"function already runs on a core, so its scopes cannot be outlined "
                        f"(only opaque, orchestration and graph functions hold incore scopes)",
                    )
                scopes.append(op)
                visit.append(op)
                regions = waits = False
                for inner in walk_ops(op.body):
                    cls = type(inner)
                    if cls is IncoreScopeOp:
                        raise _fail(
                            func,
                            "nested InCore scope detected: InCore scopes must not contain other "
                            "InCore scopes (pypto.incore_scope inside pypto.incore_scope)",
                        )
                    if cls is SplitAivOp:
                        regions = True
                    elif cls is DeferWaitOp:
                        waits = True
                if regions and op.split is not None:
                    raise _fail(func, SPLIT_AIV_EXCLUSIVE_MESSAGE.format(split=op.split.data.value))
                if waits:
                    waiters.append(op)
                continue  # the body was walked above
            for v in op.operands:
                if isinstance(v.type, TensorType):
                    visit.append(op)
                    break
            if op.regions:
                # Walk the nested blocks, in order, before the rest of this block.
                blocks = [b for region in op.regions for b in region.blocks]
                stack.extend(iter(b.ops) for b in reversed(blocks))
                break
        else:
            stack.pop()
    for scope in waiters:
        if scope.allow_early_resolve is not None:
            raise _fail(func, deferred_wait.EARLY_RESOLVE)
        error = deferred_wait.deferred_waiter_errors(scope.body.block)
        if error is not None:
            raise _fail(func, error)
    return _Survey(scopes, visit if scopes else [])


def check_outlinable(func: FuncOp) -> list[IncoreScopeOp]:
    """The scopes of `func`, after the checks of `survey`."""
    return survey(func).scopes


# --------------------------------------------------------------------------- passes


@dataclass(frozen=True)
class OutlineIncoreScopesPass(ModulePass):
    """Outline every `pypto.incore_scope` of opaque/orchestration functions."""

    name = "outline-incore-scopes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        with paused_gc():
            outline_incore_scopes(op)


def outline_incore_scopes(module: ModuleOp) -> int:
    """Outline every scope of `module` (see the module docstring); return how many.

    Raises PassFailedException, before changing anything, for a nested scope, a scope in
    an InCore-kind function, or a scope combining split(...) with pypto.split_aiv regions.
    """
    work: list[tuple[FuncOp, _Survey]] = []
    for func in module.body.block.ops:
        if not isinstance(func, FuncOp):
            continue
        found = survey(func)
        if found.scopes and (func.func_kind == FuncKind.OPAQUE or func.func_kind in ORCHESTRATION_LIKE_KINDS):
            work.append((func, found))
    if not work:
        return 0
    namer = _Namer(_symbol_names(module))
    total = 0
    for func, found in work:
        outliner = _FunctionOutliner(module, func, namer, cursor=func)
        walker = FlatPatternRewriteWalker(
            OutlineIncoreScopePattern(outliner), apply_recursively=False, only=found.visit
        )
        walker.rewrite_region(func.body)
        if outliner.failed is not None:
            raise outliner.failed
        total += outliner.outlined
        if outliner.outlined and func.func_kind == FuncKind.OPAQUE:
            func.set_kind(FuncKind.ORCHESTRATION)  # orchestration and graph keep their kind
    invalidate(module)
    return total
