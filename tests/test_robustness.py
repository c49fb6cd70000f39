"""No traceback on any input: every kind of malformed input found by mutation fuzzing gives
exit status 1 and exactly one located diagnostic, from each tool (regression tests of
issue #18 §1-§2; the tools run in-process, as `make fuzz-errors` runs them)."""

from __future__ import annotations

import re
import tracemalloc

import numpy as np
import pytest
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, f32
from xdsl.ir import Block, Region
from xdsl.utils.exceptions import VerifyException

from pypto_xdsl.dialects import tensor
from pypto_xdsl.dialects.attributes import TensorType
from pypto_xdsl.dialects.dominance import verify_dominance
from pypto_xdsl.dialects.program import FuncOp, ReturnOp
from pypto_xdsl.fuzz.inprocess import run_tool
from pypto_xdsl.interpreter.api import random_array

T = "!pypto.tensor<[16, 64], f32>"


def _one_located_error(result, path, line: int, message: str, col: int | None = None) -> None:
    assert result.crash is None, result.crash
    assert result.code == 1, (result.code, result.stdout, result.stderr)
    assert result.stdout == "", "no output on failure"
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    located = result.located_diagnostics(str(path))
    assert len(located) == 1 and len(result.diagnostics()) == 1, result.stderr
    column = str(col) if col is not None else r"\d+"
    where = rf"{re.escape(str(path))}:{line}:{column}: error: "
    assert re.match(where + ".*" + re.escape(message), located[0]), located[0]
    assert len(result.stderr.splitlines()) <= 6, "no module dump"


# --------------------------------------------------------------------------- §1 tracebacks

FORWARD_IN_NESTED_REGION = """\
pypto.func @main(%a: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c64 step %c1 iter_args(%x = %c0) -> (index) {
    %c64 = arith.constant 64 : index
    scf.yield %x : index
  }
  pypto.return %r : index
}
"""

WHILE_BLOCK_ARGUMENT = """\
pypto.func @main(%a: index) -> index {
  %c1 = arith.constant 1 : index
  %r = scf.while (%x = %a) : (index) -> index {
    %c = arith.cmpi slt, %x, %c1 : index
    scf.condition(%c) %x : index
  } do {
  ^bb0(%y: f32):
    scf.yield %a : index
  }
  pypto.return %r : index
}
"""

TYPE_PARAMETER_COUNT = """\
pypto.func @main(%a: !pypto.task_id<[64, 32], f32>) {
  pypto.return
}
"""

USE_BEFORE_DEF = f"""\
pypto.func incore @main(%a: {T}) -> {T} {{
  %n = pypto.tensor.sqrt %e : {T}
  %e = pypto.tensor.exp %a : {T}
  pypto.return %n : {T}
}}
"""

DIVIDE_BY_ZERO = """\
pypto.func @main(%a: index) -> index {
  %c0 = arith.constant 0 : index
  %r = arith.divsi %a, %c0 : index
  pypto.return %r : index
}
"""

HUGE_INPUT = """\
pypto.func @main(%a: !pypto.tensor<[100000, 100000], f32>) -> !pypto.tensor<[100000, 100000], f32> {
  %b = pypto.tensor.exp %a : !pypto.tensor<[100000, 100000], f32>
  pypto.return %b : !pypto.tensor<[100000, 100000], f32>
}
"""

HUGE_CREATE = """\
pypto.func @main() -> !pypto.tensor<[100000, 100000], f32> {
  %b = pypto.tensor.create : !pypto.tensor<[100000, 100000], f32>
  pypto.return %b : !pypto.tensor<[100000, 100000], f32>
}
"""


@pytest.mark.parametrize("tool", ["pypto-opt", "pypto-run", "pypto-compile"])
def test_bytes_that_are_not_utf8_are_a_located_error(tmp_path, tool):
    path = tmp_path / "bytes.mlir"
    path.write_bytes(b"pypto.func @main() {\n  pypto.return\n}\n// caf\xe9 \xff\n")
    extra = ["-o", str(tmp_path / "out")] if tool == "pypto-compile" else []
    _one_located_error(run_tool(tool, [str(path), *extra]), path, 4, "invalid UTF-8 byte 0xe9", col=7)


@pytest.mark.parametrize("tool", ["pypto-opt", "pypto-run"])
def test_a_name_defined_in_a_nested_region_is_not_visible_outside(tmp_path, tool):
    """xDSL resolved the loop bound with the body's %c64 and crashed in verification (and again
    in pypto-opt's error-location code); the use is now reported where it is."""
    path = tmp_path / "scoped.mlir"
    path.write_text(FORWARD_IN_NESTED_REGION)
    _one_located_error(run_tool(tool, [str(path)]), path, 4, "use of undefined SSA value %c64", col=28)


@pytest.mark.parametrize("tool", ["pypto-opt", "pypto-run"])
def test_a_bare_exception_of_an_upstream_verifier_is_a_located_error(tmp_path, tool):
    path = tmp_path / "while.mlir"
    path.write_text(WHILE_BLOCK_ARGUMENT)
    _one_located_error(
        run_tool(tool, [str(path)]), path, 3, "'scf.while' op Block arguments with wrong type, expected index, got f32"
    )


def test_a_wrong_number_of_type_parameters_is_a_parse_error(tmp_path):
    path = tmp_path / "params.mlir"
    path.write_text(TYPE_PARAMETER_COUNT)
    _one_located_error(
        run_tool("pypto-opt", [str(path)]), path, 1, "invalid type 'pypto.task_id': wrong number of parameters"
    )


@pytest.mark.parametrize("pipeline", ["convert-tensor-to-tile", "pypto-default"])
def test_a_use_before_its_definition_stops_before_the_passes(tmp_path, pipeline):
    path = tmp_path / "use.mlir"
    path.write_text(USE_BEFORE_DEF)
    _one_located_error(
        run_tool("pypto-opt", [str(path), "-p", pipeline]), path, 2,
        "'pypto.tensor.sqrt' op operand #0 (%e) is used before its definition",
    )


def test_division_by_zero_is_a_located_run_time_error(tmp_path):
    path = tmp_path / "div.mlir"
    path.write_text(DIVIDE_BY_ZERO)
    _one_located_error(run_tool("pypto-run", [str(path)]), path, 3, "arith.divsi in @main: division by 0")


@pytest.mark.parametrize("program", [HUGE_INPUT, HUGE_CREATE], ids=["random input", "tensor.create"])
def test_tensors_too_large_to_hold_are_an_error(tmp_path, program):
    path = tmp_path / "huge.mlir"
    path.write_text(program)
    result = run_tool("pypto-run", [str(path)])
    assert result.crash is None and result.code == 1, result.stderr
    assert len(result.diagnostics()) == 1, result.stderr
    assert "[100000, 100000] and dtype float32 needs 37.3 GiB" in result.stderr


def test_random_inputs_are_drawn_without_a_float64_copy():
    rng = np.random.default_rng(0)
    tracemalloc.start()
    a = random_array([1024, 1024], f32, rng)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert a.dtype == np.float32 and -1 <= a.min() and a.max() < 1
    assert peak < 1.5 * a.nbytes, peak


# --------------------------------------------------------------------------- §2 accepted but invalid

LOCATED = {
    "huge constant": (
        "pypto.func @main() -> index {\n  %c = arith.constant 99999999999999999999 : index\n"
        "  pypto.return %c : index\n}\n",
        2, "integer 99999999999999999999 is out of the range of index",
    ),
    "dim above int64": (
        "pypto.func @main(%a: !pypto.tensor<[18446744073709551616], f32>) {\n  pypto.return\n}\n",
        1, "dimension 18446744073709551616 is larger than the largest extent",
    ),
    "missing terminator": (
        "pypto.func @main(%a: index) -> index {\n  %c0 = arith.constant 0 : index\n}\n",
        2, "terminates block in single-block region but is not a terminator",
    ),
    "empty body": ("pypto.func @main() {\n}\n", 1, "expects at least a terminator"),
    "redefinition": (
        "pypto.func @main() {\n  pypto.return\n}\n\npypto.func @main() {\n  pypto.return\n}\n",
        5, 'Redefinition of symbol "main"',
    ),
    "scf.if result without else": (
        "pypto.func @main(%a: index, %c: i1) -> index {\n  %r = scf.if %c -> (index) {\n"
        "    scf.yield %a : index\n  }\n  pypto.return %r : index\n}\n",
        2, "an scf.if with results needs an else region",
    ),
    "step 0": (
        "pypto.func @main(%a: index) -> index {\n  %c0 = arith.constant 0 : index\n"
        "  %r = scf.for %i = %c0 to %a step %c0 iter_args(%x = %a) -> (index) {\n"
        "    scf.yield %x : index\n  }\n  pypto.return %r : index\n}\n",
        3, "constant step operand must be positive, got 0",
    ),
    "window out of bounds": (
        f"pypto.func @main(%a: {T}) -> f32 {{\n  %c0 = arith.constant 0 : index\n"
        f"  %c65 = arith.constant 65 : index\n  %v = pypto.tensor.read %a[%c0, %c65] : {T} -> f32\n"
        "  pypto.return %v : f32\n}\n",
        4, "the element at [0, 65] is out of the bounds [16, 64]",
    ),
}


@pytest.mark.parametrize("case", sorted(LOCATED))
def test_invalid_input_gets_one_located_diagnostic(tmp_path, case):
    text, line, message = LOCATED[case]
    path = tmp_path / "bad.mlir"
    path.write_text(text)
    _one_located_error(run_tool("pypto-opt", [str(path)]), path, line, message)


def test_a_frontend_loop_with_step_zero_is_an_error_at_the_step(tmp_path):
    path = tmp_path / "par.py"
    path.write_text(
        "import pypto_xdsl.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n"
        "    def main(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:\n"
        "        for i in pl.parallel(16, 64, 0):\n            a = pl.add(a, a)\n        return a\n"
    )
    _one_located_error(run_tool("pypto-opt", [str(path)]), path, 7, "pl.parallel needs a positive step, got 0")


def _func_with(body_ops, arg_types=(IndexType(),)) -> tuple[ModuleOp, FuncOp]:
    func = FuncOp("f", list(arg_types), [])
    for op in body_ops(func.body.block):
        func.body.block.add_op(op)
    func.body.block.add_op(ReturnOp())
    return ModuleOp([func]), func


def test_the_verifier_rejects_a_loop_argument_used_after_the_loop():
    """Built with the Python API (the parser already refuses the name): region scoping."""

    def body(entry: Block):
        c0 = arith.ConstantOp.from_int_and_width(0, IndexType())
        loop_body = Block(arg_types=[IndexType()])
        loop_body.add_op(scf.YieldOp())
        loop = scf.ForOp(c0, entry.args[0], entry.args[0], [], loop_body)
        use = arith.AddiOp(loop_body.args[0], loop_body.args[0])
        return [c0, loop, use]

    module, _ = _func_with(body)
    with pytest.raises(VerifyException, match="is defined inside a region of 'scf.for' that does not enclose this use"):
        module.verify()


def test_the_verifier_rejects_a_value_of_a_sibling_region():
    def body(entry: Block):
        cond = arith.ConstantOp(IntegerAttr(1, 1))
        then_block, else_block = Block(), Block()
        inner = arith.AddiOp(entry.args[0], entry.args[0])
        then_block.add_ops([inner, scf.YieldOp()])
        else_block.add_ops([arith.AddiOp(inner, inner), scf.YieldOp()])
        return [cond, scf.IfOp(cond, [], Region(then_block), Region(else_block))]

    module, _ = _func_with(body)
    with pytest.raises(VerifyException, match="defined inside a region of 'scf.if'"):
        module.verify()


def test_the_verifier_rejects_a_value_from_outside_an_isolated_function():
    outer = FuncOp("g", [IndexType()], [])
    module, func = _func_with(lambda entry: [arith.AddiOp(outer.body.block.args[0], entry.args[0])])
    with pytest.raises(VerifyException, match="defined outside 'pypto.func' @f, which is isolated from above"):
        module.verify()


def test_the_verifier_rejects_an_op_using_its_own_result():
    def body(entry: Block):
        add = arith.AddiOp(entry.args[0], entry.args[0])
        add.operands[1] = add.result
        return [add]

    module, _ = _func_with(body)
    with pytest.raises(VerifyException, match="is a result of the op itself"):
        module.verify()


def test_the_verifier_rejects_a_use_of_an_erased_definition():
    """A pass that erases an op whose result is still used (the parser refuses the name)."""

    def body(entry: Block):
        first = arith.AddiOp(entry.args[0], entry.args[0])
        use = arith.AddiOp(first.result, entry.args[0])
        return [first, use]

    _, func = _func_with(body)
    first = func.body.block.first_op
    first.detach()
    first.erase(safe_erase=False)
    with pytest.raises(VerifyException, match=r"operand #0 \(a value\) is never defined"):
        verify_dominance(func)


def test_python_built_types_and_attributes_are_checked():
    """Values the textual syntax cannot spell (tests/test_verifier_coverage.py allow-lists them)."""
    from pypto_xdsl.dialects.ascendc_kernel import KernelResultAttr

    with pytest.raises(VerifyException, match="dimension must be non-negative, got -5"):
        TensorType([-5], f32)
    with pytest.raises(VerifyException, match="a kernel result is 'param N' or 'workspace OFFSET', not 'stack'"):
        KernelResultAttr("stack", 0)
    with pytest.raises(VerifyException, match="a kernel result index or offset is not negative"):
        KernelResultAttr("param", -1)


def test_dominance_accepts_values_of_enclosing_blocks_and_earlier_ops():
    t = TensorType([4, 8], f32)

    def body(entry: Block):
        c0 = arith.ConstantOp.from_int_and_width(0, IndexType())
        e = tensor.ExpOp(entry.args[1])
        loop_body = Block(arg_types=[IndexType()])
        loop_body.add_ops([tensor.AddOp(e, entry.args[1]), scf.YieldOp()])
        return [c0, e, scf.ForOp(c0, entry.args[0], entry.args[0], [], loop_body)]

    module, func = _func_with(body, (IndexType(), t))
    module.verify()
    verify_dominance(func)


def test_rank0_bf16_values_keep_their_rank():
    """Found by the generator's rank-0 inputs: bf16 rounding made a rank-0 array rank 1."""
    from xdsl.dialects.builtin import bf16

    from pypto_xdsl.interpreter.values import bf16_round

    assert random_array((), bf16, np.random.default_rng(0)).shape == ()
    assert bf16_round(np.float32(1.2345)).shape == ()


# --------------------------------------------------------------------------- found by `make fuzz`


def test_a_kernel_without_parameters_is_launched_without_a_trailing_comma(tmp_path):
    """An incore scope that reads and writes nothing outlines to a kernel with no
    parameters; its launch printed `(1, stream, )`, which g++ rejects."""
    import shutil

    from pypto_xdsl.runtime.passes import emit_ascendc
    from pypto_xdsl.tools.pypto_compile import apply_pipeline, parse_program, simulate

    text = f"""
pypto.func @main(%a: {T}, out %o: {T}) -> {T} {{
  %c0 = arith.constant 0 : index
  pypto.incore_scope {{
    pypto.yield
  }}
  %r = pypto.incore_scope -> ({T}) {{
    %t = pypto.tile.load %a[%c0, %c0] : {T} -> !pypto.tile<[16, 64], f32, vec>
    %w = pypto.tile.store %t, %o[%c0, %c0] : !pypto.tile<[16, 64], f32, vec>, {T}
    pypto.yield %w : {T}
  }}
  pypto.return %r : {T}
}}
"""
    module = parse_program(text)
    reference = module.clone()
    apply_pipeline(module, "pypto-default")
    host = emit_ascendc(module).files["host/main_orch.cpp"]
    assert "ACLRT_LAUNCH_KERNEL(main_incore_0)(1, stream));" in host
    if shutil.which("g++") is not None:
        report = simulate(module, tmp_path / "out", reference_module=reference)
        np.testing.assert_array_equal(report.outputs["o"], report.reference["o"])


# --------------------------------------------------------------------------- input and output files

VALID = f"""\
pypto.func @main(%a: {T}) -> {T} {{
  %e = pypto.tensor.exp %a : {T} -> {T}
  pypto.return %e : {T}
}}
"""


@pytest.mark.parametrize("tool", ["pypto-opt", "pypto-run"])
def test_dash_reads_the_program_from_stdin(tool):
    """`pypto-opt -` (mlir-opt's spelling of stdin) read a file named '-' and crashed."""
    result = run_tool(tool, ["-"], stdin=VALID.encode())
    assert (result.crash, result.code, result.stderr) == (None, 0, "")
    assert "pypto.tensor.exp" in result.stdout if tool == "pypto-opt" else "result #0" in result.stdout


def test_pypto_compile_reads_mlir_from_stdin(tmp_path):
    from pathlib import Path

    example = (Path(__file__).parent.parent / "examples" / "fused_softmax.mlir").read_bytes()
    result = run_tool("pypto-compile", ["-", "-o", str(tmp_path / "out")], stdin=example)
    assert (result.crash, result.code) == (None, 0), result.stderr
    assert (tmp_path / "out" / "host" / "main_orch.cpp").exists()


def test_a_parse_error_on_stdin_is_located_at_stdin():
    result = run_tool("pypto-opt", ["-"], stdin=VALID.replace("exp", "nope").encode())
    _one_located_error(result, "<stdin>", 2, "pypto.tensor.nope")


@pytest.mark.parametrize("tool", ["pypto-opt", "pypto-run", "pypto-compile"])
def test_a_missing_input_file_is_an_error_not_a_crash(tool, tmp_path):
    missing = tmp_path / "missing.mlir"
    extra = ["-o", str(tmp_path / "out")] if tool == "pypto-compile" else []
    result = run_tool(tool, [str(missing), *extra])
    assert result.crash is None and result.code == 1, result.stderr
    assert "internal error" not in result.stderr and "No such file or directory" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_an_unwritable_output_file_is_an_error_not_a_crash(tmp_path):
    source = tmp_path / "p.mlir"
    source.write_text(VALID)
    result = run_tool("pypto-opt", [str(source), "-o", str(tmp_path / "no" / "such" / "dir.mlir")])
    assert (result.crash, result.code, result.stdout) == (None, 1, "")
    assert result.stderr.startswith("pypto-opt: error: ") and len(result.stderr.splitlines()) == 1


# --------------------------------------------------------------------------- found by DSL mutants

EXAMPLES = __import__("pathlib").Path(__file__).resolve().parent.parent / "examples"
RMSNORM = (EXAMPLES / "kernels" / "rmsnorm.py").read_text()


def _dsl(tmp_path, text: str | bytes):
    path = tmp_path / "prog.py"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def _replaced(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize("tool", ["pypto-opt", "pypto-run", "pypto-compile"])
def test_dsl_bytes_that_are_not_utf8_are_a_located_error(tmp_path, tool):
    path = _dsl(tmp_path, _replaced(RMSNORM, "EPS = 1e-6", "EPS = 1e-6  # \xe9").encode("latin-1"))
    extra = ["-o", str(tmp_path / "out")] if tool == "pypto-compile" else []
    _one_located_error(run_tool(tool, [str(path), *extra]), path, 18, "invalid UTF-8 byte 0xe9")


def test_dsl_null_byte_is_a_located_error(tmp_path):
    path = _dsl(tmp_path, _replaced(RMSNORM, "EPS = 1e-6", "EPS = 1e-6\0"))
    _one_located_error(run_tool("pypto-opt", [str(path)]), path, 18, "invalid Python: source code string cannot contain null bytes", col=11)


def test_dsl_function_checks_of_the_verifier_are_located_at_the_statement(tmp_path):
    """The whole-function checks (constant indices, windows at constant offsets) ran only on
    the finished module: an unlocated 'internal: the generated IR does not verify'."""
    path = _dsl(tmp_path, _replaced(RMSNORM, "w), [0, 0])", "w), [99999999999999999999, 0])"))
    _one_located_error(run_tool("pypto-opt", [str(path)]), path, 33, "integer 99999999999999999999 is out of the range of index")
    path = _dsl(tmp_path, _replaced(RMSNORM, "w), [0, 0])", "w), [64, 0])"))
    _one_located_error(run_tool("pypto-opt", [str(path)]), path, 33, "the window [40, 256] at offsets [64, 0] is out of the bounds", col=19)


def test_dsl_a_type_an_xdsl_verifier_rejects_is_located_at_the_user_line(tmp_path):
    """The error was located in xDSL's own source (or in `<string>`, a dataclass's __init__)."""
    text = (EXAMPLES / "kernels" / "layernorm.py").read_text()
    path = _dsl(tmp_path, _replaced(text, "[1, HIDDEN])", "[18446744073709551616, HIDDEN])"))
    _one_located_error(run_tool("pypto-opt", [str(path)]), path, 32, "dimension 18446744073709551616 is larger than the largest extent")
    path = _dsl(tmp_path, _replaced(RMSNORM, "ROWS, HIDDEN = 40, 256", "ROWS, HIDDEN = 18446744073709551616, 256"))
    _one_located_error(run_tool("pypto-opt", [str(path)]), path, 26, "dimension 18446744073709551616 is larger than the largest extent")


def test_dsl_a_jit_parameter_too_large_to_sample_is_located_at_the_definition(tmp_path):
    text = (EXAMPLES / "jit_softmax.py").read_text()
    path = _dsl(tmp_path, _replaced(text, "def softmax(x: pl.Tensor[[ROWS, COLS]", "def softmax(x: pl.Tensor[[ROWS, 2**62]"))
    _one_located_error(run_tool("pypto-opt", [str(path)]), path, 27, "parameter 'x': a tensor of shape [64, ")


def test_dsl_file_level_errors_are_located(tmp_path):
    path = _dsl(tmp_path, _replaced(RMSNORM, "    @pl.function\n", ""))
    _one_located_error(run_tool("pypto-opt", [str(path)]), path, 21, "@pl.program class 'RmsNorm' has no @pl.function methods")
    path = _dsl(tmp_path, _replaced(RMSNORM, "@pl.program\n", ""))
    _one_located_error(run_tool("pypto-opt", [str(path)]), path, 1, "defines no @pl.program and no @pl.jit function")


def test_dsl_pass_errors_are_located_at_the_statement_that_built_the_op(tmp_path):
    """Ops the frontend builds carry their statement's location into the tools' diagnostics
    (a pass error on `.py` input had no line:col)."""
    from pypto_xdsl.frontend.errors import source_of
    from pypto_xdsl.runtime.loading import module_from_python
    from pypto_xdsl.tools import diagnostics

    module = module_from_python(RMSNORM, "rms.py").module
    spans: diagnostics.OpSpans = __import__("weakref").WeakKeyDictionary()
    diagnostics.add_frontend_spans(module, spans)
    ops = [op for op in module.walk() if op.name == "pypto.tensor.assemble"]
    assert ops and source_of(ops[0]) is not None
    from pypto_xdsl.dialects.verification import OpVerifyException

    text = diagnostics.format_op_error(OpVerifyException(ops[0], "a pass failed here"), spans, "rms.py")
    assert text.startswith("rms.py:33:19: error: 'pypto.tensor.assemble' op a pass failed here"), text


def test_a_huge_extent_does_not_stall_the_tiling_search(tmp_path):
    """`convert-tensor-to-tile` looked for a block count without a tail one count at a time:
    10^11 rows took hours."""
    from pypto_xdsl.transforms.tensor_to_tile.sizing import block_rows

    assert block_rows(99999999999 * 8, False, 16, []) <= 16
    path = _dsl(tmp_path, _replaced(RMSNORM, "ROWS, HIDDEN = 40, 256", "ROWS, HIDDEN = 99999999999, 256"))
    result = run_tool("pypto-opt", [str(path), "-p", "pypto-default"])
    assert (result.crash, result.code) == (None, 0), result.stderr


def test_dsl_errors_about_a_function_or_an_outlined_kernel_are_located(tmp_path):
    """A pass error naming a kernel the pass outlined, and a run-time error about the entry's
    arguments, had no line:col on `.py` input."""
    text = (EXAMPLES / "kernels" / "gelu_tanh.py").read_text()
    path = _dsl(tmp_path, _replaced(text, "ROWS, COLS = 50, 96", "ROWS, COLS = 50, 9223372036854775807"))
    _one_located_error(run_tool("pypto-opt", [str(path), "-p", "pypto-default"]), path, 27,
                       "convert-tensor-to-tile: in @gelu: the tiles of the elementwise ops")
    _one_located_error(run_tool("pypto-run", [str(path)]), path, 23, "argument #0 of @main: a tensor of shape")


def test_dsl_a_file_with_only_jit_kernels_is_located_at_its_start(tmp_path):
    text = (EXAMPLES / "jit_softmax.py").read_text()
    path = _dsl(tmp_path, text[: text.index("\n\n@pl.jit\ndef softmax(")])
    _one_located_error(run_tool("pypto-opt", [str(path)]), path, 1, "defines no @pl.jit entry function, only kernels (softmax_block)")


def test_a_reader_closing_stdout_early_is_no_traceback(tmp_path, tool="pypto-opt"):
    """`pypto-opt big.mlir | head` printed a BrokenPipeError traceback."""
    import subprocess
    import sys
    from pathlib import Path

    from pypto_xdsl.fuzz.scale import straight_line

    path = tmp_path / "big.mlir"
    path.write_text(straight_line(3000))
    exe = Path(sys.executable).parent / tool
    proc = subprocess.Popen([str(exe), str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before the tool writes anything, as `| head -0` does
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=120) in (0, 1)
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr


@pytest.mark.parametrize("text", ["", "\n", "// only a comment\n"])
def test_an_input_without_ops_is_an_empty_module(text):
    """As for mlir-opt; xDSL 0.74 says 'Could not parse entire input!'."""
    result = run_tool("pypto-opt", ["-"], stdin=text.encode())
    assert (result.crash, result.code, result.stderr) == (None, 0, "")
    assert result.stdout.split() == ["builtin.module", "{", "}"]


def test_pypto_run_on_a_module_without_functions_is_located_at_the_start(tmp_path):
    path = tmp_path / "empty.mlir"
    path.write_text("// all comments: an empty module\n")
    _one_located_error(run_tool("pypto-run", [str(path)]), path, 1, "no function @main in the module", col=1)


def test_pypto_run_on_an_ascendc_kernel_is_a_diagnostic_not_an_internal_error(tmp_path):
    """ascendc.kernel symbols are printed, not interpreted: neither the default entry nor an
    explicit --entry may pick one (found by make fuzz-errors on the ascendc test inputs)."""
    import subprocess
    import sys
    from pathlib import Path

    bin_dir = Path(sys.executable).parent
    src = Path(__file__).parent / "filecheck" / "dialects" / "ascendc" / "roundtrip.mlir"
    only_kernels = tmp_path / "kernels.mlir"
    # the module's ascendc ops only: the kernels before the first pypto.func
    only_kernels.write_text(src.read_text().split("pypto.func")[0].rstrip() + "\n")
    for extra in ([], ["--entry", "vec"]):
        proc = subprocess.run(
            [str(bin_dir / "pypto-run"), str(only_kernels), *extra], capture_output=True, text=True
        )
        assert proc.returncode == 1, proc.stderr
        assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert "@vec is a 'ascendc.kernel', not a function the interpreter runs" in proc.stderr
