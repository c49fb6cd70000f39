"""dialects/ascendc.irdl.mlir: up to date with the Python definitions of the ascendc dialect,
complete, and loadable by MLIR's `mlir-opt --irdl-file` (checked on leaf ops)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import builtin, irdl
from xdsl.dialects.utils import EnumAttribute
from xdsl.parser import Parser

from pypto_xdsl.dialects.ascendc import AscendC
from pypto_xdsl.tools import gen_irdl

ROOT = Path(__file__).resolve().parents[1]
IRDL_FILE = ROOT / "dialects" / "ascendc.irdl.mlir"
MLIR_OPT = shutil.which("mlir-opt") or shutil.which("mlir-opt", path="/usr/lib/llvm-22/bin")
needs_mlir = pytest.mark.skipif(MLIR_OPT is None, reason="mlir-opt not found (Debian mlir-22-tools)")


def body_ops(op) -> list:
    return [o for block in op.body.blocks for o in block.ops]


@pytest.fixture(scope="module")
def definitions():
    ctx = Context()
    ctx.load_dialect(builtin.Builtin)
    ctx.load_dialect(irdl.IRDL)
    module = Parser(ctx, IRDL_FILE.read_text(), str(IRDL_FILE)).parse_module()
    (dialect,) = [op for op in module.walk() if isinstance(op, irdl.DialectOp)]
    assert dialect.sym_name.data == "ascendc"
    table: dict[str, dict[str, object]] = {"op": {}, "type": {}, "attr": {}}
    for op in body_ops(dialect):
        kind = {irdl.OperationOp: "op", irdl.TypeOp: "type", irdl.AttributeOp: "attr"}[type(op)]
        table[kind][op.sym_name.data] = op
    return table


def test_committed_file_is_up_to_date():
    assert IRDL_FILE.read_text() == gen_irdl.generate("ascendc"), (
        "dialects/ascendc.irdl.mlir is stale: run `python -m pypto_xdsl.tools.gen_irdl --dialect ascendc`"
    )


def test_check_mode(tmp_path):
    stale = tmp_path / "ascendc.irdl.mlir"
    stale.write_text("// old\n")
    assert gen_irdl.main(["--dialect", "ascendc", "-o", str(stale), "--check"]) == 1
    assert gen_irdl.main(["--dialect", "ascendc", "-o", str(stale)]) == 0
    assert gen_irdl.main(["--dialect", "ascendc", "-o", str(stale), "--check"]) == 0


def test_every_op_type_and_attribute_present(definitions):
    assert set(definitions["op"]) == {op.name.removeprefix("ascendc.") for op in AscendC.operations}
    names = {c.name.removeprefix("ascendc.") for c in AscendC.attributes}
    assert set(definitions["type"]) | set(definitions["attr"]) == names
    for cls in AscendC.attributes:
        if issubclass(cls, EnumAttribute):
            op = definitions["attr"][cls.name.removeprefix("ascendc.")]
            values = {o.expected.data for o in body_ops(op) if isinstance(o, irdl.IsOp) and isinstance(o.expected, builtin.StringAttr)}
            assert values == {case.value for case in cls.enum_type}, cls.name


LEAF_OPS = """\
func.func @leaves(%q: !ascendc.queue<#ascendc.position<"VECIN">, 1 : i64>, %g: !ascendc.gm_addr) {
  %p = "ascendc.tpipe"() {name = "pipe"} : () -> !ascendc.pipe
  "ascendc.pipe_barrier"() {pipe = #ascendc.pipe_kind<"PIPE_V">} : () -> ()
  %i = "ascendc.get_block_idx"() : () -> index
  %t = "ascendc.alloc_tensor"(%q) {name = "t"} : (!ascendc.queue<#ascendc.position<"VECIN">, 1 : i64>) -> !ascendc.local_tensor<f32, #ascendc.position<"VECIN">>
  %x = "ascendc.global_tensor"(%g) {name = "x_gm", size = 1024 : i64} : (!ascendc.gm_addr) -> !ascendc.gm_tensor<f32>
  "ascendc.data_copy"(%t, %x) {count = 2048 : i64} : (!ascendc.local_tensor<f32, #ascendc.position<"VECIN">>, !ascendc.gm_tensor<f32>) -> ()
  %e = "ascendc.fetch_event_id"(%p) {name = "e", event = #ascendc.hard_event<"MTE3_MTE2">} : (!ascendc.pipe) -> !ascendc.event<#ascendc.hard_event<"MTE3_MTE2">>
  "ascendc.set_flag"(%e) {event = #ascendc.hard_event<"MTE3_MTE2">} : (!ascendc.event<#ascendc.hard_event<"MTE3_MTE2">>) -> ()
  return
}
"""


def run_mlir_opt(text: str) -> subprocess.CompletedProcess:
    return subprocess.run([MLIR_OPT, f"--irdl-file={IRDL_FILE}", "-"], input=text, capture_output=True, text=True, timeout=120)


@needs_mlir
def test_mlir_opt_loads_the_dialect_and_accepts_leaf_ops():
    proc = run_mlir_opt(LEAF_OPS)
    assert proc.returncode == 0, proc.stderr
    for name in ("ascendc.tpipe", "ascendc.pipe_barrier", "ascendc.alloc_tensor", "ascendc.set_flag"):
        assert f'"{name}"' in proc.stdout


@needs_mlir
@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('"ascendc.get_block_idx"() : () -> index', '"ascendc.get_block_idx"(%g) : (!ascendc.gm_addr) -> index',
         "expects exactly 0 operands"),
        ('#ascendc.pipe_kind<"PIPE_V">', '#ascendc.pipe_kind<"PIPE_Q">', "PIPE_Q"),
        ('"ascendc.tpipe"() {name = "pipe"}', '"ascendc.tpipe"()', "name"),
    ],
)
def test_mlir_opt_rejects_what_the_irdl_constrains(old, new, message):
    assert old in LEAF_OPS
    proc = run_mlir_opt(LEAF_OPS.replace(old, new, 1))
    assert proc.returncode != 0
    assert message in proc.stderr
