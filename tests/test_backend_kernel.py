"""Unit tests of the Ascend C kernel and host printers (no compiler needed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects import test as xdsl_test
from xdsl.dialects.builtin import Float16Type, Float32Type

from pypto_xdsl.analysis.ascendc_pipes import buffer_of, is_vector_instruction
from pypto_xdsl.backend.ascendc.cxx import BackendError, Namer, float_literal
from pypto_xdsl.backend.ascendc.emit import emit_program
from pypto_xdsl.backend.ascendc.kernel import print_kernel, tile_layout
from pypto_xdsl.dialects import ascendc_memory as M
from pypto_xdsl.dialects import program
from pypto_xdsl.dialects.ascendc_kernel import KernelOp
from pypto_xdsl.dialects.ascendc_types import MEMORY_BYTES, POSITION_MEMORY, TMP_UB_OFFSET, Memory
from pypto_xdsl.dialects.attributes import TileType
from pypto_xdsl.runtime.passes import emit_ascendc
from pypto_xdsl.tools.pypto_compile import apply_pipeline, parse_program
from pypto_xdsl.transforms.pipelines import lower_for_ascendc, lower_kernel_for_ascendc

PROGRAMS = Path(__file__).parent / "filecheck" / "backend"
# not the error inputs, nor inputs planned for a larger Unified Buffer than a core has
SAMPLES = sorted(
    p.stem for p in PROGRAMS.glob("*.mlir") if "errors" not in p.stem and "ub-bytes" not in p.read_text().splitlines()[0]
)


def kernel_text(src: str, name: str | None = None) -> str:
    module = parse_program(src)
    funcs = [f for f in program.func_ops(module) if f.is_incore]
    func = funcs[0] if name is None else next(f for f in funcs if f.sym_name.data == name)
    return print_kernel(lower_kernel_for_ascendc(func))


# --------------------------------------------------------------------------- layouts


@pytest.mark.parametrize(
    "shape, dtype, ld, count, nbytes",
    [
        ([32, 128], Float32Type(), 128, 4096, 16384),
        ([10, 13], Float32Type(), 16, 160, 640),  # rows padded to 32 bytes
        ([16, 1], Float32Type(), 1, 16, 64),  # column tile: packed
        ([1, 13], Float32Type(), 13, 13, 64),  # row tile: packed, allocation rounded to 32 B
        ([4, 20], Float16Type(), 32, 128, 256),  # 16 halves per 32-byte block
        ([7], Float32Type(), 7, 7, 32),  # 1-D tile = one row
    ],
)
def test_tile_layout(shape, dtype, ld, count, nbytes):
    lay = tile_layout(TileType(shape, dtype), xdsl_test.TestOp())
    assert (lay.ld, lay.count, lay.bytes) == (ld, count, nbytes)
    assert lay.bytes % 32 == 0


def test_namer_avoids_keywords_and_collisions():
    n = Namer(["pipe"])
    assert n.fresh("int") == "int_1"
    assert n.fresh("pipe") == "pipe_1"
    assert n.fresh("x") == "x"
    assert n.fresh("x") == "x_1"
    assert n.fresh("0bad.name") == "v0bad_name"
    assert n.fresh("__reserved") == "v__reserved"


def test_float_literals_round_trip_float32():
    import numpy as np

    for v in [0.1, 1.0, -2.5, 3.4028234663852886e38, 1e-45]:
        text = float_literal(float(np.float32(v)), Float32Type())
        assert text.endswith("f")
        assert np.float32(float(text[:-1])) == np.float32(v)
    assert "infinity" in float_literal(float("inf"), Float32Type())


# --------------------------------------------------------------------------- copies


_COPY = """
pypto.func incore @k(%x: !pypto.tensor<{tshape}, f32>, out %y: !pypto.tensor<{tshape}, f32>) -> !pypto.tensor<{tshape}, f32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = pypto.tile.load %x[{offs}] : !pypto.tensor<{tshape}, f32> -> !pypto.tile<{shape}, f32, vec>
  %e = pypto.tile.exp %t : !pypto.tile<{shape}, f32, vec>
  %w = pypto.tile.store %e, %y[{offs}] : !pypto.tile<{shape}, f32, vec>, !pypto.tensor<{tshape}, f32>
  pypto.return %w : !pypto.tensor<{tshape}, f32>
}}
"""


@pytest.mark.parametrize(
    "tshape, shape, offs, load, store",
    [
        ("[64, 64]", "[8, 64]", "%c1, %c0", "DataCopy(t, x_gm[64], 512);", "DataCopy(y_gm[64], e, 512);"),
        (
            "[64, 128]",
            "[8, 64]",
            "%c0, %c0",
            "DataCopy(t, x_gm, DataCopyParams(8, 8, 8, 0));",
            "DataCopy(y_gm, e, DataCopyParams(8, 8, 0, 8));",
        ),
        (
            "[64, 100]",
            "[8, 64]",
            "%c0, %c1",
            "DataCopyPad(t, x_gm[1], DataCopyExtParams(8, 256, 144, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0));",
            "DataCopyPad(y_gm[1], e, DataCopyExtParams(8, 256, 0, 144, 0));",
        ),
        (
            "[9, 7]",
            "[9, 7]",
            "%c0, %c0",
            "DataCopyPad(t, x_gm, DataCopyExtParams(9, 28, 0, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0));",
            "DataCopyPad(y_gm, e, DataCopyExtParams(9, 28, 0, 0, 0));",
        ),
        ("[100]", "[20]", "%c1", "DataCopyPad(t, x_gm[1], DataCopyExtParams(1, 80, 0, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0));",
         "DataCopyPad(y_gm[1], e, DataCopyExtParams(1, 80, 0, 0, 0));"),
    ],
)
def test_copy_form_follows_alignment_and_contiguity(tshape, shape, offs, load, store):
    text = kernel_text(_COPY.format(tshape=tshape, shape=shape, offs=offs))
    assert load in text
    assert store in text


# --------------------------------------------------------------------------- buffer planning


def _kernels(name: str) -> list[KernelOp]:
    """The planned, synchronised ascendc kernels of a backend test input."""
    text = (PROGRAMS / f"{name}.mlir").read_text()
    module = parse_program(text)
    # inputs whose RUN line prepares them first (tensor-level programs converted to tiles, a
    # rank's windows localized) reach the kernel lowering the way their FileCheck test has them
    run = text.splitlines()[0]
    prepare = "".join(f"{name}," for name in ("convert-tensor-to-tile", "localize-windows") if f"-p {name}" in run)
    apply_pipeline(
        module, prepare + "convert-pypto-to-ascendc,ascendc-plan-buffers,ascendc-insert-sync,ascendc-remove-redundant-sync"
    )
    return [op for op in module.body.block.ops if isinstance(op, KernelOp)]


def _chain(value):
    """The deque hand-overs of a tensor: one C++ variable."""
    value = M.base_tensor(value)
    while isinstance(value.owner, M.DequeOp):
        value = value.owner.tensor
    return value


@pytest.mark.parametrize("name", SAMPLES)
def test_no_instruction_reads_and_writes_one_buffer_through_two_tensors(name):
    """Sharing TBufs between tiles never makes an instruction's result overwrite one of its
    operands held by another tensor (in-place forms use one tensor, by definition)."""
    for kernel in _kernels(name):
        for op in kernel.walk():
            if not is_vector_instruction(op):
                continue
            tensors = [o for o in op.operands if isinstance(o.type, M.LocalTensorType)]
            dst = tensors[0]
            for src in tensors[1:]:
                if _chain(src) is not _chain(dst):
                    assert buffer_of(src) is not buffer_of(dst), (name, op.name)


@pytest.mark.parametrize("name", SAMPLES)
def test_plan_fits_and_is_what_the_kernel_initialises(name):
    for kernel in _kernels(name):
        used: dict[Memory, int] = {}
        for op in kernel.walk():
            if isinstance(op, M.InitBufferOp):
                assert op.bytes_per_buffer % 32 == 0
                mem = POSITION_MEMORY[op.buffer.type.pos]
                used[mem] = used.get(mem, 0) + op.total_bytes
        plan = kernel.memory()
        assert set(plan) == set(used)
        reserved = any(M.uses_reserved_ub(op) for op in kernel.walk())
        for mem, total in used.items():
            capacity = TMP_UB_OFFSET if mem == Memory.UB and reserved else MEMORY_BYTES[mem]
            assert plan[mem] == (total, capacity)
            assert total <= capacity


def test_shared_buffers_have_disjoint_live_ranges():
    (kernel,) = _kernels("scalar_ops")
    tbufs = [op for op in kernel.walk() if isinstance(op, M.TBufOp)]
    gets = [op for op in kernel.walk() if isinstance(op, M.GetBufOp)]
    assert any(len(b.held_values) > 1 for b in tbufs), "the scalar_ops kernel has many short-lived temporaries"
    assert len(tbufs) < len(gets)


def test_ub_reserve_is_left_only_for_apis_that_use_it():
    """Select with a mask tensor uses hidden UB scratch above TMP_UB_OFFSET on dav-c220: only
    the kernels that emit it give that reserve up; every other kernel may plan the whole 192 KiB."""
    assert TMP_UB_OFFSET == 184 * 1024
    reserving = set()
    for name in SAMPLES:
        for kernel in _kernels(name):
            capacity = kernel.memory().get(Memory.UB, (0, MEMORY_BYTES[Memory.UB]))[1]
            if any(M.uses_reserved_ub(op) for op in kernel.walk()):
                reserving.add(name)
                assert capacity == TMP_UB_OFFSET, name
            else:
                assert capacity == MEMORY_BYTES[Memory.UB], name
    assert reserving == {"masks"}


_DOUBLE = """
pypto.func incore @k(%x: !pypto.tensor<[1024, 1024], f32>, out %y: !pypto.tensor<[1024, 1024], f32>) -> !pypto.tensor<[1024, 1024], f32> {{
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %step = arith.constant {rows} : index
  %r = scf.for %i = %c0 to %c1024 step %step iter_args(%acc = %y) -> (!pypto.tensor<[1024, 1024], f32>) {{
    %t = pypto.tile.load %x[%i, %c0] : !pypto.tensor<[1024, 1024], f32> -> !pypto.tile<[{rows}, 1024], f32, vec>
    %e = pypto.tile.exp %t : !pypto.tile<[{rows}, 1024], f32, vec>
    %w = pypto.tile.store %e, %acc[%i, %c0] : !pypto.tile<[{rows}, 1024], f32, vec>, !pypto.tensor<[1024, 1024], f32>
    scf.yield %w : !pypto.tensor<[1024, 1024], f32>
  }}
  pypto.return %r : !pypto.tensor<[1024, 1024], f32>
}}
"""


def test_double_buffering_when_it_fits_single_otherwise():
    # 2 queues x 2 buffers x 16 KiB fits; 2 x 2 x 64 KiB does not, 2 x 1 x 64 KiB does.
    assert "TQue<TPosition::VECIN, 2> inQ_t;" in kernel_text(_DOUBLE.format(rows=4))
    single = kernel_text(_DOUBLE.format(rows=16))
    assert "TQue<TPosition::VECIN, 1> inQ_t;" in single
    assert "pipe.InitBuffer(inQ_t, 1, 65536);" in single
    with pytest.raises(BackendError, match=r"@k: its tiles need 262144 bytes of Unified Buffer"):
        kernel_text(_DOUBLE.format(rows=32))


def test_loaded_tile_freed_after_its_last_use_in_a_nested_region():
    text = kernel_text((PROGRAMS / "control_flow.mlir").read_text(), "cf_kernel")
    body = text[text.index("for (int64_t i"):]
    # %t is used inside both branches of the scf.if: freed once, after the whole if/else
    assert body.count("inQ_t.FreeTensor(t);") == 1
    assert body.index("} else {") < body.index("inQ_t.FreeTensor(t);") < body.index("even = n;")


# --------------------------------------------------------------------------- errors


_BAD_KERNELS = {
    "vector_and_cube_tiles": (
        """pypto.func incore @k(%a: !pypto.tensor<[16, 16], f16>) {
          %c0 = arith.constant 0 : index
          %ta = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, vec>
          %l = pypto.tile.move %ta : !pypto.tile<[16, 16], f16, vec> -> !pypto.tile<[16, 16], f16, left>
          %r = pypto.tile.move %ta : !pypto.tile<[16, 16], f16, vec> -> !pypto.tile<[16, 16], f16, right>
          %m = pypto.tile.matmul %l, %r : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right> -> !pypto.tile<[16, 16], f32, acc>
          pypto.return
        }""",
        "cannot lower @k: it mixes vector ('vec') and cube (mat/left/right/acc) tiles",
    ),
    "aic_without_cube": ("pypto.func aic @k() {\n pypto.return\n}", "an aic kernel must use cube tiles"),
    "acc_stored_twice": (
        """pypto.func aic @k(%a: !pypto.tensor<[16, 16], f16>, out %c: !pypto.tensor<[16, 16], f32>) {
          %c0 = arith.constant 0 : index
          %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
          %bm = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
          %l = pypto.tile.move %am : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
          %r = pypto.tile.move %bm : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
          %m = pypto.tile.matmul %l, %r : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right> -> !pypto.tile<[16, 16], f32, acc>
          %w1 = pypto.tile.store %m, %c[%c0, %c0] : !pypto.tile<[16, 16], f32, acc>, !pypto.tensor<[16, 16], f32>
          %w2 = pypto.tile.store %m, %c[%c0, %c0] : !pypto.tile<[16, 16], f32, acc>, !pypto.tensor<[16, 16], f32>
          pypto.return
        }""",
        "an accumulator tile is stored once, as its last use",
    ),
    "tile_param": (
        "pypto.func incore @k(%t: !pypto.tile<[8, 8], f32, vec>) {\n pypto.return\n}",
        "parameter %t is a tile",
    ),
    "scalar_out": (
        "pypto.func incore @k(out %s: f32) -> f32 {\n pypto.return %s : f32\n}",
        "scalar parameter %s is 'out'",
    ),
    "rank3": (
        "pypto.func incore @k(%a: !pypto.tensor<[2, 8, 8], f32>) {\n pypto.return\n}",
        "has rank 3; only 1-D and 2-D tensors are supported",
    ),
    "unknown_op": (
        """pypto.func incore @k(%a: !pypto.tensor<[8, 8], f32>) {
          %c0 = arith.constant 0 : index
          %v = pypto.tensor.col_sum %a : !pypto.tensor<[8, 8], f32>
          pypto.return
        }""",
        "cannot lower 'pypto.tensor.col_sum' in @k",
    ),
    "many_rows": (
        """pypto.func incore @k(%a: !pypto.tensor<[300, 8], f32>) {
          %c0 = arith.constant 0 : index
          %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[300, 8], f32> -> !pypto.tile<[300, 8], f32, vec>
          %m = pypto.tile.row_max %t : !pypto.tile<[300, 8], f32, vec> -> !pypto.tile<[300, 1], f32, vec>
          pypto.return
        }""",
        "row reductions support at most 255 rows per tile",
    ),
}


@pytest.mark.parametrize("case", sorted(_BAD_KERNELS))
def test_unsupported_input_is_a_clear_error(case):
    src, message = _BAD_KERNELS[case]
    with pytest.raises(BackendError) as e:
        emit_ascendc(parse_program(src))
    assert message in str(e.value)
    assert str(e.value).startswith("ascendc: ")


def test_orchestration_must_return_parameter_storage():
    src = """
    pypto.func incore @k(out %o: !pypto.tensor<[8, 8], f32>) -> !pypto.tensor<[8, 8], f32> {
      pypto.return %o : !pypto.tensor<[8, 8], f32>
    }
    pypto.func orchestration @main() -> !pypto.tensor<[8, 8], f32> {
      %t = pypto.tensor.create : !pypto.tensor<[8, 8], f32>
      %r = pypto.call @k(%t) : (!pypto.tensor<[8, 8], f32>) -> !pypto.tensor<[8, 8], f32>
      pypto.return %r : !pypto.tensor<[8, 8], f32>
    }
    """
    with pytest.raises(BackendError, match="can only return tensors written through their parameters"):
        emit_ascendc(parse_program(src))


def test_block_dim_attribute_sets_the_launch():
    text = emit_ascendc(parse_program((PROGRAMS / "spmd.mlir").read_text())).files["host/main_orch.cpp"]
    assert "ACLRT_LAUNCH_KERNEL(spmd_kernel)(4, stream, x_dev, y_dev)" in text


def test_the_printers_refuse_ir_that_is_not_lowered_and_the_callers_lower_it():
    """The backend reads IR only: its caller lowers a tile-level kernel first (on a copy)."""
    module = parse_program((PROGRAMS / "spmd.mlir").read_text())
    before = str(module)
    with pytest.raises(BackendError, match=r"the pypto kernel @spmd_kernel is not a planned, synchronised "
                       r"ascendc.kernel; lower the module first \(the pypto-ascendc pipeline"):
        emit_program(module)
    kernel = next(f for f in program.func_ops(module) if f.is_incore)
    with pytest.raises(BackendError, match="@spmd_kernel is a pypto function; print_kernel prints an ascendc.kernel"):
        print_kernel(kernel)
    lowered = lower_for_ascendc(module)
    assert str(module) == before and lowered is not module
    assert lower_for_ascendc(lowered) is lowered  # codegen-ready: nothing to do
    assert emit_program(lowered).files == emit_ascendc(module).files


def test_every_acl_call_is_checked():
    em = emit_ascendc(parse_program((PROGRAMS / "orchestration.mlir").read_text()))
    for path in ("host/main_orch.cpp", "host/main.cpp"):
        text = em.files[path]
        if path == "host/main_orch.cpp":
            # DeviceBuffers' clean-up on an early return cannot report errors: the run failed.
            text = text[text.index("\nint run_"):]
            assert "CHECK_ACL(buffers.free_all());" in text
        for line in text.splitlines():
            if "acl" in line and "(" in line and not line.lstrip().startswith(("//", "#", "int ", "*")):
                if any(call in line for call in ("aclInit", "aclrt", "aclFinalize", "ACLRT_LAUNCH_KERNEL")):
                    assert "CHECK_ACL(" in line or "aclrtStream stream" in line, line
