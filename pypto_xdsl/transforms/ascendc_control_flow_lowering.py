"""Structured control flow in the kernel lowering (a mixin of `KernelLowering` in
ascendc_kernel_lowering.py): `scf.for`/`if`/`while` become the same ops over C++ scalars only.
Tiles carried through a region stay in one fixed buffer that every iteration copies into (an
accumulator is updated in place); carried tensors must keep naming the same storage."""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.builder import Builder
from xdsl.dialects import scf
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from pypto_xdsl.analysis.cxx_names import BackendError, ctype, op_error
from pypto_xdsl.dialects.attributes import MemorySpace, TaskIdType, TensorType, TileType

if TYPE_CHECKING:
    from pypto_xdsl.transforms.ascendc_kernel_lowering import KernelLowering

    _Base = KernelLowering
else:
    _Base = object


class ControlFlowLowering(_Base):
    """Mixin of KernelLowering: scf regions and the values they carry."""

    def _carried_kind(self, op: Operation, t: Attribute) -> str:
        if isinstance(t, TileType):
            if t.space not in (MemorySpace.VEC, MemorySpace.ACC):
                raise op_error(op, f"tile {t} cannot be carried: only 'vec' and 'acc' tiles are supported")
            return "tile"
        if isinstance(t, TensorType):
            return "tensor"
        try:
            if isinstance(t, TaskIdType):
                raise BackendError("task id")
            ctype(t)
        except BackendError:
            raise op_error(op, f"values of type {t} cannot be carried through scf regions") from None
        return "scalar"

    def _bind_carried_tile(self, op: Operation, result: SSAValue, arg: SSAValue | None, init: SSAValue | None) -> None:
        if result.type.space == MemorySpace.ACC:  # type: ignore[attr-defined]
            # The accumulator stays in its CO1 buffer: the loop updates it in place (matmul_acc).
            if init is None or arg is None:
                raise op_error(op, "accumulator tiles cannot be yielded from scf.if")
            if any(u.operation is not op for u in init.uses):
                raise op_error(op, "an accumulator carried by scf.for cannot be used after the loop starts")
            self.tiles[result] = self.tiles[arg] = self.tiles[init]
            return
        existing = self.tiles.get(result)
        if existing is not None:
            # scf.while: its results and 'after' arguments name the tile its 'before' arguments carry
            if arg is not None:
                self.tiles[arg] = existing
            return
        ref = self.def_tile(result, op)
        if arg is not None:
            self.tiles[arg] = ref
        if init is not None:
            self.copy_tile(ref, self.tiles[init])

    def _assign_carried_tile(self, op: Operation, result: SSAValue, value: SSAValue, shifted: bool = False) -> None:
        """Copy `value` into `result`'s carried buffer. `shifted`: `value` is a carried value
        whose own buffer is assigned later in the same yield (a shift register, as
        pipeline-cross-core-loops carries α over two iterations), so it still holds it."""
        info, src = self.tiles[result], self.tiles[value]
        if src is info:
            return
        if result.type.space == MemorySpace.ACC:  # type: ignore[attr-defined]
            raise op_error(op, "a carried accumulator must be updated in place (yield its matmul_acc result)")
        if src.buffer.fixed and isinstance(value, BlockArgument) and not shifted:
            raise op_error(op, "yielding one carried tile in place of another (a swap) is not supported")
        self.copy_tile(info, src)

    def _assign_yield(self, op: Operation, kinds: list[str], results: list[SSAValue], yielded, carried) -> list[SSAValue]:
        """Copy yielded tiles into their carried buffers (in order), check yielded tensors;
        return the scalars the new terminator yields."""
        scalars: list[SSAValue] = []
        position = {v: i for i, v in enumerate(carried)}
        for i, (kind, res, value, into) in enumerate(zip(kinds, results, yielded, carried)):
            if kind == "tile":
                self._assign_carried_tile(op, res, value, shifted=position.get(value, -1) > i)
            elif kind == "tensor":
                if self.tensor_root(value) != self.tensor_root(into):
                    raise op_error(
                        op, "a tensor yielded from a region must name the same storage as the value it replaces "
                        "(write through the carried tensor)",
                    )
            elif kind == "scalar":
                scalars.append(self.scalar(value))
        return scalars

    def _in_block(self, block: Block, body) -> None:
        outer = self.builder
        self.builder = Builder(InsertPoint.at_end(block))
        try:
            body()
        finally:
            self.builder = outer

    def lower_for(self, op: scf.ForOp) -> None:
        lb, ub, step = self.scalar(op.lb), self.scalar(op.ub), self.scalar(op.step)
        body = op.body.block
        args = list(body.args[1:])
        kinds = [self._carried_kind(op, r.type) for r in op.res]
        scalar_inits: list[SSAValue] = []
        scalar_types: list[Attribute] = []
        for kind, init, res, arg in zip(kinds, op.iter_args, op.res, args):
            if kind == "tensor":
                self.views[arg] = self.views[res] = self.tensor_root(init)
            elif kind == "tile":
                self._bind_carried_tile(op, res, arg, init)
            else:
                scalar_inits.append(self.scalar(init))
                scalar_types.append(res.type)
        new_block = Block(arg_types=[body.args[0].type, *scalar_types])
        new_block.args[0].name_hint = body.args[0].name_hint
        self.values[body.args[0]] = new_block.args[0]
        new_args = iter(new_block.args[1:])
        for kind, arg in zip(kinds, args):
            if kind == "scalar":
                a = next(new_args)
                a.name_hint = arg.name_hint
                self.values[arg] = a
        loop = scf.ForOp(lb, ub, step, scalar_inits, Region(new_block))

        def lower_body() -> None:
            for inner in body.ops:
                if isinstance(inner, scf.YieldOp):
                    scalars = self._assign_yield(op, kinds, list(op.res), list(inner.operands), args)
                    self.free_after(inner)
                    self._insert(scf.YieldOp(*scalars))
                else:
                    self.lower_op(inner)

        self._in_block(new_block, lower_body)
        self._insert(loop)
        self._bind_scalar_results(kinds, op.res, loop.results)

    def _bind_scalar_results(self, kinds, old_results, new_results) -> None:
        """The new op returns only the carried scalars (tiles stay in their buffers): map each
        old scalar result to its new one, in order."""
        scalars = iter(new_results)
        for kind, res in zip(kinds, old_results):
            if kind == "scalar":
                r = next(scalars)
                r.name_hint = res.name_hint
                self.values[res] = r

    def lower_if(self, op: scf.IfOp) -> None:
        cond = self.scalar(op.cond)
        kinds = [self._carried_kind(op, r.type) for r in op.output]
        scalar_types = []
        for kind, res in zip(kinds, op.output):
            if kind == "tile":
                self._bind_carried_tile(op, res, None, None)
            elif kind == "scalar":
                scalar_types.append(res.type)
        regions = []
        branches = [op.true_region] + ([op.false_region] if op.false_region.blocks else [])
        for k, region in enumerate(branches):
            new_block = Block()
            block = region.block

            def lower_branch(block=block, k=k) -> None:
                for inner in block.ops:
                    if isinstance(inner, scf.YieldOp):
                        for kind, value, res in zip(kinds, inner.operands, op.output):
                            if kind != "tensor":
                                continue
                            if k == 0:
                                self.views[res] = self.tensor_root(value)
                            elif self.tensor_root(value) != self.tensor_root(res):
                                raise op_error(op, "both branches must yield tensors naming the same storage")
                        scalars = self._assign_yield(op, kinds, list(op.output), list(inner.operands), list(op.output))
                        self.free_after(inner)
                        self._insert(scf.YieldOp(*scalars))
                    else:
                        self.lower_op(inner)

            self._in_block(new_block, lower_branch)
            regions.append(Region(new_block))
        if len(regions) == 1:
            regions.append(Region())
        new_if = scf.IfOp(cond, scalar_types, regions[0], regions[1])
        self._insert(new_if)
        self._bind_scalar_results(kinds, op.output, new_if.results)

    def lower_while(self, op: scf.WhileOp) -> None:
        before, after = op.before_region.block, op.after_region.block
        cond_op = before.last_op
        assert isinstance(cond_op, scf.ConditionOp)
        carried = [self._carried_kind(op, a.type) for a in before.args]
        scalar_inits, scalar_before_types = [], []
        for k, (kind, init, arg) in enumerate(zip(carried, op.arguments, before.args)):
            if kind == "tensor":
                self.views[arg] = self.tensor_root(init)
            elif kind == "tile":
                if k >= len(op.res) or op.res[k].type != arg.type:
                    raise op_error(op, f"the tile carried at position {k} must be forwarded to the loop result at position {k}")
                self._bind_carried_tile(op, op.res[k], arg, init)
            else:
                scalar_inits.append(self.scalar(init))
                scalar_before_types.append(arg.type)
        forwarded = [self._carried_kind(op, r.type) for r in op.res]
        scalar_result_types = []
        for k, (kind, res, arg) in enumerate(zip(forwarded, op.res, after.args)):
            if kind == "tile":
                if k >= len(before.args) or before.args[k].type != res.type:
                    raise op_error(op, f"the tile forwarded to position {k} must be carried at position {k}")
                self._bind_carried_tile(op, res, arg, None)
            elif kind == "scalar":
                scalar_result_types.append(res.type)
        carried_roots = [self.tensor_root(a) for a, kind in zip(before.args, carried) if kind == "tensor"]
        new_before = Block(arg_types=scalar_before_types)
        it = iter(new_before.args)
        for kind, arg in zip(carried, before.args):
            if kind == "scalar":
                a = next(it)
                a.name_hint = arg.name_hint
                self.values[arg] = a
        new_after = Block(arg_types=scalar_result_types)
        it = iter(new_after.args)
        for kind, arg in zip(forwarded, after.args):
            if kind == "scalar":
                a = next(it)
                a.name_hint = arg.name_hint
                self.values[arg] = a

        def lower_before() -> None:
            for inner in before.ops:
                if inner is not cond_op:
                    self.lower_op(inner)
                    continue
                for kind, value, res, arg in zip(forwarded, cond_op.args, op.res, after.args):
                    if kind == "tensor":
                        if self.tensor_root(value) not in carried_roots:
                            raise op_error(
                                op, "a tensor forwarded by scf.condition must name the storage of one of the "
                                "loop's carried tensors"
                            )
                        self.views[res] = self.views[arg] = self.tensor_root(value)
                scalars = self._assign_yield(op, forwarded, list(op.res), list(cond_op.args), list(op.res))
                self.free_after(cond_op)
                self._insert(scf.ConditionOp(self.scalar(cond_op.condition), *scalars))

        def lower_after() -> None:
            for inner in after.ops:
                if isinstance(inner, scf.YieldOp):
                    scalars = self._assign_yield(op, carried, list(before.args), list(inner.operands), list(before.args))
                    self.free_after(inner)
                    self._insert(scf.YieldOp(*scalars))
                else:
                    self.lower_op(inner)

        self._in_block(new_before, lower_before)
        self._in_block(new_after, lower_after)
        loop = scf.WhileOp(scalar_inits, scalar_result_types, Region(new_before), Region(new_after))
        self._insert(loop)
        it = iter(loop.results)
        for kind, res in zip(forwarded, op.res):
            if kind == "scalar":
                r = next(it)
                r.name_hint = res.name_hint
                self.values[res] = r
