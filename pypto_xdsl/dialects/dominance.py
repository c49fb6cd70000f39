"""SSA dominance and region scoping, verified in one linear walk.

xDSL 0.74 checks neither: it accepts a value used before its definition in a block, a loop's
block argument used after the loop, a value of one region used in a sibling region. MLIR's
rule: in a region with SSA semantics, every use must be dominated by its definition — an
earlier op of the same block, an argument of the block, or (across blocks) a definition in a
dominating block — or by a definition in an enclosing region; an op's own results are not
visible inside its regions.

`verify_dominance(op)` walks `op`'s regions once, keeping the set of values visible at the
current point: a block's arguments, then each op's results once the op (and its regions)
are done; a block's values leave the set when the walk leaves the block (in a multi-block
region, when it leaves the block's subtree of the dominator tree). Each value enters and
leaves once and each operand is looked up once, so the walk is linear in the size of the IR
and iterative (no recursion, whatever the nesting depth).

`IsolatedFromAboveAndDominance` is xDSL's `IsolatedFromAbove` trait verified by this walk:
starting from an empty visible set, a value defined outside the op is not visible inside it,
so the walk checks isolation too — in linear time, where xDSL's check walks the parents of
each operand's owner. `pypto.func` carries it, so every `verify()` of a pypto program checks
dominance.

The walk also runs the checks of upstream ops that MLIR's verifiers make and xDSL 0.74's do
not (`UPSTREAM_CHECKS`), which would otherwise need a walk of their own.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.traits import IsolatedFromAbove

from pypto_xdsl.dialects.verification import OpVerifyException

# Frame kinds of the walk's explicit stack; frames are lists, `_BLOCK` frames are resumed.
_START = 0  # [kind, block, dominator tree | None]: make the block's arguments visible, walk it
_BLOCK = 1  # [kind, block, next op, ids defined so far, dominator tree | None]
_RESULTS = 2  # [kind, op, ids of the op's block]: the op's regions are done
_LEAVE = 3  # [kind, ids]: remove them from the visible set
_ENTER = 4  # [kind, ids]: add them to the visible set
_KEEP: dict = {}  # the "dominator tree" of unreachable blocks: their values stay visible


def verify_dominance(root: Operation) -> None:
    """Raise `OpVerifyException` (naming the using op) at the first use in `root`'s regions
    whose definition does not dominate it or is not in scope. Ops nested in `root` that
    carry `IsolatedFromAboveAndDominance` are skipped (they verify themselves); other ops
    isolated from above are checked as separate roots."""
    # Values are kept by id: SSAValue.__hash__ is a Python method, id() is not.
    visible: set[int] = set()
    stack: list[list] = []
    _push_regions(root, stack)
    checks = _CHECKS
    add = visible.add
    while stack:
        frame = stack[-1]
        kind = frame[0]
        if kind == _BLOCK:
            op, defined = frame[2], frame[3]
            while op is not None:
                for operand in op._operands:  # pyright: ignore[reportPrivateUsage]
                    if id(operand) not in visible:
                        raise _dominance_error(op, operand, root)
                if (check := checks[op.__class__]) is not None:
                    check(op)
                if op.regions:
                    trait = op.get_trait(IsolatedFromAbove)
                    if trait is None:
                        frame[2] = op._next_op  # pyright: ignore[reportPrivateUsage]
                        stack.append([_RESULTS, op, defined])
                        _push_regions(op, stack)
                        break
                    if not isinstance(trait, IsolatedFromAboveAndDominance):
                        verify_dominance(op)
                for result in op.results:
                    add(i := id(result))
                    defined.append(i)
                op = op._next_op  # pyright: ignore[reportPrivateUsage]
            else:
                stack.pop()
                tree = frame[4]
                if tree is _KEEP:
                    continue
                children = tree.get(id(frame[1])) if tree is not None else None
                if children:
                    stack.append([_LEAVE, defined])
                    for child in reversed(children):
                        stack.append([_START, child, tree])
                else:
                    visible.difference_update(defined)
        elif kind == _START:
            stack.pop()
            block = frame[1]
            defined = [id(a) for a in block._args]  # pyright: ignore[reportPrivateUsage]
            visible.update(defined)
            stack.append([_BLOCK, block, block.first_op, defined, frame[2]])
        elif kind == _RESULTS:
            stack.pop()
            defined = frame[2]
            for result in frame[1].results:
                add(i := id(result))
                defined.append(i)
        elif kind == _LEAVE:
            stack.pop()
            visible.difference_update(frame[1])
        else:
            stack.pop()
            visible.update(frame[1])


def _push_regions(op: Operation, stack: list[list]) -> None:
    """Frames for `op`'s regions, the first on top (walked first)."""
    for region in reversed(op.regions):
        first = region.first_block
        if first is None:
            continue
        if first.next_block is None:
            stack.append([_START, first, None])
        else:
            _push_cfg_region(region, stack)


def _push_cfg_region(region: Region, stack: list[list]) -> None:
    """A multi-block region: blocks in dominator-tree preorder, so a block's values are
    visible in the blocks it dominates. A use in an unreachable block is dominated by
    everything (as in MLIR) and needs only be in scope: those blocks are walked last, with
    every value defined at the top level of the region visible."""
    blocks = list(region.blocks)
    tree = _dominator_tree(blocks)
    reachable = {id(b) for b in _preorder(blocks[0], tree)}
    unreachable = [b for b in blocks if id(b) not in reachable]
    if unreachable:
        everything = [id(v) for b in blocks for v in (*b.args, *(r for op in b.ops for r in op.results))]
        stack.append([_LEAVE, everything])
        for block in reversed(unreachable):
            stack.append([_START, block, _KEEP])
        stack.append([_ENTER, everything])
    stack.append([_START, blocks[0], tree])


def _successors(block: Block) -> tuple[Block, ...]:
    last = block.last_op
    return tuple(last.successors) if last is not None else ()


def _preorder(entry: Block, children: dict[int, list[Block]]) -> list[Block]:
    order, todo = [], [entry]
    while todo:
        block = todo.pop()
        order.append(block)
        todo.extend(reversed(children.get(id(block), ())))
    return order


def _dominator_tree(blocks: list[Block]) -> dict[int, list[Block]]:
    """Children of each reachable block in the dominator tree (Cooper, Harvey and Kennedy's
    iterative algorithm over reverse postorder), keyed by `id(block)`."""
    entry = blocks[0]
    postorder: list[Block] = []
    seen = {id(entry)}
    todo: list[tuple[Block, int]] = [(entry, 0)]
    while todo:
        block, i = todo.pop()
        succs = _successors(block)
        if i < len(succs):
            todo.append((block, i + 1))
            nxt = succs[i]
            if id(nxt) not in seen and nxt.parent is block.parent:
                seen.add(id(nxt))
                todo.append((nxt, 0))
        else:
            postorder.append(block)
    number = {id(b): n for n, b in enumerate(postorder)}
    preds: dict[int, list[Block]] = {id(b): [] for b in postorder}
    for b in postorder:
        for s in _successors(b):
            if id(s) in preds:
                preds[id(s)].append(b)
    idom: dict[int, Block] = {id(entry): entry}
    changed = True
    while changed:
        changed = False
        for b in reversed(postorder):
            if b is entry:
                continue
            new = None
            for p in preds[id(b)]:
                if id(p) not in idom:
                    continue
                if new is None:
                    new = p
                    continue
                a, c = p, new
                while a is not c:
                    while number[id(a)] < number[id(c)]:
                        a = idom[id(a)]
                    while number[id(c)] < number[id(a)]:
                        c = idom[id(c)]
                new = a
            if new is not None and idom.get(id(b)) is not new:
                idom[id(b)] = new
                changed = True
    children: dict[int, list[Block]] = {}
    for b in reversed(postorder):  # reverse postorder: children in textual-ish order
        if b is not entry:
            children.setdefault(id(idom[id(b)]), []).append(b)
    return children


# --------------------------------------------------------------------------- diagnostics


def _describe(value: SSAValue) -> str:
    return f"%{value.name_hint}" if value.name_hint else "a value"


def _dominance_error(user: Operation, value: SSAValue, root: Operation) -> OpVerifyException:
    index = next(i for i, o in enumerate(user.operands) if o is value)
    what = f"operand #{index} ({_describe(value)})"
    if not isinstance(value, OpResult | BlockArgument):
        return OpVerifyException(user, f"{what} is never defined")
    owner = value.op if isinstance(value, OpResult) else value.block
    if not root.is_ancestor(owner if isinstance(owner, Operation) else owner.parent_op() or root):
        return OpVerifyException(
            user,
            f"{what} is defined outside '{root.name}'{_symbol(root)}, which is isolated from above",
        )
    if isinstance(value, OpResult) and value.op is user:
        return OpVerifyException(user, f"{what} is a result of the op itself")
    if isinstance(value, OpResult) and value.op.is_ancestor(user):
        return OpVerifyException(
            user, f"{what} is a result of the enclosing '{value.op.name}', not visible inside its regions"
        )
    block = value.block if isinstance(value, BlockArgument) else value.op.parent_block()
    if block is not None and not _block_encloses(block, user):
        owner_op = block.parent_op()
        where = f"'{owner_op.name}'" if owner_op is not None else "another region"
        return OpVerifyException(
            user, f"{what} is defined inside a region of {where} that does not enclose this use"
        )
    return OpVerifyException(user, f"{what} is used before its definition (its definition does not dominate this use)")


def _block_encloses(block: Block, op: Operation) -> bool:
    current: Operation | None = op
    while current is not None:
        if current.parent is block:
            return True
        parent = current.parent
        region = parent.parent if parent is not None else None
        if region is not None and region is block.parent:
            return False  # same region, other block: a dominance question, not scoping
        current = current.parent_op()
    return False


def _symbol(op: Operation) -> str:
    name = op.properties.get("sym_name") or op.attributes.get("sym_name")
    return f" @{name.data}" if name is not None and hasattr(name, "data") else ""


# --------------------------------------------------------------------------- upstream checks


def _check_index_constant(op: arith.ConstantOp) -> None:
    value = op.value
    if isinstance(value, IntegerAttr) and isinstance(value.type, IndexType):
        if not -(2**63) <= value.value.data < 2**63:
            raise OpVerifyException(op, f"integer {value.value.data} is out of the range of index (64-bit signed)")


def _constant_int(value: SSAValue) -> int | None:
    if isinstance(value, OpResult) and isinstance(value.op, arith.ConstantOp):
        attr = value.op.value
        if isinstance(attr, IntegerAttr):
            return attr.value.data
    return None


def _check_for_step(op: scf.ForOp) -> None:
    step = _constant_int(op.step)
    if step is not None and step <= 0:
        raise OpVerifyException(op, f"constant step operand must be positive, got {step}")


def _check_if_yields(op: scf.IfOp) -> None:
    """Each region yields the op's result types (xDSL lets `else {}` yield nothing)."""
    want = op.result_types
    for name, region in (("then", op.true_region), ("else", op.false_region)):
        block = region.first_block
        last = block.last_op if block is not None else None
        if block is None:
            if want:
                raise OpVerifyException(
                    op, f"an scf.if with results needs an else region yielding {_types(want)}"
                )
            continue
        if isinstance(last, scf.YieldOp) and last.operand_types != want:
            raise OpVerifyException(
                op, f"the {name} region yields {_types(last.operand_types)} but the scf.if has results {_types(want)}"
            )


def _types(types) -> str:
    return "(" + ", ".join(str(t) for t in types) + ")"


def _check_constant_window(op: Operation) -> None:
    """A window at constant offsets lies inside the static extents it is taken from.

    The op's container is the operand its offsets follow (`OFFSETS_AFTER`); the window has the
    shape of its other shaped operand (a stored tile, an assembled tensor), else of its result
    when the result is a new value (a load, a slice) rather than a name of the container's
    storage (`RESULT_LIKE` the container), else it is one element (a read, a write)."""
    from pypto_xdsl.dialects import tile
    from pypto_xdsl.dialects.attributes import TensorType, TileType, format_shape

    if isinstance(op, tile.StoreOp):
        # PyPTO's store writes a partial tile's valid block, which may be smaller than the
        # tile: the run time checks it (the interpreter, the kernel lowering's valid shapes)
        if tile.maybe_partial(op.tile):
            return
        window, dest = op.tile.type.get_shape(), op.dest.type  # type: ignore[union-attr]
        if len(window) == dest.rank and any(  # type: ignore[union-attr]
            isinstance(w, int) and isinstance(d, int) and w > d for w, d in zip(window, dest.get_shape())  # type: ignore[union-attr]
        ):
            raise OpVerifyException(op, f"store: window {format_shape(list(window))} exceeds {dest}")
    cls = type(op)
    after = cls.OFFSETS_AFTER  # pyright: ignore[reportAttributeAccessIssue]
    # OFFSETS_AFTER and RESULT_LIKE count operands in syntax order (`OPERANDS`), which may
    # differ from definition order (tensor.assemble is (dest, source) but reads `source into dest`)
    names = getattr(cls, "OPERANDS", ())
    syntax = [getattr(op, n) for n in names] if names else list(op.operands)
    container = syntax[after].type
    offset_values = getattr(op, "offsets", None)
    if offset_values is None:
        at = list(op.operands).index(syntax[after])
        offset_values = [o for o in op.operands[at + 1 :] if isinstance(o.type, IndexType)]
    offsets = [_constant_int(o) for o in offset_values]
    if not isinstance(container, TensorType | TileType) or all(o is None for o in offsets):
        return
    extents = container.get_shape()
    shaped = TensorType | TileType
    window = next((o.type for o in syntax[:after] if isinstance(o.type, shaped)), None)
    if window is None and op.results and isinstance(result := op.results[0].type, shaped):
        names_container = result == container and getattr(cls, "RESULT_LIKE", None) == after
        window = None if names_container else result
    sizes = window.get_shape() if window is not None else (1,) * len(extents)
    valid = getattr(op, "valid_shape", None)
    if valid:  # a partial load reads only its valid block (run-time extents are not checked)
        sizes = tuple(_constant_int(v) for v in valid)
    if len(offsets) != len(extents) or len(sizes) != len(extents):
        return  # the op's own verifier reports the rank mismatch
    for offset, size, extent in zip(offsets, sizes, extents):
        if offset is None:
            continue
        if offset < 0 or (isinstance(size, int) and isinstance(extent, int) and offset + size > extent):
            shown = [o if o is not None else "?" for o in offsets]
            window_shape = format_shape([d if d is not None else "?" for d in sizes])
            what = f"the window {window_shape} at offsets" if window is not None else "the element at"
            raise OpVerifyException(
                op, f"{what} {shown} is out of the bounds {format_shape(list(extents))} of {container}"
            )


UPSTREAM_CHECKS: dict[type[Operation], Callable[[Operation], None]] = {
    arith.ConstantOp: _check_index_constant,  # pyright: ignore[reportAssignmentType]
    scf.ForOp: _check_for_step,  # pyright: ignore[reportAssignmentType]
    scf.IfOp: _check_if_yields,  # pyright: ignore[reportAssignmentType]
}
"""Checks of upstream ops run by the walk (MLIR verifies them; xDSL 0.74 does not)."""


class _ChecksByClass(dict):
    """The walk's check of each op class (None for most): `UPSTREAM_CHECKS`, and the window
    check of the ops taking offsets, which reads the constants defining them — something the
    ops' own verifiers, memoised on operand types (`pypto_op_definition`), cannot do."""

    def __missing__(self, cls: type[Operation]) -> Callable[[Operation], None] | None:
        check = UPSTREAM_CHECKS.get(cls)
        if check is None and getattr(cls, "OFFSETS_AFTER", None) is not None:
            check = _check_constant_window
        self[cls] = check
        return check


_CHECKS = _ChecksByClass()


class IsolatedFromAboveAndDominance(IsolatedFromAbove):
    """`IsolatedFromAbove`, verified with SSA dominance and region scoping in one linear walk."""

    def verify(self, op: Operation) -> None:
        verify_dominance(op)
