"""convert-tensor-to-tile sizes its row blocks with a model of the Ascend C backend's buffer
plan (double-buffered queues, VECCALC buffers shared between disjoint live ranges): over the
backend's test inputs, the examples and the benchmark's vector kernels, the model is never
below what ascendc-plan-buffers then plans, so every queue allocated in a loop is
double-buffered; and the blocks fill the UB (the next row count would not fit)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from xdsl.dialects import scf
from xdsl.utils.exceptions import PassFailedException

from pypto_xdsl.backend.ascendc.cxx import BackendError
from pypto_xdsl.dialects import ascendc_memory as M
from pypto_xdsl.dialects.ascendc_kernel import KernelOp
from pypto_xdsl.dialects.ascendc_types import QueueType, TPosition
from pypto_xdsl.dialects.program import FuncOp
from pypto_xdsl.tools.pypto_compile import apply_pipeline, load_program, parse_program
from pypto_xdsl.transforms.convert_tensor_to_tile import _blocks
from pypto_xdsl.transforms.tensor_to_tile.grouping import CONVERTED_KINDS, UB_BYTES, BlockGrouper
from pypto_xdsl.transforms.tensor_to_tile.sizing import plan_group, tile_needs, ub_bytes_of

ROOT = Path(__file__).resolve().parents[1]
SPLIT = re.compile(r"^// -----\s*$", re.MULTILINE)
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_kernels  # noqa: E402


def _sources() -> list[tuple[str, str | Path]]:
    out: list[tuple[str, str | Path]] = []
    for path in sorted((ROOT / "tests" / "filecheck" / "backend").glob("*.mlir")):
        if "errors" in path.stem or "ub-bytes" in path.read_text().splitlines()[0]:
            continue
        for k, chunk in enumerate(SPLIT.split(path.read_text())):
            out.append((f"{path.stem}#{k}", chunk))
    for path in sorted((ROOT / "examples").glob("*.py")):
        out.append((path.name, path))
    for name in ("add", "chain", "gelu", "softmax", "rmsnorm", "layernorm"):
        out.append((f"bench-{name}", bench_kernels.PROGRAMS[name]))
    return out


SOURCES = _sources()


def _load(src: str | Path):
    if isinstance(src, Path):
        return load_program(src)
    if "@pl.program" in src:
        from pypto_xdsl.frontend.program import parse_python_file

        return parse_python_file(src, "<bench>")
    return parse_program(src)


def _predicted(module) -> dict[str, tuple[int, int]]:
    """Per vector kernel: the UB the sizing model predicts for its groups, and the sum of
    what one more row per group would need (over the UB for at least one group)."""
    out: dict[str, tuple[int, int]] = {}
    for func in [f for f in module.walk() if isinstance(f, FuncOp) and f.func_kind in CONVERTED_KINDS]:
        groups = [g for block in _blocks(func) for g in BlockGrouper().scan(block)]
        if not groups:
            continue
        budget = UB_BYTES // len(groups)
        total = 0
        for g in groups:
            plan = plan_group(func, g, budget, UB_BYTES)
            row_group = g.key[0] == "rows"
            tail = g.extent % plan.rows if plan.rows < g.extent else 0
            total += ub_bytes_of(plan.tiles, plan.rows, row_group, True)
            if tail:
                total += ub_bytes_of([t for t in plan.tiles if t.queue], tail, row_group, False)
        out[func.sym_name.data] = (total, len(groups))
    return out


@pytest.mark.parametrize("name, src", SOURCES, ids=[n for n, _ in SOURCES])
def test_sizing_model_covers_the_backend_plan(name, src):
    module = _load(src)
    apply_pipeline(module, "inline-functions,outline-incore-scopes")
    funcs = [f for f in module.walk() if isinstance(f, FuncOp)]
    if any(f.func_kind.value == "aic" for f in funcs) or any(
        op.name.startswith("pypto.tensor.matmul") for f in funcs if f.func_kind in CONVERTED_KINDS for op in f.walk()
    ):
        pytest.skip("cube kernels are sized by the matmul planner")
    try:
        predicted = _predicted(module)
    except PassFailedException as e:
        pytest.skip(f"not convertible: {e}")
    if not predicted:
        pytest.skip("no fusion group")
    lowered = module.clone()
    try:
        apply_pipeline(lowered, "convert-tensor-to-tile,convert-pypto-to-ascendc,ascendc-plan-buffers")
    except (BackendError, PassFailedException) as e:
        pytest.skip(f"not lowered: {e}")
    for kernel in [op for op in lowered.body.block.ops if isinstance(op, KernelOp)]:
        if kernel.sym_name.data not in predicted:
            continue
        bytes_predicted, _ = predicted[kernel.sym_name.data]
        used = kernel.memory_plan.data["UB"].data["used"].value.data  # type: ignore[union-attr]
        assert used <= bytes_predicted, f"{kernel.sym_name.data}: planned {used} B, sizing predicted {bytes_predicted} B"
        if bytes_predicted <= UB_BYTES:
            for q in kernel.walk():
                if not isinstance(q, M.TQueOp):
                    continue
                t = q.result.type
                assert isinstance(t, QueueType)
                in_loop = any(
                    isinstance(u.operation, M.AllocTensorOp) and _in_loop(u.operation)
                    for u in q.result.uses
                )
                if in_loop and t.pos in (TPosition.VECIN, TPosition.VECOUT):
                    assert t.depth.data == 2, f"{kernel.sym_name.data}: queue {q.var_name} is not double-buffered"


def _in_loop(op) -> bool:
    p = op.parent_op()
    while p is not None and not isinstance(p, KernelOp):
        if isinstance(p, scf.ForOp | scf.WhileOp):
            return True
        p = p.parent_op()
    return False


@pytest.mark.parametrize("name", ["gelu", "rmsnorm", "add"])
def test_bench_blocks_fill_the_unified_buffer(name):
    """The chosen rows fit; twice as many would not (32 rows per core: blocks of 8)."""
    module = _load(bench_kernels.PROGRAMS[name])
    apply_pipeline(module, "inline-functions,outline-incore-scopes")
    (func,) = [f for f in module.walk() if isinstance(f, FuncOp) and f.func_kind in CONVERTED_KINDS]
    (g,) = [g for block in _blocks(func) for g in BlockGrouper().scan(block)]
    plan = plan_group(func, g, UB_BYTES, UB_BYTES)
    tiles = tile_needs(g)
    assert plan.rows == 8
    assert ub_bytes_of(tiles, 8, True, True) <= UB_BYTES < ub_bytes_of(tiles, 16, True, True)


def test_in_place_candidates_follow_the_backend_rule():
    """x * x reads its dying tile twice: no in-place candidate (the backend keeps a buffer);
    the Exp of the product may take the product's buffer; a row broadcast its [R, C] tile."""
    x, r = "!pypto.tensor<[64, 256], f32>", "!pypto.tensor<[64, 1], f32>"
    module = parse_program(f"""
pypto.func incore @k(%x: {x}, %r: {r}, out %y: {x}) -> {x} {{
  %c0 = arith.constant 0 : index
  %sq = pypto.tensor.mul %x, %x : {x}
  %e = pypto.tensor.exp %sq : {x}
  %d = pypto.tensor.row_expand_sub %e, %r : {x}, {r}
  %w = pypto.tensor.assemble %d into %y[%c0, %c0] : {x} into {x}
  pypto.return %w : {x}
}}""")
    (func,) = [f for f in module.walk() if isinstance(f, FuncOp)]
    (g,) = [g for block in _blocks(func) for g in BlockGrouper().scan(block)]
    tiles = tile_needs(g)
    by_name = {t.name.split(" ")[0] + " " + t.name.split(" ")[-1]: k for k, t in enumerate(tiles)}
    mul, exp = by_name["pypto.tile.mul %sq"], by_name["pypto.tile.exp %e"]
    assert tiles[mul].in_place_of is None
    assert tiles[exp].in_place_of == mul
    assert ub_bytes_of(tiles, 8, True, True, in_place=True) < ub_bytes_of(tiles, 8, True, True)
