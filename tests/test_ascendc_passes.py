"""The Ascend C backend's passes on the ascendc dialect, over every backend test input and
example: the explicit pipeline prints what `-t ascendc` prints, the ascendc IR verifies,
round-trips (custom form, generic form, real mlir-opt) and prints the same files after a
round trip, each pass is idempotent, the target completes a partial lowering, and the
errors are the backend's."""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import PassFailedException

from pypto_xdsl.backend.ascendc.cxx import BackendError
from pypto_xdsl.backend.ascendc.emit import emit_program
from pypto_xdsl.dialects import ascendc_memory as M
from pypto_xdsl.dialects import program
from pypto_xdsl.dialects.ascendc_kernel import KernelOp
from pypto_xdsl.dialects.ascendc_sync import SetFlagOp
from pypto_xdsl.runtime.passes import emit_ascendc
from pypto_xdsl.tools.pypto_compile import apply_pipeline, load_program, parse_program

ROOT = Path(__file__).resolve().parents[1]
SPLIT = re.compile(r"^// -----\s*$", re.MULTILINE)
STAGES = ("convert-pypto-to-ascendc", "ascendc-tree-reductions", "ascendc-plan-buffers",
          "ascendc-insert-sync", "ascendc-remove-redundant-sync", "ascendc-prefetch-copy-in", "ascendc-cse")


def _sources() -> list[tuple[str, str | Path]]:
    out: list[tuple[str, str | Path]] = []
    mlir = sorted((ROOT / "tests" / "filecheck" / "backend").glob("*.mlir"))
    mlir += sorted((ROOT / "tests" / "backend_inputs").glob("*.mlir"))
    for path in mlir:
        if "errors" in path.stem or "ub-bytes" in path.read_text().splitlines()[0]:
            continue
        for k, chunk in enumerate(SPLIT.split(path.read_text())):
            out.append((f"{path.parent.name}/{path.stem}#{k}", chunk))
    for path in sorted((ROOT / "tests" / "backend_inputs").glob("*.py")) + sorted((ROOT / "examples").glob("*.py")):
        out.append((f"{path.parent.name}/{path.name}", path))
    return out


SOURCES = _sources()
IDS = [n for n, _ in SOURCES]


def _default(src: str | Path) -> ModuleOp:
    """The module after pypto-default, skipping inputs the backend rejects (error tests)."""
    module = load_program(src) if isinstance(src, Path) else parse_program(src)
    apply_pipeline(module, "pypto-default")
    try:
        emit_ascendc(module)
    except (BackendError, PassFailedException) as e:
        pytest.skip(f"not printable: {e}")
    if not any(f.is_incore for f in program.func_ops(module)):
        pytest.skip("no kernel")
    return module


def _lowered(module: ModuleOp, stages=STAGES) -> ModuleOp:
    out = module.clone()
    apply_pipeline(out, ",".join(stages))
    return out


def _kernels(module: ModuleOp) -> list[KernelOp]:
    return [op for op in module.body.block.ops if isinstance(op, KernelOp)]


@pytest.mark.parametrize("name, src", SOURCES, ids=IDS)
def test_the_ascendc_pipeline_prints_what_the_target_prints(name, src):
    module = _default(src)
    before = str(module)
    files = emit_ascendc(module).files
    assert str(module) == before, "printing must not change its input"
    lowered = _lowered(module)
    assert not any(f.is_incore for f in program.func_ops(lowered))
    assert _kernels(lowered)
    assert emit_program(lowered).files == files  # the printer alone, on codegen-ready IR
    # the ascendc module round-trips and still prints the same files
    reparsed = parse_program(str(lowered))
    assert str(reparsed) == str(lowered)
    assert emit_program(reparsed).files == files
    generic = parse_program(_generic(lowered))
    assert str(generic) == str(lowered)


def _generic(module: ModuleOp) -> str:
    from io import StringIO

    from xdsl.printer import Printer

    out = StringIO()
    Printer(stream=out, print_generic_format=True).print_op(module)
    return out.getvalue()


@pytest.mark.parametrize("name, src", SOURCES, ids=IDS)
def test_each_pass_is_idempotent(name, src):
    module = _default(src)
    for k in range(1, len(STAGES) + 1):
        once = _lowered(module, STAGES[:k])
        twice = once.clone()
        apply_pipeline(twice, STAGES[k - 1])
        assert str(twice) == str(once), STAGES[k - 1]


@pytest.mark.parametrize("name, src", SOURCES, ids=IDS)
def test_the_target_completes_a_partial_lowering(name, src):
    module = _default(src)
    files = emit_ascendc(module).files
    for k in (1, 2):
        assert emit_ascendc(_lowered(module, STAGES[:k])).files == files, STAGES[:k]


@pytest.mark.parametrize("name, src", SOURCES, ids=IDS)
def test_every_queue_tensor_is_freed_once_after_its_uses(name, src):
    for kernel in _kernels(_lowered(_default(src))):
        for alloc in (op for op in kernel.walk() if isinstance(op, M.AllocTensorOp | M.DequeHeadOp)):
            uses = [u.operation for u in alloc.result.uses]
            if any(isinstance(u, M.EnqueOp) for u in uses) and not any(isinstance(u, M.DequeOp) for u in uses):
                # a prefetched copy-in: left in the queue for a deque_head, which frees it
                heads = [u.operation for u in alloc.queue.uses if isinstance(u.operation, M.DequeHeadOp)]
                assert heads, (name, alloc.var.data)
                continue
            chain = [alloc.result]
            for value in chain:
                chain += [u.operation.result for u in value.uses if isinstance(u.operation, M.DequeOp)]
            frees = [u.operation for v in chain for u in v.uses if isinstance(u.operation, M.FreeTensorOp)]
            assert len(frees) == 1, (name, alloc.var.data)
            (free,) = frees
            block = free.parent_block()
            users = [u.operation for v in chain for u in v.uses if u.operation is not free]
            order = {o: k for k, o in enumerate(block.ops)}
            for user in users:
                while user.parent_block() is not block:
                    user = user.parent_op()
                assert order[user] < order[free], (name, alloc.var.data, user.name)


def test_insert_sync_requires_a_plan():
    module = _lowered(parse_program((ROOT / "tests/filecheck/backend/add.mlir").read_text()), STAGES[:1])
    with pytest.raises(PassFailedException, match=r"ascendc-insert-sync: @add_kernel has no buffer plan \('memory_plan'\); "
                                                  r"run ascendc-plan-buffers before ascendc-insert-sync"):
        apply_pipeline(module, "ascendc-insert-sync")


_TOO_BIG = """
pypto.func incore @too_big(%x: !pypto.tensor<[256, 256], f32>, out %y: !pypto.tensor<[256, 256], f32>) -> !pypto.tensor<[256, 256], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[256, 256], f32> -> !pypto.tile<[256, 256], f32, vec>
  %e = pypto.tile.exp %t : !pypto.tile<[256, 256], f32, vec>
  %w = pypto.tile.store %e, %y[%c0, %c0] : !pypto.tile<[256, 256], f32, vec>, !pypto.tensor<[256, 256], f32>
  pypto.return %w : !pypto.tensor<[256, 256], f32>
}
"""


def test_the_capacity_error_is_the_same_from_the_pass_and_the_target():
    reason = ("cannot lower @too_big: its tiles need 524288 bytes of Unified Buffer but a core has 196608: "
              "%t !pypto.tile<[256, 256], f32, vec> (VECIN, 262144 B), %e !pypto.tile<[256, 256], f32, vec> "
              "(VECOUT, 262144 B). Use smaller tiles (loop over the tensor).")
    with pytest.raises(BackendError) as e:
        emit_ascendc(parse_program(_TOO_BIG))
    assert str(e.value) == "ascendc: " + reason
    with pytest.raises(PassFailedException) as p:
        apply_pipeline(parse_program(_TOO_BIG), ",".join(STAGES[:3]))
    assert str(p.value) == "ascendc-plan-buffers: " + reason


def test_redundant_flags_are_dropped_and_needed_ones_kept():
    """A store into a tensor the kernel also loads gets SetFlag/WaitFlag<MTE3_MTE2>; the
    remove pass drops the pair after the kernel's last store (nothing reads after it) and
    keeps the one between the store and the load of the same tensor."""
    src = ROOT / "tests" / "filecheck" / "backend" / "workspace.mlir"
    module = parse_program(src.read_text())
    apply_pipeline(module, "pypto-default")
    synced = _lowered(module, STAGES[:4])
    cleaned = _lowered(module)
    count = lambda m: sum(isinstance(op, SetFlagOp) for op in m.walk())  # noqa: E731
    assert count(cleaned) > 0
    orch = _lowered(parse_program((ROOT / "tests/filecheck/backend/orchestration.mlir").read_text()), STAGES[:4])
    assert count(orch) == 1
    assert count(_lowered(parse_program((ROOT / "tests/filecheck/backend/orchestration.mlir").read_text()))) == 0
    assert count(synced) >= count(cleaned)


# --------------------------------------------------------------------------- mlir-opt


def _interop():
    spec = importlib.util.spec_from_file_location("interop_helpers", ROOT / "tests" / "test_interop.py")
    assert spec is not None and spec.loader is not None
    interop = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(interop)
    return interop


def test_ascendc_ir_survives_mlir_opt_generic_form():
    interop = _interop()
    if interop.MLIR_OPT is None:
        pytest.skip("mlir-opt not found")
    modules = []
    for _, src in SOURCES:
        if isinstance(src, Path):
            continue
        try:
            module = parse_program(src)
            apply_pipeline(module, "pypto-ascendc")
            emit_ascendc(module)
        except (BackendError, PassFailedException):
            continue
        modules.append(module)
    assert len(modules) > 10
    generic = "\n// -----\n".join(interop.print_generic(m) for m in modules)
    back_chunks = [c for c in SPLIT.split(interop.mlir_opt(generic)) if c.strip()]
    assert len(back_chunks) == len(modules)
    for original, back_text in zip(modules, back_chunks):
        back = interop.parse(back_text, "after mlir-opt")
        assert back.is_structurally_equivalent(original)
        # mlir-opt renames every value: scalars get new C++ names, declared names stay
        kernels = [k for k in _kernels(back)]
        for kernel, orig in zip(kernels, _kernels(original)):
            assert kernel.arg_names == orig.arg_names
            emit_ascendc(back)


# --------------------------------------------------------------------------- pypto-compile


def test_pypto_compile_prints_a_plan_given_in_its_pipeline(tmp_path: Path):
    from pypto_xdsl.tools.pypto_compile import main as compile_main

    src = ROOT / "tests" / "filecheck" / "backend" / "softmax.mlir"
    default_dir, single_dir = tmp_path / "default", tmp_path / "single"
    assert compile_main([str(src), "-o", str(default_dir)]) == 0
    pipeline = "pypto-default,convert-pypto-to-ascendc,ascendc-plan-buffers{double-buffer=false}"
    assert compile_main([str(src), "-o", str(single_dir), "-p", pipeline]) == 0
    assert "TQue<TPosition::VECIN, 2> inQ_t;" in (default_dir / "kernels" / "softmax_kernel.cpp").read_text()
    assert "TQue<TPosition::VECIN, 1> inQ_t;" in (single_dir / "kernels" / "softmax_kernel.cpp").read_text()


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_single_buffered_plan_runs_in_the_simulation(tmp_path: Path, capsys):
    from pypto_xdsl.tools.pypto_compile import main as compile_main

    src = ROOT / "tests" / "filecheck" / "backend" / "softmax.mlir"
    pipeline = "convert-pypto-to-ascendc,ascendc-plan-buffers{double-buffer=false}"
    assert compile_main([str(src), "-o", str(tmp_path), "-p", pipeline, "--sim"]) == 0
    assert "simulation matches the interpreter" in capsys.readouterr().out
    assert "TQue<TPosition::VECIN, 1> inQ_t;" in (tmp_path / "kernels" / "softmax_kernel.cpp").read_text()
