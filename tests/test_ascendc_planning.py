"""ascendc-plan-buffers and ascendc-insert-sync: the annotated IR round-trips (print/parse and
mlir-opt's generic form), the passes are idempotent, and the kernel printer prints the same
C++ from annotated IR as from unannotated IR for every backend test input."""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.utils.exceptions import PassFailedException

from pypto_xdsl.backend.ascendc.cxx import BackendError
from pypto_xdsl.backend.ascendc.emit import emit_program
from pypto_xdsl.backend.ascendc.kernel import KernelPrinter, print_kernel
from pypto_xdsl.backend.ascendc.planning import (
    BUFFER_ATTR,
    BUFFERS_ATTR,
    FREE_ATTR,
    HANDOFF_ATTR,
    STORE_ATTR,
    ancestor_in,
    read_buffers,
    result_buffers,
)
from pypto_xdsl.dialects import program, tile
from pypto_xdsl.dialects.attributes import TileType
from pypto_xdsl.tools.pypto_compile import apply_pipeline, load_program, parse_program

ROOT = Path(__file__).resolve().parents[1]
SPLIT = re.compile(r"^// -----\s*$", re.MULTILINE)
PASSES = "ascendc-plan-buffers,ascendc-insert-sync"


def _sources() -> list[tuple[str, str | Path]]:
    out: list[tuple[str, str | Path]] = []
    mlir = sorted((ROOT / "tests" / "filecheck" / "backend").glob("*.mlir"))
    mlir += sorted((ROOT / "tests" / "backend_inputs").glob("*.mlir"))
    mlir += sorted((ROOT / "tests" / "filecheck" / "transforms" / "ascendc-plan-buffers").glob("*.mlir"))
    mlir += sorted((ROOT / "tests" / "filecheck" / "transforms" / "ascendc-insert-sync").glob("*.mlir"))
    for path in mlir:
        if "errors" in path.stem:
            continue
        for k, chunk in enumerate(SPLIT.split(path.read_text())):
            out.append((f"{path.parent.name}/{path.stem}#{k}", chunk))
    for path in sorted((ROOT / "tests" / "backend_inputs").glob("*.py")) + sorted((ROOT / "examples").glob("*.py")):
        out.append((f"{path.parent.name}/{path.name}", path))
    return out


SOURCES = _sources()


def _load(src: str | Path, pipeline: str) -> ModuleOp:
    module = load_program(src) if isinstance(src, Path) else parse_program(src)
    apply_pipeline(module, pipeline)
    return module


def _printable(src: str | Path, pipeline: str) -> ModuleOp:
    """The module after `pipeline`, skipping inputs the backend rejects anyway (error tests)."""
    try:
        module = _load(src, pipeline)
        emit_program(module.clone())
    except (BackendError, PassFailedException) as e:
        pytest.skip(f"not printable: {e}")
    if not any(f.is_incore for f in program.func_ops(module)):
        pytest.skip("no kernel")
    return module


def _annotated(module: ModuleOp) -> ModuleOp:
    annotated = module.clone()
    apply_pipeline(annotated, PASSES)
    return annotated


def _text(module: Operation) -> str:
    return str(module)


@pytest.mark.parametrize("pipeline", ["", "pypto-default"])
@pytest.mark.parametrize("name, src", SOURCES, ids=[n for n, _ in SOURCES])
def test_printing_annotated_ir_equals_printing_unannotated_ir(name, src, pipeline):
    module = _printable(src, pipeline)
    before = _text(module)
    plain = emit_program(module).files
    assert _text(module) == before, "printing must not annotate (change) its input"
    annotated = _annotated(module)
    assert all(BUFFERS_ATTR in f.attributes for f in program.func_ops(annotated) if f.is_incore)
    assert emit_program(annotated).files == plain
    # ... and after printing and parsing the annotated IR back
    reparsed = parse_program(_text(annotated))
    assert _text(reparsed) == _text(annotated)
    assert emit_program(reparsed).files == plain


@pytest.mark.parametrize("name, src", SOURCES, ids=[n for n, _ in SOURCES])
def test_passes_are_idempotent(name, src):
    module = _printable(src, "")
    once = _annotated(module)
    twice = once.clone()
    apply_pipeline(twice, PASSES)
    assert _text(twice) == _text(once)
    replanned = once.clone()
    apply_pipeline(replanned, "ascendc-plan-buffers")
    plan_only = module.clone()
    apply_pipeline(plan_only, "ascendc-plan-buffers")
    assert _text(replanned) == _text(plan_only)


@pytest.mark.parametrize("name, src", SOURCES, ids=[n for n, _ in SOURCES])
def test_every_queue_tile_is_freed_once_after_its_last_use(name, src):
    annotated = _annotated(_printable(src, ""))
    for func in program.func_ops(annotated):
        if not func.is_incore:
            continue
        buffers = read_buffers(func)
        freed_at: dict[str, Operation] = {}
        for op in func.walk():
            names = op.attributes.get(FREE_ATTR)
            for n in names.data if isinstance(names, ArrayAttr) else ():
                assert n.data not in freed_at, (name, n.data)
                freed_at[n.data] = op
        for op in func.walk():
            if isinstance(op, tile.StoreOp):
                assert isinstance(op.attributes.get(STORE_ATTR), StringAttr)
                assert HANDOFF_ATTR in op.attributes
            for res, buf in zip(op.results, result_buffers(op)):
                if not buf or buffers[buf].kind not in ("VECIN", "A1", "B1", "A2", "B2"):
                    continue
                free_op = freed_at[buf]
                block = op.parent_block()
                assert free_op.parent_block() is block
                order = list(block.ops)  # type: ignore[union-attr]
                for use in res.uses:
                    anc = ancestor_in(use.operation, block)  # type: ignore[arg-type]
                    assert order.index(anc) <= order.index(free_op), (name, buf)


def _builtin_only(attr) -> bool:
    if type(attr).__module__ != "xdsl.dialects.builtin":
        return False
    if isinstance(attr, ArrayAttr):
        return all(_builtin_only(a) for a in attr.data)
    if isinstance(attr, DictionaryAttr):
        return all(_builtin_only(a) for a in attr.data.values())
    return isinstance(attr, StringAttr | IntegerAttr)


def test_annotations_are_builtin_attributes():
    checked = 0
    for name, src in SOURCES:
        if isinstance(src, Path):
            continue
        try:
            annotated = _annotated(_load(src, ""))
        except (BackendError, PassFailedException):
            continue
        for op in annotated.walk():
            for key, value in op.attributes.items():
                if key.startswith("ascendc."):
                    assert _builtin_only(value), (name, key, value)
                    checked += 1
    assert checked > 100


def _kernel(src: str) -> program.FuncOp:
    module = parse_program(src)
    return next(f for f in program.func_ops(module) if f.is_incore)


_LOOP = (ROOT / "tests" / "filecheck" / "transforms" / "ascendc-insert-sync" / "printer.mlir").read_text()


def test_printer_completes_a_plan_without_sync_decisions():
    func = _kernel(_LOOP)
    expected = print_kernel(func)
    module = func.parent_op()
    apply_pipeline(module, "ascendc-plan-buffers")  # type: ignore[arg-type]
    assert print_kernel(func) == expected
    assert "ascendc.stage" not in _text(func)  # the printer synchronised a clone


def test_printer_follows_the_recorded_plan():
    """The printer does not re-plan: a recorded depth and queue name are printed as given."""
    module = parse_program(_LOOP)
    apply_pipeline(module, PASSES)
    text = _text(module).replace('"inQ_t"', '"inQ_mine"').replace("depth = 2 : i64, name = \"inQ_mine\"",
                                                                   "depth = 1 : i64, name = \"inQ_mine\"")
    func = _kernel(text)
    out = print_kernel(func)
    assert "TQue<TPosition::VECIN, 1> inQ_mine;" in out
    assert "inQ_mine.FreeTensor(t);" in out


def test_insert_sync_requires_a_plan():
    module = parse_program(_LOOP)
    with pytest.raises(PassFailedException, match=r"ascendc-insert-sync: @k has no buffer plan"):
        apply_pipeline(module, "ascendc-insert-sync")


def test_capacity_error_is_the_printer_error():
    src = (ROOT / "tests" / "filecheck" / "backend" / "errors.mlir").read_text()
    chunk = next(c for c in SPLIT.split(src) if "@too_big" in c)
    with pytest.raises(BackendError) as printer_error:
        KernelPrinter(_kernel(chunk)).print()
    with pytest.raises(PassFailedException) as pass_error:
        apply_pipeline(parse_program(chunk), "ascendc-plan-buffers")
    assert str(pass_error.value) == str(printer_error.value).replace("ascendc: ", "ascendc-plan-buffers: ", 1)


def test_every_tile_result_has_a_buffer():
    for name, src in SOURCES:
        if isinstance(src, Path):
            continue
        try:
            module = _load(src, "")
            annotated = _annotated(module)
        except (BackendError, PassFailedException):
            continue
        for func in program.func_ops(annotated):
            if not func.is_incore:
                continue
            for op in func.walk():
                for res, buf in zip(op.results, result_buffers(op)):
                    assert bool(buf) == isinstance(res.type, TileType), (name, op.name)
                assert (BUFFER_ATTR in op.attributes) == any(isinstance(r.type, TileType) for r in op.results)


# --------------------------------------------------------------------------- mlir-opt


def test_annotated_ir_survives_mlir_opt_generic_form():
    spec = importlib.util.spec_from_file_location("interop_helpers", ROOT / "tests" / "test_interop.py")
    assert spec is not None and spec.loader is not None
    interop = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(interop)
    if interop.MLIR_OPT is None:
        pytest.skip("mlir-opt not found")
    modules = []
    for name, src in SOURCES:
        if isinstance(src, Path):
            continue
        try:
            modules.append(_annotated(_load(src, "")))
        except (BackendError, PassFailedException):
            continue
    assert len(modules) > 10
    generic = "\n// -----\n".join(interop.print_generic(m) for m in modules)
    back_chunks = [c for c in SPLIT.split(interop.mlir_opt(generic)) if c.strip()]
    assert len(back_chunks) == len(modules)
    for original, back_text in zip(modules, back_chunks):
        back = interop.parse(back_text, "after mlir-opt")
        assert interop.print_generic(interop.canonical(back)) == interop.print_generic(interop.canonical(original.clone()))
        assert back.is_structurally_equivalent(original)
        # mlir-opt renames every value, so the C++ variable names differ; the recorded buffer
        # names do not, and the annotated module still prints
        for func in program.func_ops(back):
            if func.is_incore:
                text = print_kernel(func)
                assert all(f" {b};" in text for b in read_buffers(func))


# --------------------------------------------------------------------------- pypto-compile


def test_pypto_compile_prints_a_plan_given_in_its_pipeline(tmp_path: Path):
    from pypto_xdsl.tools.pypto_compile import main as compile_main

    src = ROOT / "tests" / "filecheck" / "transforms" / "ascendc-insert-sync" / "printer.mlir"
    default_dir, single_dir = tmp_path / "default", tmp_path / "single"
    assert compile_main([str(src), "-o", str(default_dir)]) == 0
    pipeline = "pypto-default,ascendc-plan-buffers{double-buffer=false},ascendc-insert-sync"
    assert compile_main([str(src), "-o", str(single_dir), "-p", pipeline]) == 0
    assert "TQue<TPosition::VECIN, 2> inQ_t;" in (default_dir / "kernels" / "k.cpp").read_text()
    assert "TQue<TPosition::VECIN, 1> inQ_t;" in (single_dir / "kernels" / "k.cpp").read_text()


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_single_buffered_plan_runs_in_the_simulation(tmp_path: Path, capsys):
    from pypto_xdsl.tools.pypto_compile import main as compile_main

    src = ROOT / "tests" / "filecheck" / "backend" / "softmax.mlir"
    pipeline = "ascendc-plan-buffers{double-buffer=false},ascendc-insert-sync"
    assert compile_main([str(src), "-o", str(tmp_path), "-p", pipeline, "--sim"]) == 0
    assert "simulation matches the interpreter" in capsys.readouterr().out
    assert "TQue<TPosition::VECIN, 1> inQ_t;" in (tmp_path / "kernels" / "softmax_kernel.cpp").read_text()
