"""`ascendc` declarations, local tensors and data movement.

Declarations (at the top of a kernel, in this order when printed): `global_tensor`,
`block_workspace`, `tpipe`, `tque`, `tbuf`, `init_buffer`. Local tensors: `alloc_tensor`,
`get_buf`, `enque`, `deque`, `deque_head`, `free_tensor`, `at` (`t[64]`, `x_gm[i * 128]`) and
`reinterpret_cast` (`t.ReinterpretCast<uint32_t>()`), C++ expressions printed where they are used. Copies: `data_copy` (count, `DataCopyParams` or
parameter-struct form) and `data_copy_pad`. Parameter structs: `params`.

Ops that declare a C++ variable carry its `name` ("t" in `%t = ascendc.alloc_tensor "t" %q`):
the kernel printer prints names verbatim, so the IR decides them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects import scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    Float16Type,
    Float32Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import OpTrait, Pure
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects.ascendc_format import (
    BOOLS_INTS,
    INT,
    INTS,
    AscendCFormat,
    check_ints,
    check_positive,
    int_prop,
    ints_prop,
    prop_int,
    prop_ints,
)
from pypto_xdsl.dialects.ascendc_types import (
    BOOL_FIELDS,
    ENUM_FIELDS,
    PARAM_STRUCTS,
    BufferType,
    GlobalTensorType,
    GmAddrType,
    LocalTensorType,
    ParamsType,
    PipeType,
    QueueType,
    TPosition,
)


class UsesReservedUb(OpTrait):
    """The API uses hidden UB scratch at TMP_UB_OFFSET on dav-c220 (`__ASC_USE_RESERVED_UBUF__(2201)`)."""


def uses_reserved_ub(op: Operation) -> bool:
    return op.has_trait(UsesReservedUb)


class Expression(OpTrait):
    """The op is a C++ expression: it prints where its result is used, not as a statement."""


class Declaration(OpTrait):
    """A kernel-level declaration (printed before the body)."""


def tensor_element(t: Attribute) -> Attribute | None:
    return t.element_type if isinstance(t, LocalTensorType | GlobalTensorType) else None


def _same_element(op: Operation, values: Sequence[SSAValue]) -> None:
    elems = {tensor_element(v.type) for v in values}
    if len(elems) != 1 or None in elems:
        raise VerifyException(f"{op.name} operands must be tensors of one element type, got " + ", ".join(str(v.type) for v in values))


# --------------------------------------------------------------------------- declarations


@irdl_op_definition
class GlobalTensorOp(AscendCFormat, IRDLOperation):
    """`GlobalTensor<T> name; name.SetGlobalBuffer((__gm__ T*)addr, size);` (`offset`: at
    `addr + offset` bytes). With extents (run-time dimensions, a kernel's dimension
    parameters), the buffer holds their product times `size` elements: `size` is then the
    product of the static dimensions."""

    name = "ascendc.global_tensor"
    addr = operand_def(GmAddrType)
    extents = var_operand_def(IndexType)
    var = prop_def(StringAttr, prop_name="name")
    size = prop_def(IntegerAttr)
    offset = opt_prop_def(IntegerAttr)
    comment = opt_prop_def(StringAttr)
    result = result_def(GlobalTensorType)
    traits = traits_def(Declaration())

    FORMAT_NAMED: ClassVar[bool] = True
    FORMAT_KEYWORDS: ClassVar[tuple] = (("offset", "offset", INT, None), ("size", "size", INT, None))

    def __init__(self, name: str, addr: SSAValue, element_type: Attribute, size: int, offset: int | None = None,
                 comment: str | None = None, extent: SSAValue | Sequence[SSAValue] | None = None):
        props: dict[str, Attribute] = {"name": StringAttr(name), "size": int_prop(size)}
        if offset is not None:
            props["offset"] = int_prop(offset)
        if comment is not None:
            props["comment"] = StringAttr(comment)
        extents = [] if extent is None else [extent] if isinstance(extent, SSAValue) else list(extent)
        super().__init__(operands=[addr, extents], properties=props,
                         result_types=[GlobalTensorType(element_type)])

    def verify_(self) -> None:
        check_positive(self, "size")
        if (off := prop_int(self, "offset")) is not None and off < 0:
            raise VerifyException(f"{self.name}: 'offset' is a byte offset, not negative: {off}")
        part = self.addr.owner
        if isinstance(part, BlockWorkspaceOp) and not self.extents:
            # the blocks of a launch run at once, each in its part of the workspace: bytes past
            # the end of this block's part are the next block's
            end = (off or 0) + prop_int(self, "size") * self.result.type.element_bytes  # type: ignore[union-attr, operator]
            if end > part.part_bytes:
                raise VerifyException(
                    f"{self.name}: global tensor '{self.var.data}' ends at byte {end} of a block's part of the workspace, which has "
                    f"{part.part_bytes} bytes: the rest is the next block's part, which that block uses at the same time"
                )


@irdl_op_definition
class BlockWorkspaceOp(AscendCFormat, IRDLOperation):
    """`GM_ADDR name = workspace + AscendC::GetBlockIdx() * bytes;`: this block's part of the
    launch's workspace (kernel-local GM tensors). With `task_ratio 2` (the AIV member of a
    KERNEL_TYPE_MIX_AIC_1_2 kernel: two vector cores per block) the block is
    `AscendC::GetBlockIdx() / AscendC::GetTaskRatio()`, so both AIVs and their AIC share it."""

    name = "ascendc.block_workspace"
    workspace = operand_def(GmAddrType)
    var = prop_def(StringAttr, prop_name="name")
    bytes_ = prop_def(IntegerAttr, prop_name="bytes")
    task_ratio = opt_prop_def(IntegerAttr)
    result = result_def(GmAddrType)
    traits = traits_def(Declaration())

    FORMAT_NAMED: ClassVar[bool] = True
    FORMAT_KEYWORDS: ClassVar[tuple] = (("bytes", "bytes", INT, None), ("task_ratio", "task_ratio", INT, None))

    @classmethod
    def result_type(cls, operand_types, props):
        return GmAddrType()

    def __init__(self, name: str, workspace: SSAValue, nbytes: int):
        super().__init__(operands=[workspace], properties={"name": StringAttr(name), "bytes": int_prop(nbytes)},
                         result_types=[GmAddrType()])

    @property
    def part_bytes(self) -> int:
        return self.bytes_.value.data

    def verify_(self) -> None:
        check_positive(self, "bytes")
        ratio = prop_int(self, "task_ratio")
        if ratio is not None and ratio not in (1, 2):
            raise VerifyException(f"'task_ratio' is the AIVs per AIC of a MIX kernel, 1 or 2; got {ratio}")


@irdl_op_definition
class PipeOp(AscendCFormat, IRDLOperation):
    """`TPipe name;`"""

    name = "ascendc.tpipe"
    var = prop_def(StringAttr, prop_name="name")
    result = result_def(PipeType)
    traits = traits_def(Declaration())
    FORMAT_NAMED: ClassVar[bool] = True

    @classmethod
    def result_type(cls, operand_types, props):
        return PipeType()

    def __init__(self, name: str = "pipe"):
        super().__init__(properties={"name": StringAttr(name)}, result_types=[PipeType()])


def _values_prop(values: Sequence[str]) -> ArrayAttr:
    return ArrayAttr([StringAttr(v) for v in values])


class _BufferDecl(AscendCFormat, IRDLOperation):
    """Shared by `tque` and `tbuf`: `values` lists the program values the buffer holds (for
    the declaration's comment and for messages)."""

    FORMAT_NAMED: ClassVar[bool] = True

    @property
    def held_values(self) -> list[str]:
        v = self.properties.get("values")
        return [x.data for x in v.data] if isinstance(v, ArrayAttr) else []  # type: ignore[union-attr]

    @property
    def var_name(self) -> str:
        return self.properties["name"].data  # type: ignore[union-attr]


@irdl_op_definition
class TQueOp(_BufferDecl):
    """`TQue<TPosition::P, depth> name;`"""

    name = "ascendc.tque"
    var = prop_def(StringAttr, prop_name="name")
    values = opt_prop_def(ArrayAttr[StringAttr])
    result = result_def(QueueType)
    traits = traits_def(Declaration())

    def __init__(self, name: str, position: TPosition, depth: int, values: Sequence[str] = ()):
        props: dict[str, Attribute] = {"name": StringAttr(name)}
        if values:
            props["values"] = _values_prop(values)
        super().__init__(properties=props, result_types=[QueueType(position, depth)])

    def verify_(self) -> None:
        if self.result.type.pos == TPosition.VECCALC:  # type: ignore[union-attr]
            raise VerifyException("VECCALC is a TBuf position (ascendc.tbuf), not a queue's")


@irdl_op_definition
class TBufOp(_BufferDecl):
    """`TBuf<TPosition::P> name;`"""

    name = "ascendc.tbuf"
    var = prop_def(StringAttr, prop_name="name")
    values = opt_prop_def(ArrayAttr[StringAttr])
    fixed = opt_prop_def(UnitAttr)
    """Holds a tile carried through a loop or branch for the whole region: never shared."""
    result = result_def(BufferType)
    traits = traits_def(Declaration())

    def __init__(self, name: str, position: TPosition, values: Sequence[str] = (), fixed: bool = False):
        props: dict[str, Attribute] = {"name": StringAttr(name)}
        if values:
            props["values"] = _values_prop(values)
        if fixed:
            props["fixed"] = UnitAttr()
        super().__init__(properties=props, result_types=[BufferType(position)])


@irdl_op_definition
class InitBufferOp(AscendCFormat, IRDLOperation):
    """`pipe.InitBuffer(que, num, len);` or `pipe.InitBuffer(buf, len);` (bytes per buffer)."""

    name = "ascendc.init_buffer"
    pipe = operand_def(PipeType)
    buffer = operand_def(QueueType | BufferType)
    num = opt_prop_def(IntegerAttr)
    len_ = prop_def(IntegerAttr, prop_name="len")
    traits = traits_def(Declaration())
    FORMAT_KEYWORDS: ClassVar[tuple] = (("num", "num", INT, None), ("len", "len", INT, None))

    def __init__(self, pipe: SSAValue, buffer: SSAValue, nbytes: int, num: int | None = None):
        props: dict[str, Attribute] = {"len": int_prop(nbytes)}
        if num is not None:
            props["num"] = int_prop(num)
        super().__init__(operands=[pipe, buffer], properties=props)

    @property
    def bytes_per_buffer(self) -> int:
        return self.len_.value.data

    @property
    def buffer_count(self) -> int:
        return self.num.value.data if self.num is not None else 1

    @property
    def total_bytes(self) -> int:
        return self.bytes_per_buffer * self.buffer_count

    def verify_(self) -> None:
        check_positive(self, "len")
        if self.bytes_per_buffer % 32:
            raise VerifyException(f"buffers are whole 32-byte blocks; {self.bytes_per_buffer} bytes is not")
        if isinstance(self.buffer.type, QueueType):
            if self.num is None:
                raise VerifyException("InitBuffer of a TQue takes a buffer count ('num')")
            if not 1 <= self.buffer_count <= self.buffer.type.depth.data:
                raise VerifyException(
                    f"InitBuffer gives {self.buffer_count} buffers to a queue of depth {self.buffer.type.depth.data}"
                )
        elif self.num is not None:
            raise VerifyException("InitBuffer of a TBuf takes no buffer count")


# --------------------------------------------------------------------------- local tensors


def _owner_chain(value: SSAValue) -> list[SSAValue]:
    """`value` and every tensor handed over from it by `deque` (the C++ variable's SSA values)."""
    chain = [value]
    k = 0
    while k < len(chain):
        for use in chain[k].uses:
            if isinstance(use.operation, DequeOp) and use.index == 1:
                chain.append(use.operation.result)
        k += 1
    return chain


def _frees_in(block: Block, chain: set[SSAValue], what: str) -> int:
    """How many times every path through `block` frees the tensor; raises when paths differ."""
    count = 0
    for op in block.ops:
        if isinstance(op, FreeTensorOp) and op.tensor in chain:
            count += 1
            continue
        if not op.regions:
            continue
        inner = [_frees_in(b, chain, what) for r in op.regions for b in r.blocks]
        if not any(inner):
            continue
        if isinstance(op, scf.IfOp):
            branches = [_frees_in(r.block, chain, what) if r.blocks else 0 for r in (op.true_region, op.false_region)]
            if branches[0] != branches[1]:
                raise VerifyException(f"{what} is freed in one branch of an scf.if but not the other")
            count += branches[0]
        else:
            raise VerifyException(f"{what} is freed inside {op.name} but allocated outside it")
    return count


class _TensorFromQueueOp(AscendCFormat, IRDLOperation):
    """A named local tensor taken from a queue, at the queue's position."""

    queue = operand_def(QueueType)
    var = prop_def(StringAttr, prop_name="name")
    result = result_def(LocalTensorType)
    FORMAT_NAMED: ClassVar[bool] = True

    def __init__(self, name: str, queue: SSAValue, element_type: Attribute):
        pos = queue.type.pos  # type: ignore[attr-defined]
        super().__init__(operands=[queue], properties={"name": StringAttr(name)},
                         result_types=[LocalTensorType(element_type, pos)])

    def _verify_position(self, taken: str) -> None:
        if self.result.type.pos != self.queue.type.pos:  # type: ignore[union-attr]
            raise VerifyException(
                f"a tensor {taken} from a {self.queue.type.pos.value} queue is at that position, not "  # type: ignore[union-attr]
                f"{self.result.type.pos.value}"  # type: ignore[union-attr]
            )


@irdl_op_definition
class AllocTensorOp(_TensorFromQueueOp):
    """`LocalTensor<T> name = que.AllocTensor<T>();`"""

    name = "ascendc.alloc_tensor"

    def verify_(self) -> None:
        self._verify_position("allocated")
        block = self.parent_block()
        if block is None:
            return
        what = f"the tensor '{self.var.data}' allocated from a queue"
        chain = set(_owner_chain(self.result))
        frees = _frees_in(block, chain, what)
        if frees == 0 and _handed_to_queue(self.result, block):
            return  # the queue hands it to a later `deque_head`, which frees it
        if frees != 1:
            raise VerifyException(f"{what} must be freed once on every path (FreeTensor), freed {frees} times")


@irdl_op_definition
class GetBufOp(AscendCFormat, IRDLOperation):
    """`LocalTensor<T> name = buf.Get<T>();`"""

    name = "ascendc.get_buf"
    buffer = operand_def(BufferType)
    var = prop_def(StringAttr, prop_name="name")
    result = result_def(LocalTensorType)
    FORMAT_NAMED: ClassVar[bool] = True

    def __init__(self, name: str, buffer: SSAValue, element_type: Attribute):
        pos = buffer.type.pos  # type: ignore[attr-defined]
        super().__init__(operands=[buffer], properties={"name": StringAttr(name)},
                         result_types=[LocalTensorType(element_type, pos)])

    def verify_(self) -> None:
        if self.result.type.pos != self.buffer.type.pos:  # type: ignore[union-attr]
            raise VerifyException("a tensor taken from a TBuf is at the TBuf's position")


def _handed_to_queue(tensor: SSAValue, block: Block) -> bool:
    """`tensor` is enqueued in `block` and no `deque` of it follows: it stays in the queue for
    a `deque_head` (of a later loop iteration, or after the `scf.if` that filled it)."""
    enqueued = any(isinstance(u.operation, EnqueOp) and u.operation.parent_block() is block for u in tensor.uses)
    paired = any(isinstance(u.operation, DequeOp) and u.index == 1 for u in tensor.uses)
    return enqueued and not paired


def _queue_of(value: SSAValue) -> SSAValue | None:
    """The queue a local tensor was allocated from (through deque hand-overs)."""
    for _ in range(10000):
        owner = value.owner
        if isinstance(owner, AllocTensorOp | DequeHeadOp):
            return owner.queue
        if isinstance(owner, DequeOp):
            value = owner.tensor
            continue
        return None
    return None


class _QueueTensorOp(AscendCFormat, IRDLOperation):
    def _check_pair(self) -> None:
        q, t = self.operands[0], self.operands[1]
        if t.type.pos != q.type.pos:  # type: ignore[attr-defined]
            raise VerifyException(
                f"{self.name} of a {t.type.pos.value} tensor on a {q.type.pos.value} queue: positions must pair up"  # type: ignore[attr-defined]
            )
        origin = _queue_of(t)
        if origin is not None and origin is not q:
            raise VerifyException(f"{self.name} on another queue than the one the tensor was allocated from")


@irdl_op_definition
class EnqueOp(_QueueTensorOp):
    """`que.EnQue(t);`: hand the tensor to the queue's consumer pipe."""

    name = "ascendc.enque"
    queue = operand_def(QueueType)
    tensor = operand_def(LocalTensorType)

    def __init__(self, queue: SSAValue, tensor: SSAValue):
        super().__init__(operands=[queue, tensor])

    def verify_(self) -> None:
        self._check_pair()


@irdl_op_definition
class DequeOp(_QueueTensorOp):
    """`t = que.DeQue<T>();`: receive the tensor `enque` handed over (`tensor`); the C++
    variable is reassigned."""

    name = "ascendc.deque"
    queue = operand_def(QueueType)
    tensor = operand_def(LocalTensorType)
    result = result_def(LocalTensorType)

    @classmethod
    def result_type(cls, operand_types, props):
        return operand_types[1] if len(operand_types) > 1 else None

    def __init__(self, queue: SSAValue, tensor: SSAValue):
        super().__init__(operands=[queue, tensor], result_types=[tensor.type])

    def verify_(self) -> None:
        self._check_pair()
        if self.result.type != self.tensor.type:
            raise VerifyException("deque returns the tensor type it receives")
        block = self.parent_block()
        if block is None:
            return
        for op in block.ops:
            if op is self:
                break
            if isinstance(op, EnqueOp) and op.tensor is self.tensor and op.queue is self.queue:
                return
        raise VerifyException("deque of a tensor that was not enqueued on this queue before it (in the same block)")


@irdl_op_definition
class DequeHeadOp(_TensorFromQueueOp):
    """`LocalTensor<T> name = que.DeQue<T>();`: the oldest tensor in the queue, one that an
    `enque` left there earlier without a paired `deque` (a copy-in prefetched by the
    previous loop iteration or before the loop: ascendc-prefetch-copy-in). It is freed
    once on every path, like an allocated tensor."""

    name = "ascendc.deque_head"

    def verify_(self) -> None:
        self._verify_position("dequeued")
        if not any(isinstance(u.operation, EnqueOp) and not any(
                isinstance(v.operation, DequeOp) and v.index == 1 for v in u.operation.tensor.uses)
                for u in self.queue.uses):
            raise VerifyException("deque_head on a queue that no enque leaves a tensor in (every enque has its deque)")
        block = self.parent_block()
        if block is None:
            return
        what = f"the tensor '{self.var.data}' dequeued from a queue"
        frees = _frees_in(block, set(_owner_chain(self.result)), what)
        if frees != 1:
            raise VerifyException(f"{what} must be freed once on every path (FreeTensor), freed {frees} times")


@irdl_op_definition
class FreeTensorOp(_QueueTensorOp):
    """`que.FreeTensor(t);`"""

    name = "ascendc.free_tensor"
    queue = operand_def(QueueType)
    tensor = operand_def(LocalTensorType)

    def __init__(self, queue: SSAValue, tensor: SSAValue):
        super().__init__(operands=[queue, tensor])

    def verify_(self) -> None:
        self._check_pair()
        if _queue_of(self.tensor) is None:
            raise VerifyException("free_tensor of a tensor not allocated from a queue")


@irdl_op_definition
class AtOp(IRDLOperation):
    """`base[i * 128 + j + 5]`: the tensor starting `offset` elements into `base` (a C++
    expression). `terms` is a flat list of (operand index, coefficient) pairs, with operand
    index -1 for a constant term; terms print in order, joined by `+`."""

    name = "ascendc.at"
    base = operand_def(LocalTensorType | GlobalTensorType)
    indices = var_operand_def(IndexType | IntegerType)
    terms = prop_def(ArrayAttr[IntegerAttr])
    result = result_def(LocalTensorType | GlobalTensorType)
    traits = traits_def(Pure(), Expression())

    def __init__(self, base: SSAValue, terms: Sequence[tuple[SSAValue | None, int]]):
        operands: list[SSAValue] = []
        flat: list[int] = []
        for value, coeff in terms:
            if value is None:
                flat += [-1, coeff]
            else:
                flat += [len(operands), coeff]
                operands.append(value)
        super().__init__(operands=[base, operands], properties={"terms": ArrayAttr([IntegerAttr(x, i64) for x in flat])},
                         result_types=[base.type])

    def term_list(self) -> list[tuple[SSAValue | None, int]]:
        flat = [a.value.data for a in self.terms.data]
        return [(None if flat[k] < 0 else self.indices[flat[k]], flat[k + 1]) for k in range(0, len(flat), 2)]

    def verify_(self) -> None:
        flat = [a.value.data for a in self.terms.data]
        if len(flat) % 2 or not flat:
            raise VerifyException("ascendc.at: 'terms' holds (operand index, coefficient) pairs, at least one")
        seen = [flat[k] for k in range(0, len(flat), 2) if flat[k] >= 0]
        if sorted(seen) != list(range(len(self.indices))):
            raise VerifyException("ascendc.at: every index operand appears in exactly one term")
        if self.result.type != self.base.type:
            raise VerifyException("ascendc.at has the type of its base tensor")

    @classmethod
    def parse(cls, parser: Parser) -> AtOp:
        base = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        pieces: list[tuple[object | None, int]] = []
        while True:
            operand = parser.parse_optional_unresolved_operand()
            if operand is not None:
                coeff = 1
                if parser.parse_optional_punctuation("*") is not None:
                    coeff = parser.parse_integer(allow_boolean=False)
                pieces.append((operand, coeff))
            else:
                pieces.append((None, parser.parse_integer(allow_boolean=False)))
            if parser.parse_optional_punctuation("+") is None:
                break
        parser.parse_punctuation("]")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        base_type = parser.parse_type()
        index_types = []
        while parser.parse_optional_punctuation(",") is not None:
            index_types.append(parser.parse_type())
        unresolved = [p for p, _ in pieces if p is not None]
        if len(index_types) != len(unresolved):
            parser.raise_error(f"ascendc.at has {len(unresolved)} index operands but {len(index_types)} index types")
        resolved = iter(parser.resolve_operand(u, t) for u, t in zip(unresolved, index_types))
        terms = [(next(resolved) if p is not None else None, c) for p, c in pieces]
        op = cls(parser.resolve_operand(base, base_type), terms)  # type: ignore[arg-type]
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.base)
        printer.print_string("[")
        for k, (value, coeff) in enumerate(self.term_list()):
            if k:
                printer.print_string(" + ")
            if value is None:
                printer.print_string(str(coeff))
            else:
                printer.print_operand(value)
                if coeff != 1:
                    printer.print_string(f" * {coeff}")
        printer.print_string("]")
        if self.attributes:
            printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list([self.base.type, *(v.type for v in self.indices)], printer.print_attribute)


@irdl_op_definition
class ReinterpretCastOp(AscendCFormat, IRDLOperation):
    """`t.ReinterpretCast<U>()`: the local tensor `t` seen as a tensor of `U` elements.

    The same address and bytes (its size in bytes kept: `sizeof(T) * n / sizeof(U)` elements),
    a C++ expression printed where it is used. An instruction that exists for fewer element
    types than the data has (Gatherb) takes its operands so."""

    name = "ascendc.reinterpret_cast"
    source = operand_def(LocalTensorType)
    result = result_def(LocalTensorType)
    traits = traits_def(Pure(), Expression())

    def __init__(self, source: SSAValue, element_type: Attribute):
        pos = source.type.pos  # type: ignore[attr-defined]
        super().__init__(operands=[source], result_types=[LocalTensorType(element_type, pos)])

    def verify_(self) -> None:
        src, dst = self.source.type, self.result.type
        assert isinstance(src, LocalTensorType) and isinstance(dst, LocalTensorType)
        if src.pos != dst.pos:
            raise VerifyException(f"ascendc.reinterpret_cast keeps the tensor's position {src.pos.value}, got {dst}")
        if src.element_type == dst.element_type:
            raise VerifyException(f"ascendc.reinterpret_cast to the element type the tensor has ({src.element_type})")


def base_tensor(value: SSAValue) -> SSAValue:
    """The tensor an `ascendc.at` / `ascendc.reinterpret_cast` chain starts from."""
    while isinstance(value.owner, AtOp | ReinterpretCastOp):
        value = value.owner.operands[0]
    return value


# --------------------------------------------------------------------------- parameter structs


RUNTIME_FIELD = -(2**63)
"""The `static_values` entry of a parameter-struct field set at run time (MLIR's
`ShapedType::kDynamic`): its value is the struct op's next operand."""

FieldValue = int | bool | SSAValue


@irdl_op_definition
class ParamsOp(IRDLOperation):
    """`Nd2NzParams name; name.ndNum = 1; ...`: a parameter struct variable with its fields
    assigned in the struct's field order. `fields` names every field set, in that order;
    `static_values` holds one value per field (bools as 0/1), `RUNTIME_FIELD` for a field
    whose value is known only at run time: the op's operands, one per such field, in order.
    `MmadParams(m = 64, cmatrixInitVal = %first) : i1` prints `name.cmatrixInitVal =
    <its C++ expression>;` (generic form: `fields = ["m", "cmatrixInitVal"], static_values =
    array<i64: 64, -9223372036854775808>`, operand `%first`)."""

    name = "ascendc.params"
    var = prop_def(StringAttr, prop_name="name")
    fields = prop_def(ArrayAttr[StringAttr])
    static_values = prop_def(DenseArrayBase)
    values = var_operand_def()
    result = result_def(ParamsType)

    def __init__(self, name: str, struct: str, fields: Sequence[tuple[str, FieldValue]],
                 runtime_fields: Sequence[tuple[str, SSAValue]] = (), *, as_given: bool = False,
                 element: Attribute | None = None):
        """`fields` (static or run-time values; `runtime_fields` adds run-time ones) are set
        in the struct's declaration order, or `as_given` (the parser: the verifier then names
        a field out of order). `element`: the template argument of a templated struct
        (`LoadData3DParamsV2<half>`)."""
        order = PARAM_STRUCTS.get(struct, ())
        ranked = [*fields, *runtime_fields]
        if not as_given:
            ranked.sort(key=lambda f: order.index(f[0]) if f[0] in order else len(order))
        statics = [RUNTIME_FIELD if isinstance(v, SSAValue) else int(v) for _, v in ranked]
        props: dict[str, Attribute] = {
            "name": StringAttr(name),
            "fields": ArrayAttr([StringAttr(k) for k, _ in ranked]),
            "static_values": DenseArrayBase.from_list(i64, statics),
        }
        super().__init__(operands=[[v for _, v in ranked if isinstance(v, SSAValue)]], properties=props,
                         result_types=[ParamsType(struct, element)])

    @property
    def struct(self) -> str:
        return self.result.type.struct.data  # type: ignore[union-attr]

    @property
    def element(self) -> Attribute | None:
        """The template argument of a templated struct, else None."""
        return self.result.type.element_type  # type: ignore[union-attr]

    def field_names(self) -> list[str]:
        return [k.data for k in self.fields.data]

    def all_items(self) -> list[tuple[str, FieldValue]]:
        """Every field in the order it is set: a static int or bool, or its run-time value.
        (Verified ops only: the verifier checks that names, values and operands agree.)"""
        operands = iter(self.values)
        items: list[tuple[str, FieldValue]] = []
        for key, v in zip(self.field_names(), self.static_values.get_values()):
            if v == RUNTIME_FIELD:
                items.append((key, next(operands)))
            else:
                items.append((key, bool(v) if key in BOOL_FIELDS else int(v)))
        return items

    def field_items(self) -> list[tuple[str, int | bool]]:
        """The fields with static values (`operand_items`: the run-time ones)."""
        return [(k, v) for k, v in self.all_items() if not isinstance(v, SSAValue)]

    def operand_items(self) -> list[tuple[str, SSAValue]]:
        return [(k, v) for k, v in self.all_items() if isinstance(v, SSAValue)]

    def verify_(self) -> None:
        keys = self.field_names()
        statics = self.static_values.get_values()
        if not isinstance(self.static_values.elt_type, IntegerType) or self.static_values.elt_type.width.data != 64:
            raise VerifyException(f"'static_values' is an array<i64>, got {self.static_values.elt_type}")
        if len(statics) != len(keys):
            raise VerifyException(f"{len(statics)} 'static_values' for the {len(keys)} 'fields' {keys}")
        runtime = sum(v == RUNTIME_FIELD for v in statics)
        if runtime != len(self.values):
            raise VerifyException(f"{len(self.values)} run-time values for the {runtime} fields that 'static_values' "
                                  "marks as set at run time")
        known = PARAM_STRUCTS.get(self.struct)
        if known is None:
            return  # the type's verifier names the struct
        seen: list[str] = []
        operands = iter(self.values)
        for key, raw in zip(keys, statics):
            value = next(operands) if raw == RUNTIME_FIELD else raw
            if key not in known:
                raise VerifyException(f"{self.struct} has no field '{key}' (fields: {', '.join(known)})")
            if key in seen:
                raise VerifyException(f"field '{key}' of {self.struct} is set twice")
            seen.append(key)
            if isinstance(value, SSAValue):
                t = value.type
                if key in BOOL_FIELDS and not (isinstance(t, IntegerType) and t.width.data == 1):
                    raise VerifyException(f"field '{key}' of {self.struct} is a bool: its run-time value must be i1, got {t}")
                if key not in BOOL_FIELDS and not (isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.width.data > 1)):
                    raise VerifyException(f"field '{key}' of {self.struct} takes an integer or index value, got {t}")
            elif key in BOOL_FIELDS and value not in (0, 1):
                raise VerifyException(f"field '{key}' of {self.struct} is a bool: its static value is 0 or 1, got {value}")
            elif key in ENUM_FIELDS and value >= len(ENUM_FIELDS[key][1]):
                enum, members = ENUM_FIELDS[key]
                raise VerifyException(f"field '{key}' of {self.struct} is a {enum}: one of {', '.join(members)}, got {value}")
            elif value < 0:
                raise VerifyException(f"field '{key}' of {self.struct} is negative")
        if [k for k in known if k in seen] != seen:
            raise VerifyException(f"fields of {self.struct} are listed in declaration order ({', '.join(known)})")

    @classmethod
    def parse(cls, parser: Parser) -> ParamsOp:
        name = parser.parse_str_literal()
        struct = parser.parse_identifier()
        element = None
        if parser.parse_optional_punctuation("<"):
            element = parser.parse_type()
            parser.parse_punctuation(">")
        dynamic: list[tuple[str, object]] = []

        def field() -> tuple[str, int | bool] | None:  # None: a run-time field (in `dynamic`)
            key = parser.parse_identifier()
            parser.parse_punctuation("=")
            operand = parser.parse_optional_unresolved_operand()
            if operand is not None:
                dynamic.append((key, operand))
                return None
            b = parser.parse_optional_boolean()
            if b is not None:
                return key, b
            if key in ENUM_FIELDS and (member := parser.parse_optional_identifier()) is not None:
                enum, members = ENUM_FIELDS[key]
                if member not in members:
                    parser.raise_error(f"field '{key}' is a {enum}: one of {', '.join(members)}, got {member}")
                return key, members.index(member)
            start = parser.pos
            value = parser.parse_integer(allow_boolean=False)
            if not RUNTIME_FIELD < value < 2**63:  # the i64 `static_values`, minus the run-time marker
                parser.raise_error(f"field '{key}' = {value} does not fit a 64-bit integer", start, parser.pos)
            return key, value

        written = parser.parse_comma_separated_list(parser.Delimiter.PAREN, field)
        values: dict[int, SSAValue] = {}
        if dynamic:
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            if len(types) != len(dynamic):
                parser.raise_error(f"expected {len(dynamic)} types for the run-time fields, got {len(types)}")
            values = {id(u): parser.resolve_operand(u, t) for (_, u), t in zip(dynamic, types)}  # type: ignore[arg-type]
        attrs = parser.parse_optional_attr_dict()
        pending = iter(dynamic)
        fields: list[tuple[str, FieldValue]] = []
        for f in written:
            if f is None:
                key, u = next(pending)
                fields.append((key, values[id(u)]))
            else:
                fields.append(f)
        op = cls(name, struct, fields, as_given=True, element=element)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.var.data)
        printer.print_string(f" {self.struct}")
        if self.element is not None:
            printer.print_string("<")
            printer.print_attribute(self.element)
            printer.print_string(">")
        printer.print_string("(")
        for k, (key, v) in enumerate(self.all_items()):
            if k:
                printer.print_string(", ")
            printer.print_string(f"{key} = ")
            if isinstance(v, SSAValue):
                printer.print_operand(v)
            elif key in ENUM_FIELDS and 0 <= v < len(ENUM_FIELDS[key][1]):
                printer.print_string(ENUM_FIELDS[key][1][v])
            else:
                printer.print_string(("true" if v else "false") if isinstance(v, bool) else str(v))
        printer.print_string(")")
        if self.values:
            printer.print_string(" : ")
            printer.print_list([v.type for v in self.values], printer.print_attribute)
        if self.attributes:
            printer.print_op_attributes(self.attributes)


def params_field(params: SSAValue, key: str) -> int | bool | None:
    """A static field of the parameter struct `params`, where its `ascendc.params` is visible."""
    owner = params.owner
    if isinstance(owner, ParamsOp):
        return dict(owner.field_items()).get(key)
    return None


# --------------------------------------------------------------------------- data movement

BLOCK_BYTES = 32


def copy_direction(dst: Attribute, src: Attribute) -> str:
    """'GM->local' (MTE2), 'local->GM' (MTE3) or 'local->local' (UB to UB, the vector unit)."""
    if isinstance(dst, LocalTensorType) and isinstance(src, GlobalTensorType):
        return "GM->local"
    if isinstance(dst, GlobalTensorType) and isinstance(src, LocalTensorType):
        return "local->GM"
    if isinstance(dst, LocalTensorType) and isinstance(src, LocalTensorType):
        return "local->local"
    return "GM->GM"


@irdl_op_definition
class DataCopyOp(AscendCFormat, IRDLOperation):
    """`DataCopy(dst, src, count)`, `DataCopy(dst, src, DataCopyParams(blockCount, blockLen,
    srcStride, dstStride))` (lengths and strides in 32-byte blocks) or `DataCopy(dst, src, p)`
    with an `Nd2NzParams` struct (GM ND -> L1 NZ)."""

    name = "ascendc.data_copy"
    dst = operand_def(LocalTensorType | GlobalTensorType)
    src = operand_def(LocalTensorType | GlobalTensorType)
    struct_params = opt_operand_def(ParamsType)
    count = opt_prop_def(IntegerAttr)
    params = opt_prop_def(ArrayAttr[IntegerAttr])

    FORMAT_KEYWORDS: ClassVar[tuple] = (("count", "count", INT, None), ("params", "params", INTS, None))

    def __init__(self, dst: SSAValue, src: SSAValue, *, count: int | None = None,
                 params: Sequence[int] | None = None, struct: SSAValue | None = None):
        props: dict[str, Attribute] = {}
        if count is not None:
            props["count"] = int_prop(count)
        if params is not None:
            props["params"] = ints_prop(params)
        super().__init__(operands=[dst, src, [struct] if struct is not None else []], properties=props)

    @property
    def direction(self) -> str:
        return copy_direction(self.dst.type, self.src.type)

    def verify_(self) -> None:
        if tensor_element(self.dst.type) != tensor_element(self.src.type):
            # the one converting form: L1 half -> bias table float, DataCopyParams in 64-byte
            # blocks of the source (devkit DataCopy<T, U>, L1ToBiasTable)
            if not (self.direction == "local->local" and self.params is not None
                    and isinstance(tensor_element(self.src.type), Float16Type)
                    and isinstance(tensor_element(self.dst.type), Float32Type)):
                _same_element(self, [self.dst, self.src])
        forms = sum(x is not None for x in (self.count, self.params, self.struct_params))
        if forms != 1:
            raise VerifyException("DataCopy takes exactly one of 'count', 'params' or a parameter struct")
        if self.direction == "GM->GM":
            raise VerifyException("DataCopy between two GlobalTensors does not exist")
        eb = self.dst.type.element_bytes  # type: ignore[union-attr]
        if self.count is not None:
            check_positive(self, "count")
            n = self.count.value.data
            if (n * eb) % BLOCK_BYTES:
                raise VerifyException(
                    f"DataCopy count {n} moves {n * eb} bytes, not a multiple of 32 bytes (use data_copy_pad)"
                )
        if self.params is not None:
            check_ints(self, "params", 4, 65535, "DataCopyParams(blockCount, blockLen, srcStride, dstStride)")
            if prop_ints(self, "params")[0] == 0 or prop_ints(self, "params")[1] == 0:  # type: ignore[index]
                raise VerifyException("DataCopyParams needs a positive blockCount and blockLen")
        if self.struct_params is not None:
            struct = self.struct_params.type.struct.data  # type: ignore[union-attr]
            if struct != "Nd2NzParams" or self.direction != "GM->local":
                raise VerifyException(f"the struct form of DataCopy is GM -> L1 with Nd2NzParams, not {struct} ({self.direction})")


@irdl_op_definition
class DataCopyPadOp(AscendCFormat, IRDLOperation):
    """`DataCopyPad(dst, src, DataCopyExtParams(blockCount, blockLen, srcStride, dstStride, 0)
    [, DataCopyPadExtParams<T>(isPad, leftPadding, rightPadding, paddingValue)])`: lengths and
    strides in bytes; the pad parameters only for GM -> local.

    Fields known only at run time (a partial tile's valid rows and columns) are operands after
    `dst` and `src`, one per name in `runtime_fields`, in the structs' field order
    (`blockCount`, `blockLen`, `srcStride`, `dstStride`, `rightPadding`: index values;
    `paddingValue`: a scalar of the element type), as `ascendc.params` takes its run-time
    fields; the static `ext` value of a run-time field is its bound. Without
    `runtime_fields`, one run-time operand is the `blockCount`."""

    name = "ascendc.data_copy_pad"
    dst = operand_def(LocalTensorType | GlobalTensorType)
    src = operand_def(LocalTensorType | GlobalTensorType)
    runtime = var_operand_def()
    ext = prop_def(ArrayAttr[IntegerAttr])
    pad = opt_prop_def(ArrayAttr[IntegerAttr])
    runtime_field_names = opt_prop_def(ArrayAttr[StringAttr], prop_name="runtime_fields")

    EXT_FIELDS: ClassVar[tuple[str, ...]] = ("blockCount", "blockLen", "srcStride", "dstStride")
    PAD_FIELDS: ClassVar[tuple[str, ...]] = ("rightPadding", "paddingValue")
    FORMAT_KEYWORDS: ClassVar[tuple] = (("ext", "ext", INTS, None), ("pad", "pad", BOOLS_INTS, None))

    def __init__(self, dst: SSAValue, src: SSAValue, ext: Sequence[int], pad: Sequence[int | bool] | None = None,
                 block_count: SSAValue | None = None, runtime: dict[str, SSAValue] | None = None):
        props: dict[str, Attribute] = {"ext": ints_prop(ext)}
        if pad is not None:
            props["pad"] = ints_prop(pad)
        fields = dict(runtime or {})
        if block_count is not None:
            fields = {"blockCount": block_count, **fields}
        names = [f for f in (*self.EXT_FIELDS, *self.PAD_FIELDS) if f in fields]
        if names and names != ["blockCount"]:
            props["runtime_fields"] = ArrayAttr([StringAttr(f) for f in names])
        super().__init__(operands=[dst, src, [fields[f] for f in names]], properties=props)

    def _runtime_names(self) -> list[str]:
        if self.runtime_field_names is None:
            return ["blockCount"]
        return [f.data for f in self.runtime_field_names.data]

    @property
    def runtime_fields(self) -> dict[str, SSAValue]:
        """The run-time fields by name."""
        names = self._runtime_names()[: len(self.runtime)]
        return dict(zip(names, self.runtime))

    @property
    def block_count(self) -> SSAValue | None:
        """A run-time `blockCount` (the valid rows of a partial tile); `ext[0]` is then its
        bound, the rows the local tensor holds."""
        return self.runtime_fields.get("blockCount")

    @property
    def direction(self) -> str:
        return copy_direction(self.dst.type, self.src.type)

    def verify_(self) -> None:
        _same_element(self, [self.dst, self.src])
        if self.direction not in ("GM->local", "local->GM"):
            raise VerifyException(f"DataCopyPad copies between GM and a local tensor, not {self.direction}")
        check_ints(self, "ext", 5, 2**32 - 1, "DataCopyExtParams(blockCount, blockLen, srcStride, dstStride, rsv)")
        names = self._runtime_names() if self.runtime_field_names is not None else ["blockCount"] * len(self.runtime)
        if len(names) != len(self.runtime):
            raise VerifyException(f"{self.name} has {len(self.runtime)} run-time operands for the {len(names)} fields {names}")
        known = (*self.EXT_FIELDS, *self.PAD_FIELDS)
        for name, value in zip(names, self.runtime):
            if name not in known:
                raise VerifyException(f"'{name}' is not a run-time field of DataCopyPad (one of {', '.join(known)})")
            if name in self.PAD_FIELDS and self.pad is None:
                raise VerifyException(f"the run-time {name} is a pad parameter: only DataCopyPad GM -> local has them")
            elem = self.dst.type.element_type  # type: ignore[attr-defined]
            if name == "paddingValue":
                if value.type != elem:
                    raise VerifyException(f"the run-time paddingValue is {value.type} but the tensors hold {elem}")
            elif not isinstance(value.type, IndexType):
                raise VerifyException(f"the run-time {name} must be index, got {value.type}")
        if len(set(names)) != len(names):
            raise VerifyException(f"a run-time field is given twice: {names}")
        if sorted(names, key=known.index) != names:
            raise VerifyException(f"'runtime_fields' are listed in the structs' field order ({', '.join(known)}), "
                                  f"got {', '.join(names)}")
        if self.block_count is not None and (prop_ints(self, "ext") or [0])[0] > 4095:
            raise VerifyException("a run-time blockCount is bounded by ext[0], at most 4095 rows")
        if (self.pad is not None) != (self.direction == "GM->local"):
            raise VerifyException("DataCopyPad GM -> local takes pad parameters, local -> GM none")
        if self.pad is not None:
            values = self.pad.data
            if len(values) != 4 or not isinstance(values[0], IntegerAttr):
                raise VerifyException(
                    "the pad parameters of DataCopyPad are 4 values, "
                    f"DataCopyPadExtParams(isPad, leftPadding, rightPadding, paddingValue); got {len(values)}"
                )


# The element types dav-c220 adds atomically into global memory (SetAtomicAdd<T>, DataCopy and Fixpipe).
ATOMIC_ADD_ELEMENTS = ("f32", "f16", "bf16", "i32", "i16", "i8")


@irdl_op_definition
class SetAtomicAddOp(IRDLOperation):
    """`SetAtomicAdd<T>();`: later copies into global memory (DataCopy out of the UB, Fixpipe out
    of L0C) add their T elements to what the destination holds, until `SetAtomicNone()`."""

    name = "ascendc.set_atomic_add"
    element = prop_def(Attribute)
    assembly_format = "$element attr-dict"

    def __init__(self, element: Attribute):
        super().__init__(properties={"element": element})

    def verify_(self) -> None:
        if str(self.element) not in ATOMIC_ADD_ELEMENTS:
            raise VerifyException(
                f"SetAtomicAdd exists for {', '.join(ATOMIC_ADD_ELEMENTS)} elements (dav-c220), not {self.element}"
            )


@irdl_op_definition
class SetAtomicNoneOp(IRDLOperation):
    """`SetAtomicNone();`: copies into global memory overwrite again."""

    name = "ascendc.set_atomic_none"
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()


DECLARATION_OPS = [GlobalTensorOp, BlockWorkspaceOp, PipeOp, TQueOp, TBufOp, InitBufferOp]
TENSOR_OPS = [AllocTensorOp, GetBufOp, EnqueOp, DequeOp, DequeHeadOp, FreeTensorOp, AtOp, ReinterpretCastOp, ParamsOp]
COPY_OPS = [DataCopyOp, DataCopyPadOp, SetAtomicAddOp, SetAtomicNoneOp]
