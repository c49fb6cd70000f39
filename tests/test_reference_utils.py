"""The APIs of PyPTO's `examples/utils/` programs: PartialCodegenError, pl.parse / pl.loads,
serialize / deserialize, and arrays of task ids (`pl.array.create(n, pl.TASK_ID)`)."""

from __future__ import annotations

import numpy as np
import pytest

import pypto_xdsl.language as pl
from pypto_xdsl.backend.ascendc.cxx import BackendError
from pypto_xdsl.backend.ascendc.emit import PartialCodegenError


@pl.jit
def rebinds_out(x: pl.Tensor, result: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        result = pl.mul(x, 2.0)
        result = pl.add(x, 1.0)
    return result


def test_partial_codegen_error_keeps_the_kernels_and_is_located():
    x = np.ones(64, np.float32)
    compiled = rebinds_out.compile(x, np.zeros_like(x))
    with pytest.raises(PartialCodegenError) as info:
        compiled.files
    e = info.value
    assert isinstance(e, BackendError) and isinstance(e, RuntimeError)
    assert sorted(e.files) == ["kernels/rebinds_out_incore_0.cpp", "sim/aclrtlaunch_rebinds_out_incore_0.h"]
    message = str(e)
    assert message.startswith(f"{__file__}:{rebinds_out.__wrapped__.__code__.co_firstlineno + 1}:1: error: ")
    assert "cannot emit Ascend C for rebinds_out(" in message
    assert "orchestration functions can only return tensors written through their parameters" in message


def test_the_sim_target_raises_it_for_results_not_written_through_parameters():
    from pypto_xdsl.runtime import RunConfig

    x = np.ones(64, np.float32)
    with pytest.raises(PartialCodegenError, match=r"result #0 of rebinds_out\(.*is not one of its tensor parameters") as info:
        rebinds_out(x, np.zeros_like(x), config=RunConfig(target="sim"))
    assert "kernels/rebinds_out_incore_0.cpp" in info.value.files


VECTOR_ADD = """
@pl.function
def vector_add(x: pl.Tensor[[128], pl.FP32], y: pl.Tensor[[128], pl.FP32]) -> pl.Tensor[[128], pl.FP32]:
    result: pl.Tensor[[128], pl.FP32] = pl.add(x, y)
    return result
"""


def test_parse_a_function():
    func = pl.parse(VECTOR_ADD)
    assert func.name == "vector_add"
    assert [p.name_hint for p in func.params] == ["x", "y"]
    assert [str(t) for t in func.return_types] == ["!pypto.tensor<[128], f32>"]
    assert "pypto.tensor.add %x, %y : !pypto.tensor<[128], f32>" in func.as_python()


def test_parse_a_program_gives_what_the_decorator_gives():
    from pypto_xdsl.runtime.program import RunnableProgram

    prog = pl.parse(
        "@pl.program\nclass P:\n    @pl.function\n"
        "    def f(self, x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:\n"
        "        return pl.add(x, 1.0)\n"
    )
    assert isinstance(prog, RunnableProgram) and prog.name == "P"
    x = np.arange(8, dtype=np.float32)
    np.testing.assert_allclose(prog.run(x), x + 1)


def test_loads_reads_pypto_import_lines(tmp_path):
    path = tmp_path / "kernel.py"
    path.write_text("import pypto.language as pl\n" + VECTOR_ADD)
    assert pl.loads(path).name == "vector_add"


@pytest.mark.parametrize(
    ("code", "error", "message"),
    [
        ("x = 42\n", ValueError, "<string>: error: pl.parse: the text defines no @pl.function and no @pl.program"),
        (VECTOR_ADD + VECTOR_ADD.replace("vector_add", "other"), ValueError,
         "the text defines 2 functions/programs (@pl.function vector_add, @pl.function other)"),
        ("@pl.function\ndef f(x):\n    return x +\n", SyntaxError, "<string>:3:15: error: invalid Python"),
        ("@pl.function\ndef f(x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:\n    return pl.nope(x)\n",
         pl.ParserError, "<string>:3:12: error: "),
    ],
)
def test_parse_errors(code, error, message):
    with pytest.raises(error) as info:
        pl.parse(code)
    assert isinstance(info.value, pl.ParserError)
    assert message in str(info.value)


def test_serialize_round_trip():
    from pypto_xdsl.runtime import ir

    func = pl.parse(VECTOR_ADD)
    data = ir.serialize(func)
    assert isinstance(data, bytes)
    restored = ir.deserialize(data)
    assert isinstance(restored, ir.Function) and restored.name == "vector_add"
    assert ir.serialize(restored) == data


def test_deserialize_rejects_bad_bytes():
    from xdsl.utils.exceptions import ParseError

    from pypto_xdsl.runtime import ir

    with pytest.raises(ParseError, match="invalid UTF-8 byte 0xff"):
        ir.deserialize(b"\xff")
    with pytest.raises(ParseError, match="Operation pypto.nope is not registered"):
        ir.deserialize(b"pypto.nope")


ROWS = 32


@pl.program
class PhaseFence:
    @pl.function(type=pl.FunctionType.InCore)
    def stripe(
        self, data: pl.Tensor[[4 * ROWS, 32], pl.FP32], row: pl.Scalar[pl.INDEX], bias: pl.Scalar[pl.FP32],
        out: pl.Out[pl.Tensor[[4 * ROWS, 32], pl.FP32]],
    ) -> pl.Tensor[[4 * ROWS, 32], pl.FP32]:
        t: pl.Tile[[ROWS, 32], pl.FP32] = pl.load(data, [row, 0], [ROWS, 32])
        return pl.store(pl.add(t, bias), [row, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self, data: pl.Tensor[[4 * ROWS, 32], pl.FP32], out: pl.Out[pl.Tensor[[4 * ROWS, 32], pl.FP32]]
    ) -> pl.Tensor[[4 * ROWS, 32], pl.FP32]:
        tids = pl.array.create(2, pl.TASK_ID)
        for phase, (prev,) in pl.range(2, init_values=(tids,)):
            fence = pl.system.task_dummy(deps=[prev])
            nxt = pl.array.create(2, pl.TASK_ID)
            for b in pl.parallel(2):
                out, tid = pl.submit(self.stripe, data, (phase * 2 + b) * ROWS, 1.0, out, deps=[fence])
                nxt[b] = tid
            tids = pl.yield_(nxt)
        return out


def _phase_fence_expected(data):
    return data + 1.0


def test_task_id_arrays_on_the_interpreter():
    data = np.random.default_rng(0).random((4 * ROWS, 32), dtype=np.float32)
    out = np.zeros_like(data)
    PhaseFence.run(data, out)
    np.testing.assert_allclose(out, _phase_fence_expected(data), rtol=1e-6)
    text = str(PhaseFence)
    assert "pypto.task_ids.create : !pypto.task_ids<2>" in text
    assert "pypto.task_ids.set %nxt_2[%b], %tid : !pypto.task_ids<2>" in text
    assert "pypto.task_dummy deps(" in text


def test_task_id_arrays_on_the_sim_target():
    import shutil

    from pypto_xdsl.runtime import RunConfig, run

    if shutil.which("g++") is None:
        pytest.fail("the sim target needs g++ (make setup installs it)")
    data = np.random.default_rng(1).random((4 * ROWS, 32), dtype=np.float32)
    out = np.zeros_like(data)
    compiled = run(PhaseFence, data, out, config=RunConfig(target="sim"))
    np.testing.assert_allclose(out, _phase_fence_expected(data), rtol=1e-6)
    host = compiled.files["host/main_orch.cpp"]
    assert "// task fence: waits for prev[0], prev[1] (launches on one stream run in order)" in host


def _orchestration(body: str) -> str:
    return (
        "@pl.program\nclass P:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def k(self, x: pl.Tensor[[8], pl.FP32], y: pl.Out[pl.Tensor[[8], pl.FP32]]) -> pl.Tensor[[8], pl.FP32]:\n"
        "        return pl.store(pl.load(x, [0], [8]), [0], y)\n"
        "    @pl.function(type=pl.FunctionType.Orchestration)\n"
        "    def main(self, x: pl.Tensor[[8], pl.FP32], y: pl.Out[pl.Tensor[[8], pl.FP32]]) -> pl.Tensor[[8], pl.FP32]:\n"
        + "".join(f"        {line}\n" for line in body.splitlines())
        + "        return y\n"
    )


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("n = 2\na = pl.array.create(0, pl.TASK_ID)", "'extent' of pl.array.create must be a positive integer constant"),
        ("a = pl.array.create(2, pl.INT32)", "pl.array.create: only arrays of task ids (pl.TASK_ID) are supported"),
        ("a = pl.array.create(2, pl.TASK_ID)\na[0] = x", "only a task id can be stored in 'a' (!pypto.task_ids<2>)"),
        ("a = pl.array.create(2, pl.TASK_ID)\na[0:1] = a", "'a' is indexed by one index (tids[i] = tid)"),
        ("d = pl.system.task_dummy(deps=[x])", "deps must be a list of task ids (or arrays of them)"),
        ("d = pl.system.task_dummy([])", "pl.system.task_dummy takes deps= only"),
    ],
)
def test_task_id_array_errors(body, message):
    with pytest.raises(pl.ParserError) as info:
        pl.parse(_orchestration(body))
    assert message in str(info.value)
    assert str(info.value).startswith("<string>:")
