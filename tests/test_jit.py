"""@pl.jit: decorator flavours, dependency discovery, specialisation, caching, calling."""

from __future__ import annotations

import types

import numpy as np
import pytest

import pypto_xdsl.language as pl
from pypto_xdsl.dialects.attributes import FuncKind, TensorType
from pypto_xdsl.dialects.program import FuncOp
from pypto_xdsl.frontend.errors import ParserError
from pypto_xdsl.runtime import IgnoredOptionWarning, RunConfig

ROWS, COLS = 16, 64
SCALE = 2.0
rng = np.random.default_rng(0)


def arr(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def funcs(lowered) -> dict[str, FuncOp]:
    return {op.sym_name.data: op for op in lowered.module.ops if isinstance(op, FuncOp)}


# --------------------------------------------------------------------------- programs


@pl.jit
def add_rows(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.add(pl.load(a, [0, 0], [ROWS, COLS]), pl.load(b, [0, 0], [ROWS, COLS])), [0, 0], c)
    return c


@pl.jit.incore
def exp_kernel(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    t = pl.load(x, [0, 0], [ROWS, COLS])
    pl.store(pl.exp(t), [0, 0], out)
    return out


@pl.jit.inline
def twice(t):
    return pl.add(t, t)


@pl.jit.incore
def twice_kernel(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    out = pl.store(twice(pl.load(x, [0, 0], [ROWS, COLS])), [0, 0], out)
    return out


@pl.jit.opaque
def exp_then_twice(x: pl.Tensor, tmp: pl.Out[pl.Tensor], out: pl.Out[pl.Tensor]):
    tmp = exp_kernel(x, tmp)
    out = twice_kernel(tmp, out)
    return out


@pl.jit
def pipeline(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    tmp = pl.create_tensor([ROWS, COLS], dtype=pl.FP32)
    out = exp_then_twice(x, tmp, out)
    return out


@pl.jit.incore(level=pl.Level.AIV)
def aiv_kernel(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    out = pl.store(pl.load(x, [0, 0], [ROWS, COLS]), [0, 0], out)
    return out


@pl.jit
def copy_aiv(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    out = aiv_kernel(x, out)
    return out


M = pl.dynamic("M")


@pl.jit
def scale_rows(x: pl.Tensor[[M, COLS], pl.FP32], out: pl.Out[pl.Tensor[[M, COLS], pl.FP32]]):
    for i in pl.range(x.shape[0]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [i, 0], [1, COLS])
            out = pl.store(pl.mul(t, SCALE), [i, 0], out)
    return out


@pl.jit
def scale_rows_bound(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    R = pl.dynamic("R")
    x.bind_dynamic(0, R)
    out.bind_dynamic(0, R)
    rows, cols = x.shape
    for i in pl.range(rows):
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.store(pl.mul(pl.load(x, [i, 0], [1, cols]), SCALE), [i, 0], out)
    return out


@pl.jit
def accumulate(x: pl.Tensor, acc: pl.InOut[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.add(pl.load(acc, [0, 0], [ROWS, COLS]), pl.load(x, [0, 0], [ROWS, COLS]))
        acc = pl.store(t, [0, 0], acc)
    return acc


@pl.jit
def fresh_result(x: pl.Tensor):
    y = pl.exp(x)
    return y


@pl.jit
def scaled(x: pl.Tensor, factor: pl.FP32, out: pl.Out[pl.Tensor], flag: bool = True):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [ROWS, COLS])
        if flag:
            t = pl.mul(t, factor)
        out = pl.store(t, [0, 0], out)
    return out


# --------------------------------------------------------------------------- decorator flavours


def test_entry_runs_writes_out_in_place_and_returns_it():
    a, b, c = arr(ROWS, COLS), arr(ROWS, COLS), np.zeros((ROWS, COLS), np.float32)
    result = add_rows(a, b, c, config=RunConfig())
    np.testing.assert_allclose(c, a + b, rtol=1e-6)
    assert result is c


def test_flavours_give_function_kinds():
    x = arr(ROWS, COLS)
    kinds = {n: f.func_kind for n, f in funcs(pipeline.specialize(x, np.zeros_like(x))).items()}
    assert kinds == {
        "pipeline": FuncKind.ORCHESTRATION,
        "exp_then_twice": FuncKind.OPAQUE,
        "exp_kernel": FuncKind.INCORE,
        "twice_kernel": FuncKind.INCORE,
        "twice": FuncKind.INLINE,
    }
    assert funcs(copy_aiv.specialize(x, np.zeros_like(x)))["aiv_kernel"].func_kind == FuncKind.AIV


def test_transitive_dependencies_run_and_inline_is_spliced():
    x, out = arr(ROWS, COLS), np.zeros((ROWS, COLS), np.float32)
    pipeline(x, out)
    np.testing.assert_allclose(out, 2 * np.exp(x), rtol=1e-5)
    lowered = pipeline.lower(x, out)
    assert "twice" not in lowered.functions  # inline-functions spliced it
    assert lowered.functions["exp_kernel"].func_type == FuncKind.AIV  # pypto-default gave the vector kernel its core


@pl.jit.graph
def doubled_layer(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [ROWS, COLS])
        out = pl.store(pl.add(t, t), [0, 0], out)
    return out


@pl.jit
def through_graph(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    out = doubled_layer(a, out)
    return out


def test_a_jit_graph_function_is_outlined_and_stays_a_graph_function():
    x, out = arr(ROWS, COLS), np.zeros((ROWS, COLS), np.float32)
    through_graph(x, out)
    np.testing.assert_allclose(out, 2 * x, rtol=1e-6)
    lowered = through_graph.lower(x, out)
    assert doubled_layer.flavour == "jit.graph"
    assert lowered.functions["doubled_layer"].func_type == FuncKind.GRAPH
    assert lowered.functions["doubled_layer_incore_0"].func_type == FuncKind.AIV  # vector-only: expand-mixed-kernel makes it aiv


def test_sub_function_called_from_python_runs_as_its_own_program():
    x, out = arr(ROWS, COLS), np.zeros((ROWS, COLS), np.float32)
    assert exp_kernel(x, out) is out
    np.testing.assert_allclose(out, np.exp(x), rtol=1e-5)


def test_parenthesised_decorators_and_options():
    @pl.jit()
    def e(x: pl.Tensor):
        return pl.exp(x)

    @pl.jit.inline()
    def h(t):
        return t

    assert e.is_entry and h.flavour == "jit.inline"
    assert repr(e).startswith("<@pl.jit function")


@pytest.mark.parametrize(
    ("decorate", "message"),
    [
        (lambda: pl.jit.host(foo=1), "@pl.jit.host has no option 'foo'"),
        (lambda: pl.jit.extern(source="k.cpp"), "@pl.jit.extern is not supported"),
        (lambda: pl.jit(foo=1), "@pl.jit has no option 'foo'"),
        (lambda: pl.jit.inline(level=pl.Level.AIC), "@pl.jit.inline has no option 'level'"),
        (lambda: pl.jit.incore(level=3), "expects a pl.Level"),
    ],
)
def test_unsupported_decorators_are_located_diagnostics(decorate, message):
    with pytest.raises(ParserError, match=message.replace("(", r"\(").replace(")", r"\)")) as info:

        @decorate()
        def f(a: pl.Tensor):
            return a

    assert info.value.filename == __file__ and info.value.line is not None


def test_decorating_twice_or_a_class_is_a_diagnostic():
    with pytest.raises(ParserError, match="already @pl.jit"):
        pl.jit(add_rows)
    with pytest.raises(ParserError, match="got the class"):

        @pl.jit
        class C:
            pass


def test_calling_an_entry_from_a_jit_function_is_a_diagnostic():
    @pl.jit
    def outer(x: pl.Tensor, out: pl.Out[pl.Tensor]):
        out = add_rows(x, x, out)
        return out

    x = arr(ROWS, COLS)
    with pytest.raises(ParserError, match="'add_rows' is a @pl.jit entry and cannot be called") as info:
        outer(x, np.zeros_like(x))
    assert "add_rows(x, x, out)" in info.value.source_line


# --------------------------------------------------------------------------- dependency discovery


def test_dependencies_from_a_factory_closure_and_a_module_attribute():
    def make(factor):
        @pl.jit.incore
        def k(x: pl.Tensor, out: pl.Out[pl.Tensor]):
            out = pl.store(pl.mul(pl.load(x, [0, 0], [ROWS, COLS]), factor), [0, 0], out)
            return out

        @pl.jit
        def entry(x: pl.Tensor, out: pl.Out[pl.Tensor]):
            out = k(x, out)
            return out

        return entry

    x = arr(ROWS, COLS)
    for factor in (3.0, 5.0):
        out = np.zeros_like(x)
        make(factor)(x, out)
        np.testing.assert_allclose(out, factor * x, rtol=1e-6)

    kernels = types.SimpleNamespace()
    kernels.exp_kernel = exp_kernel
    mod = types.ModuleType("kernels")
    mod.exp_kernel = exp_kernel

    @pl.jit
    def via_module(x: pl.Tensor, out: pl.Out[pl.Tensor]):
        out = mod.exp_kernel(x, out)
        return out

    out = np.zeros_like(x)
    via_module(x, out)
    np.testing.assert_allclose(out, np.exp(x), rtol=1e-5)


def test_shared_dependency_and_name_collision():
    def make_exp():
        @pl.jit.incore
        def exp_kernel(x: pl.Tensor, out: pl.Out[pl.Tensor]):  # same name as the module's
            out = pl.store(pl.mul(pl.load(x, [0, 0], [ROWS, COLS]), 4.0), [0, 0], out)
            return out

        return exp_kernel

    other = make_exp()

    @pl.jit
    def both(x: pl.Tensor, a: pl.Out[pl.Tensor], b: pl.Out[pl.Tensor]):
        a = exp_kernel(x, a)
        b = other(x, b)
        return a, b

    x = arr(ROWS, COLS)
    a, b = np.zeros_like(x), np.zeros_like(x)
    ra, rb = both(x, a, b)
    assert ra is a and rb is b
    np.testing.assert_allclose(a, np.exp(x), rtol=1e-5)
    np.testing.assert_allclose(b, 4 * x, rtol=1e-6)
    assert set(funcs(both.specialize(x, a, b))) == {"both", "exp_kernel", "exp_kernel_1"}


def test_module_level_pl_function_called_by_name_from_a_program():
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[ROWS, COLS], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
            out = module_kernel(x, out)
            return out

    x = arr(ROWS, COLS)
    out = np.zeros_like(x)
    P.run(x, out)
    np.testing.assert_allclose(out, -x)
    assert {f.sym_name.data for f in P.module.ops} == {"main", "module_kernel"}


@pl.function(type=pl.FunctionType.InCore)
def module_kernel(
    x: pl.Tensor[[ROWS, COLS], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]
) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
    out = pl.store(pl.neg(pl.load(x, [0, 0], [ROWS, COLS])), [0, 0], out)
    return out


def test_program_annotations_may_use_factory_locals():
    def build(batch: int, heads: int):
        rows = batch * heads  # a local of the factory, read only by the annotations

        @pl.program
        class P:
            @pl.function
            def main(self, q: pl.Tensor[[rows, COLS], pl.FP32]) -> pl.Tensor[[rows, COLS], pl.FP32]:
                return q * 2.0

        return P

    P = build(2, 3)
    x = arr(6, COLS)
    np.testing.assert_allclose(P.run(x), 2 * x)


# --------------------------------------------------------------------------- specialisation, dynamic dims


def test_dynamic_dim_in_annotation_stays_symbolic_one_compile_for_all_sizes():
    scale_rows.cache_clear()
    for rows in (3, 7, 12):
        x = arr(rows, COLS)
        out = np.zeros_like(x)
        scale_rows(x, out)
        np.testing.assert_allclose(out, SCALE * x, rtol=1e-6)
    info = scale_rows.cache_info()
    assert info.misses == 1 and info.hits == 2
    entry = funcs(scale_rows.lower(arr(5, COLS), np.zeros((5, COLS), np.float32)))["scale_rows"]
    assert entry.args[0].type == TensorType(["M", COLS], entry.args[0].type.element_type)


def test_bind_dynamic_and_shape_unpacking():
    scale_rows_bound.cache_clear()
    for rows in (2, 9):
        x = arr(rows, COLS)
        out = np.zeros_like(x)
        scale_rows_bound(x, out)
        np.testing.assert_allclose(out, SCALE * x, rtol=1e-6)
    assert scale_rows_bound.cache_info().misses == 1
    entry = funcs(scale_rows_bound.specialize(arr(4, COLS), np.zeros((4, COLS), np.float32)))["scale_rows_bound"]
    assert entry.args[1].type.get_shape() == ("R", COLS)


def test_dynamic_dim_extents_must_agree():
    with pytest.raises(TypeError, match="the dynamic dimension M is 4 in dimension 0 of 'x' but 5 in dimension 0 of 'out'"):
        scale_rows(arr(4, COLS), np.zeros((5, COLS), np.float32))


def test_static_dims_and_dtypes_specialise():
    add_rows.cache_clear()
    rt = add_rows.runtime()
    a = arr(ROWS, COLS)
    add_rows(a, a, np.zeros_like(a))
    add_rows(a, a, np.zeros_like(a))
    assert (rt.stats.misses, rt.stats.hits) == (1, 1)
    big = arr(2 * ROWS, COLS)
    add_rows(big, big, np.zeros_like(big))  # another shape: another specialisation
    h = a.astype(np.float16)
    add_rows(h, h, np.zeros_like(h))  # another dtype
    assert rt.stats.misses == 3


def test_scalars_are_specialisation_constants():
    scaled.cache_clear()
    rt = scaled.runtime()
    x = arr(ROWS, COLS)
    for factor, flag in ((2.0, True), (3.0, True), (3.0, False), (3.0, False)):
        out = np.zeros_like(x)
        scaled(x, factor, out, flag=flag)
        np.testing.assert_allclose(out, factor * x if flag else x, rtol=1e-6)
    assert (rt.stats.misses, rt.stats.hits) == (3, 1)
    lowered = scaled.specialize(x, 2, np.zeros_like(x))  # the int 2 is pl.FP32 2.0
    assert [a.type for a in funcs(lowered)["scaled"].args] == [TensorType([ROWS, COLS], pl.FP32.to_ir())] * 2


def test_module_constants_are_part_of_the_key():
    global SCALE
    rt = scale_rows.runtime()
    x = arr(3, COLS)
    out = np.zeros_like(x)
    scale_rows(x, out)
    misses = rt.stats.misses
    old, SCALE = SCALE, 5.0
    try:
        scale_rows(x, out)
        np.testing.assert_allclose(out, 5.0 * x, rtol=1e-6)
        assert rt.stats.misses == misses + 1
    finally:
        SCALE = old


def test_cached_call_compiles_nothing(monkeypatch):
    a = arr(ROWS, COLS)
    add_rows(a, a, np.zeros_like(a))
    import pypto_xdsl.runtime.compiled as compiled

    def fail(*args, **kwargs):
        raise AssertionError("compiled again")

    monkeypatch.setattr(compiled, "compile_specialisation", fail)
    c = np.zeros_like(a)
    add_rows(a, a, c)
    np.testing.assert_allclose(c, 2 * a, rtol=1e-6)


# --------------------------------------------------------------------------- in-place arguments and results


def test_inout_is_read_and_written():
    x, acc = arr(ROWS, COLS), arr(ROWS, COLS)
    want = acc + x
    assert accumulate(x, acc) is acc
    np.testing.assert_allclose(acc, want, rtol=1e-6)


def test_fresh_results_are_returned():
    x = arr(ROWS, COLS)
    y = fresh_result(x)
    assert isinstance(y, np.ndarray) and not np.shares_memory(y, x)
    np.testing.assert_allclose(y, np.exp(x), rtol=1e-5)


def test_array_protocols_and_lists():
    class Wrapped:
        def __init__(self, a):
            self.a = a

        def __array__(self, dtype=None, copy=None):
            return self.a

    class Exported:
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, **kwargs):
            return self.a.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    a = arr(ROWS, COLS)
    c = np.zeros_like(a)
    add_rows(Wrapped(a), Exported(a), Wrapped(c))
    np.testing.assert_allclose(c, 2 * a, rtol=1e-6)
    c2 = np.zeros_like(a)
    add_rows(a.tolist(), a, c2)
    np.testing.assert_allclose(c2, 2 * a, rtol=1e-6)
    with pytest.raises(TypeError, match="is a list and cannot be written in place"):
        add_rows(a, a, c2.tolist())


# --------------------------------------------------------------------------- argument errors


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda a: add_rows(a, a), "no argument for parameter 'c'"),
        (lambda a: add_rows(a, a, a, a), r"add_rows\(a, b, c\) takes 3 arguments, got 4"),
        (lambda a: add_rows(a, a, c=a, d=a), "has no parameter 'd'"),
        (lambda a: scale_rows(a[:, :8], a[:, :8]), r"parameter 'x' of scale_rows\(\) has the shape \[M, 64\], got \[16, 8\]"),
        (lambda a: scale_rows(a[0], a[0]), "parameter 'x' of scale_rows\\(\\) has rank 2"),
        (lambda a: scale_rows(a.astype(np.float16), a), "parameter 'x' of scale_rows\\(\\) is pl.FP32, got a FP16 tensor"),
        (lambda a: scaled(a, a, a), r"parameter 'factor' of scaled\(\) is a scalar \(pl.FP32\), got the tensor"),
        (lambda a: scaled(a, "2", a), "argument 'factor' of scaled\\(\\) must be a tensor .* or a Python number, got str"),
        (lambda a: scaled(a, 2.0, 3.0), "parameter 'out' of scaled\\(\\) is pl.Out: pass a tensor"),
        (lambda a: scaled(a, 2.0, a, flag=1), "parameter 'flag' of scaled\\(\\) is pl.BOOL, got 1"),
        (lambda a: add_rows(a, a, a.astype(np.float64)), "dtype float64, which pl has no dtype for"),
        (lambda a: add_rows(a, a, a, config="sim"), "config= takes a pypto_xdsl.runtime.RunConfig"),
    ],
)
def test_argument_errors_name_the_parameter(call, message):
    a = arr(ROWS, COLS)
    with pytest.raises(TypeError, match=message) as info:
        call(a)
    assert isinstance(info.value, ParserError) and info.value.filename == __file__


# --------------------------------------------------------------------------- inspection


def test_lower_compile_and_signature_mode():
    a = arr(ROWS, COLS)
    lowered = add_rows.lower(a, a, np.zeros_like(a))
    assert set(lowered.functions) == {"add_rows", "add_rows_incore_0"}
    assert lowered.functions["add_rows_incore_0"].func_type == FuncKind.AIV
    assert "pypto.func aiv @add_rows_incore_0" in str(lowered)
    compiled = add_rows.compile(a, a, np.zeros_like(a))
    assert "kernels/add_rows_incore_0.cpp" in compiled.files
    assert "__global__" in compiled.files["kernels/add_rows_incore_0.cpp"]
    assert "// ===== file: host/main.cpp =====" in compiled.ascendc()
    out = np.zeros_like(a)
    compiled(a, a, out)  # a compiled program runs like the function
    np.testing.assert_allclose(out, 2 * a, rtol=1e-6)

    @pl.jit
    def typed(x: pl.Tensor[[8, 16], pl.FP16], out: pl.Out[pl.Tensor[[8, 16], pl.FP16]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.store(pl.load(x, [0, 0], [8, 16]), [0, 0], out)
        return out

    assert set(typed.lower().functions) == {"typed", "typed_incore_0"}  # from the annotations
    with pytest.raises(TypeError, match="every tensor parameter needs a full annotation"):
        add_rows.lower()

    @pl.jit
    def typed_scaled(x: pl.Tensor[[8, 16], pl.FP32], k: pl.FP32, out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.store(pl.mul(pl.load(x, [0, 0], [8, 16]), k), [0, 0], out)
        return out

    assert "3.000000e+00" in str(typed_scaled.lower(k=3.0))  # scalars by keyword
    with pytest.raises(TypeError, match="'k' is a scalar; without sample arguments give its value by keyword"):
        typed_scaled.lower()
    with pytest.raises(TypeError, match="dynamic shape \\[M, 64\\] and the sim target builds one size"):
        scale_rows.lower(config=RunConfig(target="sim"))


# --------------------------------------------------------------------------- RunConfig


def test_run_config_spelling_and_ignored_options(monkeypatch):
    from pypto_xdsl.runtime import config as cfg

    monkeypatch.setattr(cfg, "_reported", set())
    with pytest.warns(IgnoredOptionWarning, match="device_id=11") as record:
        RunConfig(platform="a2a3sim", device_id=11, enable_chip_swimlane=False, strategy=cfg.OptimizationStrategy.Default)
    assert len(record) == 1 and "enable_chip_swimlane" not in str(record[0].message)  # defaults are not reported
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        RunConfig(device_id=12)  # reported once per option
    with pytest.raises(TypeError, match="RunConfig has no option 'targte' \\(did you mean 'target'\\?\\)"):
        RunConfig(targte="sim")
    with pytest.raises(TypeError, match="platform"):
        RunConfig(platform="gpu")
    monkeypatch.setenv("PYPTO_XDSL_TARGET", "sim")
    assert RunConfig().target == "sim"
    assert RunConfig(keep_build_dir=True).save_kernels
    positional = RunConfig("a2a3sim", 0, 1e-3)  # PyPTO's field order
    assert (positional.platform, positional.rtol) == ("a2a3sim", 1e-3)
    # PyPTO's ignored options read back: as given, else PyPTO's default (its swimlane tests
    # read config.enable_chip_swimlane and skip when it is 0)
    assert RunConfig().enable_chip_swimlane == 0 and RunConfig(device_id=3).device_id == 3
    with pytest.raises(AttributeError, match="no attribute 'enable_swimlane'"):
        RunConfig().enable_swimlane


def test_pipeline_option_and_saved_program(tmp_path):
    a = arr(ROWS, COLS)
    c = np.zeros_like(a)
    add_rows(a, a, c, config=RunConfig(pipeline="", save_kernels_dir=tmp_path / "kept"))
    np.testing.assert_allclose(c, 2 * a, rtol=1e-6)
    assert "pypto.incore_scope" in (tmp_path / "kept" / "program.mlir").read_text()  # no pass ran
    with pytest.raises(ParserError, match="pipeline 'no-such-pass'"):
        add_rows(a, a, c, config=RunConfig(pipeline="no-such-pass"))


def test_dependency_calls_take_keyword_arguments():
    @pl.jit
    def by_keyword(x: pl.Tensor, out: pl.Out[pl.Tensor]):
        out = exp_kernel(x, out=out)
        return out

    x = arr(ROWS, COLS)
    out = np.zeros_like(x)
    by_keyword(x, out)
    np.testing.assert_allclose(out, np.exp(x), rtol=1e-5)

    @pl.jit
    def misspelt(x: pl.Tensor, out: pl.Out[pl.Tensor]):
        out = exp_kernel(x, ouput=out)
        return out

    with pytest.raises(ParserError, match="'exp_kernel' has no parameter 'ouput' \\(did you mean 'out'\\?\\)"):
        misspelt(x, out)
