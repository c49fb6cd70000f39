"""The PyPTO DSL surface: `import pypto_xdsl.language as pl`.

Programs are `@pl.jit` functions called on arrays (with `@pl.jit.incore` / `.inline` /
`.opaque` dependencies; `pypto_xdsl.runtime` specialises, compiles and runs them), or Python
classes decorated with `@pl.program` whose methods are decorated with
`@pl.function(type=pl.FunctionType.InCore)` and friends. The frontend
(`pypto_xdsl.frontend`) reads their source with `ast` and builds pypto IR; nothing in a
function body is executed by Python. The objects here are therefore *markers*: types
(`pl.Tensor[[64, 128], pl.FP32]`), enums, and op stubs (`pl.add`, `pl.load`, ...) the
frontend recognises by identity. Calling an op stub from ordinary Python raises an error.

See docs/language.md for the reference.
"""

from __future__ import annotations

from pypto_xdsl.frontend.errors import ParserError, install_excepthook  # noqa: E402
from pypto_xdsl.language import array, system, tensor, tile  # noqa: E402  (namespaces pl.array.*, ...)
from pypto_xdsl.language.array import TASK_ID
from pypto_xdsl.language.decorators import function, jit, program
from pypto_xdsl.language.ops import (
    abs,
    add,
    assemble,
    at,
    batch_matmul,
    cast,
    cluster,
    cmp,
    col_argmax,
    col_argmin,
    col_expand,
    col_expand_add,
    col_expand_div,
    col_expand_expdif,
    col_expand_max,
    col_expand_min,
    col_expand_mul,
    col_expand_sub,
    col_max,
    col_min,
    col_prod,
    col_sum,
    concat,
    cond,
    const,
    cos,
    create_tensor,
    create_tile,
    cross_core_slot,
    div,
    exp,
    expands,
    fillpad,
    full,
    gatherb,
    get_block_idx,
    get_block_num,
    load,
    log,
    lrelu,
    manual_scope,
    matmul,
    matmul_acc,
    matmul_bias,
    max,
    maximum,
    mgather,
    min,
    minimum,
    move,
    mscatter,
    mul,
    neg,
    not_,
    parallel,
    pipeline,
    prelu,
    range,
    read,
    recip,
    relu,
    reshape,
    row_argmax,
    row_argmin,
    row_expand,
    row_expand_add,
    row_expand_div,
    row_expand_expdif,
    row_expand_max,
    row_expand_min,
    row_expand_mul,
    row_expand_sub,
    row_max,
    row_min,
    row_prod,
    row_sum,
    rsqrt,
    set_validshape,
    sin,
    slice,
    split,
    split_aiv,
    spmd,
    sqrt,
    store,
    sub,
    submit,
    tanh,
    transpose,
    unroll,
    while_,
    write,
    yield_,
)
from pypto_xdsl.language.types import (
    BF16,
    BOOL,
    CORE_GROUP,
    FP16,
    FP32,
    INDEX,
    INT8,
    INT16,
    INT32,
    INT64,
    UINT8,
    UINT16,
    UINT32,
    UINT64,
    AtomicType,
    DataType,
    DynVar,
    FunctionType,
    InCore,
    Inline,
    InOut,
    Level,
    Mem,
    MemorySpace,
    Opaque,
    Orchestration,
    Out,
    PadValue,
    Role,
    Scalar,
    SplitMode,
    Tensor,
    TensorLayout,
    TensorView,
    Tile,
    dynamic,
)

__all__ = [
    "AtomicType", "Role", "cond", "manual_scope", "cluster", "while_",
    "BF16", "BOOL", "CORE_GROUP", "InCore", "Inline", "Opaque", "Orchestration", "FP16", "FP32", "INDEX", "INT8", "INT16", "INT32", "INT64", "UINT8",
    "UINT16", "UINT32", "UINT64", "DataType", "DynVar", "FunctionType", "InOut", "Level", "Mem",
    "MemorySpace", "Out", "ParserError", "Scalar", "SplitMode", "Tensor", "Tile", "dynamic",
    "function", "jit", "program", "tensor", "tile", "parse", "loads", "array", "system", "TASK_ID",
    "abs", "add", "assemble", "at", "cast", "create_tensor", "create_tile", "cross_core_slot", "div", "exp", "full",
    "get_block_idx", "get_block_num", "load", "log", "batch_matmul", "matmul", "matmul_acc", "matmul_bias", "maximum",
    "minimum", "move", "mul", "neg", "parallel", "pipeline", "unroll", "range", "read", "recip", "relu", "lrelu", "prelu", "not_", "cmp", "const", "mgather", "gatherb", "mscatter", "row_argmax", "row_argmin", "col_argmax", "col_argmin", "row_expand_div",
    "row_expand_mul", "row_expand_sub", "row_max", "row_sum", "slice", "split", "split_aiv", "spmd", "sqrt", "store", "sub",
    "submit", "yield_",
    "AtomicType", "PadValue", "TensorLayout", "TensorView",
    "col_expand", "col_expand_add", "col_expand_div", "col_expand_expdif", "col_expand_max",
    "col_expand_min", "col_expand_mul", "col_expand_sub", "col_max", "col_min", "col_prod",
    "col_sum", "concat", "cos", "expands", "fillpad", "max", "min", "reshape", "row_expand",
    "row_expand_add", "row_expand_expdif", "row_expand_max", "row_expand_min", "row_min",
    "row_prod", "rsqrt", "set_validshape", "sin", "tanh", "transpose", "write",
]

install_excepthook()


def parse(code: str, filename: str = "<string>"):
    """The one `@pl.function` (a `Function`) or `@pl.program` that the Python text `code`
    defines; `pl` is bound in it. See pypto_xdsl.frontend.text."""
    from pypto_xdsl.frontend.text import parse as parse_text

    return parse_text(code, filename)


def loads(path):
    """`pl.parse` of the file at `path`."""
    from pypto_xdsl.frontend.text import loads as load_text

    return load_text(path)


def __getattr__(name: str):
    # `pl.<unknown>` evaluated by Python (a decorator, an annotation, module-level code): a
    # diagnostic at the user's line; it is an AttributeError too, so hasattr() still works.
    if name.startswith("__"):
        raise AttributeError(name)
    from pypto_xdsl.frontend.errors import UnknownNameError
    from pypto_xdsl.frontend.locate import did_you_mean, located

    raise located(f"pl has no '{name}'{did_you_mean(name, __all__)}", UnknownNameError)
