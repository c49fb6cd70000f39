"""Op stubs of the DSL. The frontend recognises them by identity; they never run."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, eq=False)
class OpStub:
    """`pl.add`, `pl.tensor.add`, `pl.tile.load`, ...: `family` is "" for type-dispatched ops."""

    family: str
    op: str

    @property
    def qualname(self) -> str:
        return f"pl.{self.family + '.' if self.family else ''}{self.op}"

    def __call__(self, *args: object, **kwargs: object) -> object:
        from pypto_xdsl.frontend.errors import OpCalledError
        from pypto_xdsl.frontend.locate import located

        if len(args) == 1 and not kwargs and (isinstance(args[0], type) or hasattr(args[0], "__code__")):
            raise located(
                f"{self.qualname} is an op, not a decorator; decorate functions with @pl.function "
                "(in a @pl.program class) or @pl.jit",
                OpCalledError,
            )
        raise located(
            f"{self.qualname} can only be used inside a @pl.function or a @pl.jit function; "
            "the frontend compiles it, Python does not run it",
            OpCalledError,
        )

    def __repr__(self) -> str:
        return self.qualname


def _stub(op: str, family: str = "") -> OpStub:
    return OpStub(family, op)


# Type-dispatched ops (tensor or tile by operand type).
add = _stub("add")
sub = _stub("sub")
mul = _stub("mul")
div = _stub("div")
maximum = _stub("maximum")
minimum = _stub("minimum")
exp = _stub("exp")
neg = _stub("neg")
abs = _stub("abs")  # noqa: A001
sqrt = _stub("sqrt")
log = _stub("log")
recip = _stub("recip")
relu = _stub("relu")
lrelu = _stub("lrelu")
prelu = _stub("prelu")
not_ = _stub("not_")
cmp = _stub("cmp")
mgather = _stub("mgather")
gatherb = _stub("gatherb")
mscatter = _stub("mscatter")
row_argmax = _stub("row_argmax")
row_argmin = _stub("row_argmin")
col_argmax = _stub("col_argmax")
col_argmin = _stub("col_argmin")
matmul = _stub("matmul")
matmul_acc = _stub("matmul_acc")
matmul_bias = _stub("matmul_bias")
batch_matmul = _stub("batch_matmul")  # tiles only, as in PyPTO (frontend/ops_cube.py)
cast = _stub("cast")
const = _stub("const")  # pl.const(0, pl.INT32): a typed scalar constant
row_max = _stub("row_max")
row_sum = _stub("row_sum")
row_expand_sub = _stub("row_expand_sub")
row_expand_mul = _stub("row_expand_mul")
row_expand_div = _stub("row_expand_div")
move = _stub("move")
full = _stub("full")  # PyPTO's pl.full: a tensor (pl.tile.full makes a tile)
rsqrt = _stub("rsqrt")
tanh = _stub("tanh")  # not in PyPTO's catalogue: a pypto-xdsl extension
sin = _stub("sin")
cos = _stub("cos")
expands = _stub("expands")
row_min = _stub("row_min")
row_prod = _stub("row_prod")
col_sum = _stub("col_sum")
col_max = _stub("col_max")
col_min = _stub("col_min")
col_prod = _stub("col_prod")
row_expand = _stub("row_expand")
row_expand_add = _stub("row_expand_add")
row_expand_max = _stub("row_expand_max")
row_expand_min = _stub("row_expand_min")
row_expand_expdif = _stub("row_expand_expdif")
col_expand = _stub("col_expand")
col_expand_mul = _stub("col_expand_mul")
col_expand_div = _stub("col_expand_div")
col_expand_sub = _stub("col_expand_sub")
col_expand_add = _stub("col_expand_add")
col_expand_max = _stub("col_expand_max")
col_expand_min = _stub("col_expand_min")
col_expand_expdif = _stub("col_expand_expdif")
reshape = _stub("reshape")
transpose = _stub("transpose")
concat = _stub("concat")
fillpad = _stub("fillpad")
set_validshape = _stub("set_validshape")
write = _stub("write")
min = _stub("min")  # noqa: A001  (scalar min, PyPTO's pl.min)
max = _stub("max")  # noqa: A001
get_block_idx = _stub("get_block_idx")
get_block_num = _stub("get_block_num")
# Tensor <-> tile and tensor structure.
load = _stub("load")
store = _stub("store")
create_tensor = _stub("create_tensor")
create_tile = _stub("create_tile")
slice = _stub("slice")  # noqa: A001
assemble = _stub("assemble")
read = _stub("read")
# Control and program structure.
range = _stub("range")  # noqa: A001
parallel = _stub("parallel")
pipeline = _stub("pipeline")
unroll = _stub("unroll")
at = _stub("at")
split = _stub("split")  # pl.at(..., optimizations=[pl.split(pl.SplitMode.UP_DOWN)])
spmd = _stub("spmd")  # for i in pl.spmd(4, name_hint="rows"): / with pl.spmd(4) [as tid]:
split_aiv = _stub("split_aiv")  # for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
cross_core_slot = _stub("cross_core_slot")  # pl.at(..., optimizations=[pl.cross_core_slot(slot_num=4)])
submit = _stub("submit")
yield_ = _stub("yield_")
manual_scope = _stub("manual_scope")  # with pl.manual_scope(): tasks ordered by explicit deps only
cluster = _stub("cluster")  # with pl.cluster(): a co-scheduling hint around launches (transparent)
while_ = _stub("while_")  # for a, b in pl.while_(init_values=(x, 0)): pl.cond(...); ...
cond = _stub("cond")  # pl.cond(c < n): the first statement of a pl.while_ body
