"""Interop with real MLIR: the generic form of every non-diagnostic FileCheck input goes
through `mlir-opt --allow-unregistered-dialect` and parses back to the same module.

For each `.mlir` file under tests/filecheck whose RUN lines do not ask for diagnostics, every
`// -----` chunk is parsed and verified by pypto-opt's context, printed in generic form, sent
(all chunks at once, `--split-input-file`) through mlir-opt, parsed back and compared with the
original: structurally (`is_structurally_equivalent`) and as generic text with SSA names
erased (mlir-opt renames every value to `%argN`/`%N`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from io import StringIO
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.parser import Parser
from xdsl.printer import Printer

from pypto_xdsl.tools.pypto_opt import PyptoOptMain

ROOT = Path(__file__).resolve().parents[1]
FILECHECK_DIR = ROOT / "tests" / "filecheck"
LLVM_BIN = "/usr/lib/llvm-22/bin"
MLIR_OPT = shutil.which("mlir-opt") or shutil.which("mlir-opt", path=LLVM_BIN)

pytestmark = pytest.mark.skipif(
    MLIR_OPT is None,
    reason="mlir-opt not found (install Debian's mlir-22-tools, or run `make setup`): "
    "MLIR interop is untested",
)

SPLIT = re.compile(r"^// -----\s*$", re.MULTILINE)
DIAGNOSTIC_FLAGS = ("--verify-diagnostics", "--parsing-diagnostics", "PYPTO_VERIFY_DIAG")


def run_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if re.match(r"\s*//\s*RUN:", line)]


def interop_inputs() -> list[Path]:
    paths = []
    for path in sorted(FILECHECK_DIR.rglob("*.mlir")):
        if "Output" in path.parts:
            continue
        runs = run_lines(path.read_text())
        if runs and not any(flag in run for run in runs for flag in DIAGNOSTIC_FLAGS):
            paths.append(path)
    return paths


def context():
    return PyptoOptMain(args=[]).ctx


def print_generic(module: Operation) -> str:
    out = StringIO()
    Printer(stream=out, print_generic_format=True).print_op(module)
    return out.getvalue()


def canonical(module: Operation) -> Operation:
    """Erase SSA names and sort properties/attributes (mlir-opt prints them sorted)."""
    for op in module.walk():
        op.properties = dict(sorted(op.properties.items()))
        op.attributes = dict(sorted(op.attributes.items()))
        for result in op.results:
            result.name_hint = None
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    arg.name_hint = None
    return module


def mlir_opt(text: str) -> str:
    proc = subprocess.run(
        [MLIR_OPT, "--allow-unregistered-dialect", "--mlir-print-op-generic", "--split-input-file", "-"],
        input=text,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, f"mlir-opt rejected the generic form:\n{proc.stderr}"
    return proc.stdout


def parse(text: str, name: str) -> ModuleOp:
    module = Parser(context(), text, name).parse_module()
    module.verify()
    return module


def test_inputs_found():
    # The dialect's own round-trip tests are always among the inputs.
    names = {p.relative_to(FILECHECK_DIR).as_posix() for p in interop_inputs()}
    assert {"dialects/pypto/ops.mlir", "dialects/pypto/tensor_ops.mlir", "dialects/pypto/tile_ops.mlir"} <= names
    assert not any(n.endswith("invalid.mlir") for n in names)


@pytest.mark.parametrize(
    "path", interop_inputs(), ids=lambda p: p.relative_to(FILECHECK_DIR).as_posix()
)
def test_generic_form_round_trips_through_mlir_opt(path: Path):
    text = path.read_text()
    expects_failure = any(re.search(r"\bnot\s+pypto-opt", run) for run in run_lines(text))
    originals: list[ModuleOp] = []
    for i, chunk in enumerate(SPLIT.split(text)):
        try:
            originals.append(parse(chunk, f"{path}#{i}"))
        except Exception:
            if expects_failure:  # a chunk written to fail (`not pypto-opt`): not interop input
                continue
            raise
    assert originals, f"{path}: no chunk parses"

    generic = "\n// -----\n".join(print_generic(m) for m in originals)
    round_tripped = [c for c in SPLIT.split(mlir_opt(generic)) if c.strip()]
    assert len(round_tripped) == len(originals)

    for i, (original, back_text) in enumerate(zip(originals, round_tripped)):
        back = parse(back_text, f"{path}#{i} after mlir-opt")
        assert print_generic(canonical(back)) == print_generic(canonical(original.clone()))
        assert back.is_structurally_equivalent(original), f"chunk {i} of {path} changed"


def test_comparison_detects_a_change():
    """The comparison used above is not vacuous: a one-attribute change is caught."""
    module = parse(
        "pypto.func incore @k(%a: !pypto.tensor<[8], f32>) {\n  pypto.return\n}\n", "inline"
    )
    back = parse(mlir_opt(print_generic(module)), "back")
    assert back.is_structurally_equivalent(module)
    func_op = back.body.block.first_op
    func_op.attributes["extra"] = func_op.properties["kind"]
    assert not back.is_structurally_equivalent(module)
    assert print_generic(canonical(back)) != print_generic(canonical(module.clone()))


def test_mlir_opt_sees_unregistered_pypto_ops():
    """Without --allow-unregistered-dialect MLIR refuses the pypto dialect: the flag matters."""
    proc = subprocess.run(
        [MLIR_OPT, "-"],
        input='"pypto.tile.get_block_idx"() : () -> index\n',
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode != 0 and "pypto" in proc.stderr


def test_block_arguments_survive(tmp_path):
    """A value defined in one block and used in a nested region keeps its identity."""
    module = parse(
        "pypto.func @f(%a: !pypto.tensor<[8], f32>, %n: index) -> !pypto.tensor<[8], f32> {\n"
        "  %r = pypto.incore_scope -> (!pypto.tensor<[8], f32>) {\n"
        "    %b = pypto.tensor.add %a, %a : !pypto.tensor<[8], f32>\n"
        "    pypto.yield %b : !pypto.tensor<[8], f32>\n"
        "  }\n"
        "  pypto.return %r : !pypto.tensor<[8], f32>\n"
        "}\n",
        "inline",
    )
    back = parse(mlir_opt(print_generic(module)), "back")
    func_op = back.body.block.first_op
    block: Block = func_op.body.block
    scope = block.first_op
    add = scope.body.block.first_op
    assert add.lhs is block.args[0] and add.rhs is block.args[0]


def test_environment_has_no_stale_override():
    # The tests call mlir-opt directly; a stray XDSL_MLIR_OPT would not be used.
    assert os.path.exists(MLIR_OPT)
