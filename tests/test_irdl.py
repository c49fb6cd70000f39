"""dialects/pypto.irdl.mlir: up to date with the Python definitions, complete, and loadable
by MLIR's `mlir-opt --irdl-file` (for the leaf ops IRDL can express)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import builtin, irdl
from xdsl.dialects.utils import EnumAttribute
from xdsl.irdl.operations import OptOperandDef, OptResultDef, VariadicDef
from xdsl.parser import Parser

from pypto_xdsl.dialects.pypto import Pypto
from pypto_xdsl.tools import gen_irdl

ROOT = Path(__file__).resolve().parents[1]
IRDL_FILE = ROOT / "dialects" / "pypto.irdl.mlir"
MLIR_OPT = shutil.which("mlir-opt") or shutil.which("mlir-opt", path="/usr/lib/llvm-22/bin")
needs_mlir = pytest.mark.skipif(
    MLIR_OPT is None, reason="mlir-opt not found (Debian mlir-22-tools): IRDL loading untested"
)


@pytest.fixture(scope="module")
def irdl_module() -> builtin.ModuleOp:
    ctx = Context()
    ctx.load_dialect(builtin.Builtin)
    ctx.load_dialect(irdl.IRDL)
    return Parser(ctx, IRDL_FILE.read_text(), str(IRDL_FILE)).parse_module()


@pytest.fixture(scope="module")
def definitions(irdl_module):
    (dialect,) = [op for op in irdl_module.walk() if isinstance(op, irdl.DialectOp)]
    assert dialect.sym_name.data == "pypto"
    ops, types, attrs = {}, {}, {}
    for op in body_ops(dialect):
        table = {irdl.OperationOp: ops, irdl.TypeOp: types, irdl.AttributeOp: attrs}[type(op)]
        assert op.sym_name.data not in table, f"duplicate {op.sym_name.data}"
        table[op.sym_name.data] = op
    return ops, types, attrs


def test_committed_file_is_up_to_date():
    assert IRDL_FILE.read_text() == gen_irdl.generate(), (
        "dialects/pypto.irdl.mlir is stale: run `python -m pypto_xdsl.tools.gen_irdl`"
    )


def test_check_mode(tmp_path):
    stale = tmp_path / "pypto.irdl.mlir"
    stale.write_text("// old\n")
    assert gen_irdl.main(["-o", str(stale), "--check"]) == 1
    assert gen_irdl.main(["-o", str(stale)]) == 0
    assert gen_irdl.main(["-o", str(stale), "--check"]) == 0


def test_every_type_and_attribute_present(definitions):
    _, types, attrs = definitions
    for cls in Pypto.attributes:
        name = cls.name.removeprefix("pypto.")
        if issubclass(cls, EnumAttribute):
            op = attrs[name]
            values = {
                o.expected.data
                for o in body_ops(op)
                if isinstance(o, irdl.IsOp) and isinstance(o.expected, builtin.StringAttr)
            }
            assert values == {case.value for case in cls.enum_type}, name
        else:
            assert name in types, f"type {cls.name} missing"
            params = [
                n.data
                for o in body_ops(types[name])
                if isinstance(o, irdl.ParametersOp)
                for n in o.names
            ]
            assert params == [p for p, _ in cls.get_irdl_definition().parameters], name
    expected = {c.name.removeprefix("pypto.") for c in Pypto.attributes}
    assert set(types) | set(attrs) == expected


def _variadicity(d) -> irdl.VariadicityAttr:
    if isinstance(d, OptOperandDef | OptResultDef):
        return irdl.VariadicityAttr.OPTIONAL
    if isinstance(d, VariadicDef):
        return irdl.VariadicityAttr.VARIADIC
    return irdl.VariadicityAttr.SINGLE


def body_ops(op) -> list:
    return [o for block in op.body.blocks for o in block.ops]


def _entries(op: irdl.OperationOp, cls):
    found = [o for o in body_ops(op) if isinstance(o, cls)]
    assert len(found) <= 1
    if not found:
        return []
    o = found[0]
    variadicity = getattr(o, "variadicity", None)
    vs = variadicity.value.data if variadicity is not None else [None] * len(o.names)
    return list(zip([n.data for n in o.names], vs))


OPERATIONS = list(Pypto.operations)


@pytest.mark.parametrize("op", OPERATIONS, ids=lambda op: op.name)
def test_every_op_with_operands_results_regions(definitions, op):
    ops, _, _ = definitions
    name = gen_irdl.irdl_op_name(op.name)
    assert name in ops, f"{op.name} missing from {IRDL_FILE.name}"
    irdl_op = ops[name]
    op_def = op.get_irdl_definition()
    assert _entries(irdl_op, irdl.OperandsOp) == [(n, _variadicity(d)) for n, d in op_def.operands]
    assert _entries(irdl_op, irdl.ResultsOp) == [(n, _variadicity(d)) for n, d in op_def.results]
    assert [n for n, _ in _entries(irdl_op, irdl.RegionsOp)] == [n for n, _ in op_def.regions]


def test_no_extra_ops_and_names_are_unambiguous(definitions):
    ops, _, _ = definitions
    assert set(ops) == {gen_irdl.irdl_op_name(op.name) for op in OPERATIONS}
    # The `.` -> `_` renaming must not merge two ops.
    assert len(ops) == len(OPERATIONS)
    for name in ops:
        assert re.fullmatch(r"[a-z0-9_]+", name), name


def test_operand_constraints_follow_the_python_definitions(irdl_module, definitions):
    ops, _, _ = definitions

    def constraint_of(op_name: str, operand: str) -> str:
        irdl_op = ops[op_name]
        (operands,) = [o for o in body_ops(irdl_op) if isinstance(o, irdl.OperandsOp)]
        index = [n.data for n in operands.names].index(operand)
        return str(operands.args[index].owner).split(" = ", 1)[1]

    assert constraint_of("tensor_add", "lhs") == "irdl.base @pypto::@tensor"
    assert constraint_of("tile_store", "tile") == "irdl.base @pypto::@tile"
    assert constraint_of("tile_load", "offsets") == "irdl.is index"
    assert constraint_of("submit", "deps") == "irdl.base @pypto::@task_id"


# --------------------------------------------------------------------------- mlir-opt

LEAF_OPS = """\
func.func @leaves(%a: !pypto.tensor<[64, 128], f32>, %b: !pypto.tensor<[64, 128], f32>,
                  %m: !pypto.tensor<[128, 32], f32>, %i: index, %s: f32,
                  %tile: !pypto.tile<[8, 8], f32, #pypto.mem<"vec">>, %t: !pypto.task_id) {
  %0 = "pypto.tensor.add"(%a, %b) : (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32>
  %1 = "pypto.tensor.exp"(%0) : (!pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32>
  %2 = "pypto.tensor.muls"(%1, %s) : (!pypto.tensor<[64, 128], f32>, f32) -> !pypto.tensor<[64, 128], f32>
  %3 = "pypto.tensor.matmul"(%2, %m) : (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[128, 32], f32>) -> !pypto.tensor<[64, 32], f32>
  %4 = "pypto.tensor.slice"(%a, %i, %i) {operandSegmentSizes = array<i32: 1, 2, 0>} : (!pypto.tensor<[64, 128], f32>, index, index) -> !pypto.tensor<[8, 8], f32>
  %5 = "pypto.tensor.read"(%a, %i, %i) : (!pypto.tensor<[64, 128], f32>, index, index) -> f32
  %6 = "pypto.tensor.create"() : () -> !pypto.tensor<[16, 16], bf16>
  %7 = "pypto.tile.get_block_idx"() : () -> index
  %8 = "pypto.tile.add"(%tile, %tile) : (!pypto.tile<[8, 8], f32, #pypto.mem<"vec">>, !pypto.tile<[8, 8], f32, #pypto.mem<"vec">>) -> !pypto.tile<[8, 8], f32, #pypto.mem<"vec">>
  %9 = "pypto.tensor.assemble"(%a, %4, %i, %7) : (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[8, 8], f32>, index, index) -> !pypto.tensor<[64, 128], f32>
  %10 = "pypto.tensor.dim"(%a) {axis = 0 : i64} : (!pypto.tensor<[64, 128], f32>) -> index
  %11:2 = "pypto.submit"(%a, %t) {callee = @k, operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!pypto.tensor<[64, 128], f32>, !pypto.task_id) -> (!pypto.tensor<[64, 128], f32>, !pypto.task_id)
  return
}
"""


def to_mlir_names(text: str) -> str:
    """pypto-opt's generic op names -> the names the IRDL file gives MLIR."""
    return re.sub(r'"pypto\.(tensor|tile)\.', r'"pypto.\1_', text)


def run_mlir_opt(text: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [MLIR_OPT, f"--irdl-file={IRDL_FILE}", "-"], input=text, capture_output=True, text=True, timeout=120
    )


@needs_mlir
def test_mlir_opt_loads_the_dialect_and_accepts_leaf_ops():
    proc = run_mlir_opt(to_mlir_names(LEAF_OPS))
    assert proc.returncode == 0, proc.stderr
    for name in ("pypto.tensor_add", "pypto.tile_get_block_idx", "pypto.tensor_dim", "pypto.submit"):
        assert f'"{name}"' in proc.stdout


@needs_mlir
@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        # wrong operand count
        ('"pypto.tensor.exp"(%0) : (!pypto.tensor<[64, 128], f32>)',
         '"pypto.tensor.exp"(%0, %0) : (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[64, 128], f32>)',
         "expects exactly 1 operands, but got 2"),
        # an element type outside the dialect's list
        ("!pypto.tensor<[16, 16], bf16>", "!pypto.tensor<[16, 16], f64>", "f64"),
        # an offset that is not index
        ('"pypto.tensor.read"(%a, %i, %i) : (!pypto.tensor<[64, 128], f32>, index, index)',
         '"pypto.tensor.read"(%a, %s, %i) : (!pypto.tensor<[64, 128], f32>, f32, index)', "index"),
        # a tile where a tensor is required
        ('%1 = "pypto.tensor.exp"(%0) : (!pypto.tensor<[64, 128], f32>)',
         '%1 = "pypto.tensor.exp"(%tile) : (!pypto.tile<[8, 8], f32, #pypto.mem<"vec">>)', "pypto.tensor"),
        # an unknown memory space
        ('#pypto.mem<"vec">', '#pypto.mem<"gm">', "gm"),
        # an op the dialect does not have
        ('"pypto.tile.get_block_idx"', '"pypto.tile.get_block_id"', "get_block_id"),
    ],
    ids=["arity", "dtype", "offset", "kind", "memspace", "unknown-op"],
)
def test_mlir_opt_enforces_the_irdl_constraints(old, new, message):
    assert old in LEAF_OPS
    proc = run_mlir_opt(to_mlir_names(LEAF_OPS.replace(old, new)))
    assert proc.returncode != 0
    assert "error" in proc.stderr and message in proc.stderr, proc.stderr


@needs_mlir
def test_pypto_opt_generic_leaf_ops_load_after_renaming(tmp_path):
    """The generic form pypto-opt prints for static tensor ops loads once renamed."""
    src = tmp_path / "leaf.mlir"
    src.write_text(
        "func.func @f(%a: !pypto.tensor<[8, 8], f32>) -> !pypto.tensor<[8, 8], f32> {\n"
        "  %b = pypto.tensor.add %a, %a : !pypto.tensor<[8, 8], f32>\n"
        "  %c = pypto.tensor.relu %b : !pypto.tensor<[8, 8], f32>\n"
        "  func.return %c : !pypto.tensor<[8, 8], f32>\n"
        "}\n"
    )
    generic = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "python"), "-m", "pypto_xdsl.tools.pypto_opt", str(src), "--print-op-generic"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert generic.returncode == 0, generic.stderr
    proc = run_mlir_opt(to_mlir_names(generic.stdout))
    assert proc.returncode == 0, proc.stderr
    assert '"pypto.tensor_relu"' in proc.stdout
