"""Kernel performance in the simulation's cost model (docs/performance.md): generated kernels
against hand-written sample-style kernels (tests/perf_kernels/) for the same op, same sizes.

    .venv/bin/python benchmarks/bench_kernels.py                 # every op
    .venv/bin/python benchmarks/bench_kernels.py --ops add,softmax --details

For each op: estimated cycles of the generated program (all its kernels) and of the
hand-written kernel, the bounding resource, the fraction of the model's roofline (GM bandwidth
of the whole chip for the vector ops: the program's input + output bytes at 1.6 TB/s; cube peak
of the 24 cube cores for the matmuls) and the ratio generated / hand-written. Both run in the
same simulation, on the same inputs, and are checked against numpy. Numbers are estimates of a
model, not measurements. `--what-if` adds the model's estimates for the optimisations of
issue #17 (halving-tree reductions, Reciprocal + Mul, larger tiles, the copy-in prefetch,
no barrier latency; for the matmul, MTE3/Fixpipe writes kept in L2).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pypto_xdsl.backend.ascendc.sim import profile as prof  # noqa: E402

KERNELS = ROOT / "tests" / "perf_kernels"
ROWS, COLS, BLOCKS = 1536, 1024, 48  # f32 [1536, 1024]: 6 MiB per tensor, 32 rows per vector core
MM = 1024
ATTN_S, ATTN_D = 512, 128
ATTN_SCALE = 0.08838834764831845  # 1 / sqrt(ATTN_D)

HEADER = '''import pypto_xdsl.language as pl
X = pl.Tensor[[{rows}, {cols}], pl.FP32]
'''


def _vector_program(name: str, params: str, body: str) -> str:
    return HEADER.format(rows=ROWS, cols=COLS) + f'''
@pl.program
class P:
    @pl.function
    def main(self, {params}, o: pl.Out[X]) -> X:
        for i in pl.spmd({BLOCKS}, name_hint="{name}"):
{body.replace("r0:r1", f"i * {ROWS // BLOCKS} : (i + 1) * {ROWS // BLOCKS}")}
        return o
'''


def _matmul_program(pl_out: str) -> str:
    out_dtype = "" if pl_out == "FP32" else f", out_dtype=pl.{pl_out}"
    assert MM == 1024, "the balanced deal below is written for 1024 columns"
    return f'''import pypto_xdsl.language as pl
A = pl.Tensor[[{MM}, {MM}], pl.FP16]
C = pl.Tensor[[{MM}, {MM}], pl.{pl_out}]
@pl.program
class P:
    @pl.function
    def main(self, a: A, b: A, c: pl.Out[C]) -> C:
        # a balanced deal over the 24 cube cores: core i owns row block r = i % 8 and a band of
        # 352 (band 0) or 336 columns: two whole 128-column blocks of columns 256..1023, then one
        # ragged block of columns 0..255 (96 or 80 wide, a run-time valid width), so every core
        # does 22 or 21 of the 64 x 8 fractal columns instead of 3 or 2 blocks of 128; its A
        # rows stay in L1 for its three blocks
        for i in pl.spmd(24, name_hint="matmul"):
            r = i % 8
            band = i // 8
            for j in pl.range(3):
                if j < 2:
                    col = 256 + (2 * band + j) * 128
                    w = 128
                else:
                    col = 96 * pl.min(band, 1) + 80 * pl.max(band - 1, 0)
                    w = 96 - 16 * pl.min(band, 1)
                bv = pl.slice(b, [{MM}, 128], [0, col], valid_shape=[{MM}, w])
                c = pl.assemble(c, pl.matmul(a[r * 128 : (r + 1) * 128], bv{out_dtype}), [r * 128, col])
        return c
'''


PROGRAMS = {
    "add": _vector_program("add", "a: X, b: X", "            o[r0:r1] = a[r0:r1] + b[r0:r1]"),
    "chain": _vector_program("chain", "a: X, b: X, c: X", "            o[r0:r1] = pl.relu(a[r0:r1] * b[r0:r1] + c[r0:r1])"),
    "gelu": _vector_program(
        "gelu", "x: X",
        "            t = x[r0:r1]\n"
        "            u = (t + t * t * t * 0.044715) * 1.5957691216057308\n"
        "            o[r0:r1] = t - t / (pl.exp(u) + 1.0)",
    ),
    "softmax": _vector_program(
        "softmax", "x: X",
        "            t = x[r0:r1]\n"
        "            e = pl.exp(pl.row_expand_sub(t, pl.row_max(t)))\n"
        "            o[r0:r1] = pl.row_expand_div(e, pl.row_sum(e))",
    ),
    "rmsnorm": _vector_program(
        "rmsnorm", "x: X",
        "            t = x[r0:r1]\n"
        f"            ms = pl.row_sum(t * t) * {1.0 / COLS!r} + 1e-6\n"
        "            o[r0:r1] = pl.row_expand_div(t, pl.sqrt(ms))",
    ),
    "layernorm": _vector_program(
        "layernorm", "x: X",
        "            t = x[r0:r1]\n"
        f"            xc = pl.row_expand_sub(t, pl.row_sum(t) * {1.0 / COLS!r})\n"
        f"            var = pl.row_sum(xc * xc) * {1.0 / COLS!r} + 1e-5\n"
        "            o[r0:r1] = pl.row_expand_div(xc, pl.sqrt(var))",
    ),
    "matmul": _matmul_program(pl_out="FP32"),
    # the same product written f16, as the devkit's matmul_basic_api_high_performance sample
    # does: the Fixpipe converts each f32 accumulator on its way out (quantPre F322F16)
    "matmul_f16": _matmul_program(pl_out="FP16"),

    # The attention block in one scope, flash-attention style (examples/mixed/flash_attention.py
    # with Kt as input): one MIX kernel, one 64-row query block per core group, an online
    # softmax over 64-column key blocks; expand-mixed-kernel splits it into the AIC's and the
    # AIV's halves, which exchange S_j, P_j and P_j V_j through GM rings.
    "attention": f'''import pypto_xdsl.language as pl
S, D, BQ, BK = 512, 128, 64, 64
@pl.program
class P:
    @pl.function
    def main(self, q: pl.Tensor[[S, D], pl.FP16], kt: pl.Tensor[[D, S], pl.FP16], v: pl.Tensor[[S, D], pl.FP16],
             o: pl.Out[pl.Tensor[[S, D], pl.FP32]]) -> pl.Tensor[[S, D], pl.FP32]:
        for qi in pl.spmd(S // BQ, name_hint="attention"):
            q_left = pl.move(pl.load(q, [qi * BQ, 0], [BQ, D], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            m_i = pl.tile.full([BQ, 1], pl.FP32, -1e30)
            l_i = pl.tile.full([BQ, 1], pl.FP32, 0.0)
            o_i = pl.tile.full([BQ, D], pl.FP32, 0.0)
            for j in pl.range(S // BK):
                k_right = pl.move(pl.load(kt, [0, j * BK], [D, BK], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
                s_ij = pl.mul(pl.move(pl.matmul(q_left, k_right), target_memory=pl.Mem.Vec), {ATTN_SCALE!r})
                m_new = pl.maximum(m_i, pl.row_max(s_ij))
                p = pl.row_expand_expdif(s_ij, m_new)
                alpha = pl.exp(pl.sub(m_i, m_new))
                l_i = pl.add(pl.mul(l_i, alpha), pl.row_sum(p))
                p_left = pl.move(pl.cast(p, pl.FP16), target_memory=pl.Mem.Left)
                v_right = pl.move(pl.load(v, [j * BK, 0], [BK, D], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
                pv = pl.move(pl.matmul(p_left, v_right), target_memory=pl.Mem.Vec)
                o_i = pl.add(pl.row_expand_mul(o_i, alpha), pv)
                m_i = m_new
            o = pl.store(pl.row_expand_div(o_i, l_i), [qi * BQ, 0], o)
        return o
''',
    # The same block as three launches through GM intermediates (how it was benchmarked before
    # MIX kernels existed): scores on the cube, softmax + cast to f16 on the vector cores, P x V
    # on the cube.
    "attn_3launch": '''import pypto_xdsl.language as pl
S, D = 512, 128
@pl.program
class P:
    @pl.function
    def main(self, q: pl.Tensor[[S, D], pl.FP16], kt: pl.Tensor[[D, S], pl.FP16], v: pl.Tensor[[S, D], pl.FP16],
             o: pl.Out[pl.Tensor[[S, D], pl.FP32]]) -> pl.Tensor[[S, D], pl.FP32]:
        s = pl.create_tensor([S, S], dtype=pl.FP32)
        p = pl.create_tensor([S, S], dtype=pl.FP16)
        for i in pl.spmd(8, name_hint="scores"):
            s[i * 64 : (i + 1) * 64] = pl.matmul(q[i * 64 : (i + 1) * 64], kt)
        for i in pl.spmd(32, name_hint="attn_softmax"):
            t = s[i * 16 : (i + 1) * 16] * 0.08838834764831845
            e = pl.exp(pl.row_expand_sub(t, pl.row_max(t)))
            p[i * 16 : (i + 1) * 16] = pl.cast(pl.row_expand_div(e, pl.row_sum(e)), pl.FP16)
        for i in pl.spmd(8, name_hint="pv"):
            o[i * 64 : (i + 1) * 64] = pl.matmul(p[i * 64 : (i + 1) * 64], v)
        return o
''',
}


def _softmax(x):
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def _gelu(x):
    return x - x / (np.exp((x + 0.044715 * x**3) * 1.5957691216057308) + 1.0)


def _rmsnorm(x):
    return x / np.sqrt((x * x).mean(1, keepdims=True) + 1e-6)


def _layernorm(x):
    xc = x - x.mean(1, keepdims=True)
    return xc / np.sqrt((xc * xc).mean(1, keepdims=True) + 1e-5)


def _attention(q, kt, v):
    s = (q.astype(np.float32) @ kt.astype(np.float32)) * ATTN_SCALE
    return _softmax(s).astype(np.float16).astype(np.float32) @ v.astype(np.float32)


@dataclass
class Op:
    name: str
    inputs: Callable[[np.random.Generator], list[np.ndarray]]
    reference: Callable[..., np.ndarray]
    hand: tuple[str, str, int, dict[str, Any]] | None  # file, kernel, blocks, defines
    macs: int = 0
    rtol: float = 1e-4
    atol: float = 1e-5
    note: str = ""
    results: dict[str, Any] = field(default_factory=dict)
    program: Callable[[], Any] | None = None  # the program's module, when it is not in PROGRAMS
    out_dtype: Any = np.float32  # the generated program's output buffer


def _example(name: str):
    """A program of examples/mixed/ (build, inputs, reference)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"mixed_{name}", ROOT / "examples" / "mixed" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _mixed_example(name: str) -> Op:
    """A MIX program of examples/mixed/ at the shape its tests use (f16), no hand-written kernel."""
    import pypto_xdsl.language as pl

    example, shape, extra, note = MIXED_OPS[name]
    ex = _example(example)
    macs = 2 * shape[0] * shape[0] * shape[1] if example == "flash_attention" else 2 * shape[0] * shape[1] * shape[2]
    return Op(name, lambda r: list(ex.inputs(*shape)[:-1]), lambda *a: ex.reference(*a, *extra), None,
              macs=macs, rtol=2e-2, atol=2e-2, note=note,
              program=lambda: ex.build(*shape, pl.FP16, *extra).fresh_module())


def _mat(rng, n=1):
    return [rng.standard_normal((ROWS, COLS)).astype(np.float32) for _ in range(n)]


OPS = [
    Op("add", lambda r: _mat(r, 2), lambda a, b: a + b, ("eltwise_stream.cpp", "eltwise_stream", BLOCKS, {"OP": 0})),
    Op("chain", lambda r: _mat(r, 3), lambda a, b, c: np.maximum(a * b + c, 0),
       ("eltwise_stream.cpp", "eltwise_stream", BLOCKS, {"OP": 1, "TILE_LENGTH": 4096})),
    Op("gelu", lambda r: _mat(r), _gelu, ("eltwise_stream.cpp", "eltwise_stream", BLOCKS, {"OP": 2})),
    Op("softmax", lambda r: _mat(r), _softmax, ("rows.cpp", "rows", BLOCKS, {"OP": 0})),
    Op("rmsnorm", lambda r: _mat(r), _rmsnorm, ("rows.cpp", "rows", BLOCKS, {"OP": 1})),
    Op("layernorm", lambda r: _mat(r), _layernorm, ("rows.cpp", "rows", BLOCKS, {"OP": 2})),
    Op("matmul", lambda r: [r.standard_normal((MM, MM)).astype(np.float16) for _ in range(2)],
       lambda a, b: a.astype(np.float32) @ b.astype(np.float32), ("matmul_tiled.cpp", "matmul_tiled", 24, {}),
       macs=MM**3, rtol=2e-3, atol=2e-2),
    Op("matmul_f16", lambda r: [r.standard_normal((MM, MM)).astype(np.float16) for _ in range(2)],
       lambda a, b: (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16),
       ("matmul_tiled.cpp", "matmul_tiled", 24, {"OUT_F16": 1}), macs=MM**3, rtol=2e-3, atol=2e-2,
       note="f16 output, converted by the Fixpipe", out_dtype=np.float16),
    Op("attention", lambda r: _attention_inputs(r), _attention,
       ("attention_mix.cpp", "attention_mix", ATTN_S // 64, {"SEQ": ATTN_S, "HEAD_DIM": ATTN_D}),
       macs=2 * ATTN_S * ATTN_S * ATTN_D, rtol=2e-2, atol=2e-3,
       note="one MIX kernel, both members software-pipelined (pipeline-cross-core-loops: three key blocks; the hand-written one: one)"),
    Op("attn_3launch", lambda r: _attention_inputs(r), _attention, None, macs=2 * ATTN_S * ATTN_S * ATTN_D,
       rtol=2e-2, atol=2e-3, note="3 launches (cube, vector, cube) through GM; launch overhead not modelled"),
]
# the MIX programs of examples/mixed/ at their tests' shapes (tests/test_mix_kernels_sim.py)
MIXED_OPS = {
    "ffn_silu": ("ffn", (128, 64, 256), ("silu",), "examples/mixed/ffn.py 128x64x256 f16, silu"),
    "ffn_gelu": ("ffn", (64, 128, 128), ("gelu",), "examples/mixed/ffn.py 64x128x128 f16, gelu"),
    "flash_attn": ("flash_attention", (256, 64), (), "examples/mixed/flash_attention.py 256x64 f16"),
}


def _attention_inputs(rng):
    return [rng.standard_normal(s).astype(np.float16) for s in ((ATTN_S, ATTN_D), (ATTN_D, ATTN_S), (ATTN_S, ATTN_D))]


def run_generated(op: Op, work: Path, depth: int | None = None) -> prof.KernelProfile | dict[str, prof.KernelProfile]:
    """`depth`: MIX loops rotated by that many iterations (pipeline-cross-core-loops' option)
    instead of the pass's default, which the backend runs."""
    from pypto_xdsl.frontend.program import parse_python_file
    from pypto_xdsl.tools.pypto_compile import apply_pipeline, default_pipeline, simulate

    module = op.program() if op.program is not None else parse_python_file(PROGRAMS[op.name], f"<bench {op.name}>")
    module.verify()
    pipeline = default_pipeline()
    if depth is not None:
        pipeline += f",hoist-cube-loads,pipeline-cross-core-loops{{depth={depth}}}"
    apply_pipeline(module, pipeline)
    inputs = op.inputs(np.random.default_rng(0))
    out = np.zeros_like(op.reference(*inputs), dtype=op.out_dtype)
    report = simulate(module, work / "gen", inputs=[*inputs, out], profile=True, compare=False)
    np.testing.assert_allclose(report.outputs[next(iter(report.outputs))], op.reference(*inputs),
                               rtol=op.rtol, atol=op.atol, err_msg=f"generated {op.name}")
    from pypto_xdsl.backend.ascendc.emit import choose_entry

    op.results["min_bytes"] = prof.program_min_bytes(choose_entry(module, None))
    return prof.by_kernel(report.profile)


def run_hand(op: Op, work: Path, extra: dict[str, Any] | None = None, cost: dict[str, float] | None = None):
    src, kernel, blocks, defines = op.hand  # type: ignore[misc]
    inputs = op.inputs(np.random.default_rng(0))
    want = op.reference(*inputs)
    if src == "eltwise_stream.cpp":
        pad = [np.zeros(8, np.float32)] * (3 - len(inputs))
        args = [*inputs, *pad, np.zeros_like(want), want.size]
    elif src == "rows.cpp":
        args = [*inputs, np.zeros_like(want), ROWS]
    elif src == "attention_mix.cpp":
        ring_bytes = 2 * 64 * 64 * 4 + 2 * 64 * 64 * 2 + 2 * 64 * ATTN_D * 4  # scores, p and pv rings of 2 slots
        pipelined = int((extra or {}).pop("PIPELINED", 1))
        args = [*inputs, np.zeros_like(want), np.zeros(blocks * ring_bytes, np.uint8), pipelined, ATTN_SCALE]
    else:
        args = [*inputs, np.zeros_like(want)]
    run = prof.run_kernel_source(KERNELS / src, kernel, blocks, args, defines={**defines, **(extra or {})},
                                 cost_params=cost, work_dir=work, mix=src == "attention_mix.cpp")
    got = [a for a in run.outputs if a.shape == want.shape][-1]
    np.testing.assert_allclose(got, want, rtol=op.rtol, atol=op.atol, err_msg=f"hand-written {op.name}")
    return run.profile


def total(kernels: dict[str, prof.KernelProfile]) -> tuple[float, str]:
    cycles = sum(k.cycles for k in kernels.values())
    slowest = max(kernels.values(), key=lambda k: k.cycles)
    bound = slowest.bounding_pipe if len(kernels) == 1 else f"{slowest.bounding_pipe} ({slowest.kernel})"
    return cycles, bound


def roofline_cycles(op: Op, any_kernel: prof.KernelProfile) -> float:
    gm = op.results["min_bytes"] / (any_kernel.hbm_gbps / any_kernel.clock_ghz)
    cube = op.macs / (prof.CUBE_MACS_PER_CYCLE * any_kernel.chip_cores.get("aic", 24))
    return max(gm, cube)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ops", default=",".join([*(o.name for o in OPS), *MIXED_OPS]), help="comma-separated ops")
    ap.add_argument("--details", action="store_true", help="print the per-kernel metrics of the generated code")
    ap.add_argument("--rotation-depth", type=int, default=None,
                    help="MIX loops: pipeline-cross-core-loops{depth=N} instead of the pass's default")
    ap.add_argument("--what-if", action="store_true", help="the model's estimates for issue #17's optimisations")
    ap.add_argument("--published", action="store_true",
                    help="only: the model against the devkit's published Atlas A2 profiles of its Add sample")
    args = ap.parse_args(argv)
    if args.published:
        published(Path(tempfile.mkdtemp(prefix="bench-published-")))
        return 0
    wanted = args.ops.split(",")
    work = Path(tempfile.mkdtemp(prefix="bench-kernels-"))
    print(f"cost-model estimates (Ascend 910B, docs/performance.md); vector ops on f32 [{ROWS}, {COLS}] "
          f"(6 MiB per tensor) over {BLOCKS} blocks; matmul {MM}^3 f16 -> f32 (matmul_f16: -> f16)")
    header = (f"{'op':<10} {'generated':>11} {'bound':<14} {'roof':>6}   {'hand-written':>12} {'bound':<6} "
              f"{'roof':>6}   {'gen/hand':>8}")
    print(header)
    print("-" * len(header))
    details = []
    for op in [*OPS, *(_mixed_example(name) for name in MIXED_OPS if name in wanted)]:
        if op.name not in wanted:
            continue
        t0 = time.time()
        gen = run_generated(op, work / op.name, args.rotation_depth)
        cycles, bound = total(gen)
        k0 = next(iter(gen.values()))
        roof = roofline_cycles(op, k0)
        line = f"{op.name:<10} {cycles:>11,.0f} {bound:<14} {roof / cycles:>6.1%}"
        if op.hand is not None:
            hand = run_hand(op, work / op.name / "hand")
            line += (f"   {hand.cycles:>12,.0f} {hand.bounding_pipe:<6} {roof / hand.cycles:>6.1%}   "
                     f"{cycles / hand.cycles:>8.3f}")
            op.results["hand"] = hand
        else:
            line += f"   {'-':>12} {'':<6} {'':>6}   {'-':>8}"
        print(line + (f"   ({op.note})" if op.note else "") + f"   [{time.time() - t0:.0f} s]", flush=True)
        op.results["gen"] = gen
        if args.details:
            details.append(f"{op.name}:\n{prof.format_profile(gen)}\n{prof.format_report(gen, op.results['min_bytes'])}")
    if details:
        print("\n" + "\n".join(details))
    if args.what_if:
        what_if(work, wanted)
    return 0


# The devkit's Add tuning sample (examples/01_simd_cpp_api/05_best_practices/00_vector_compute/
# add_high_performance/README.md): z = x + y on [8192, 8192] f16, Atlas A2, aiv_time per case.
# Our kernel is f32 with the same bytes per copy and per repeat (TILE_LENGTH floats = 2 x that
# many halves), so the model sees the same transfers and vector work. One core is simulated
# with its share of the bandwidth (`shared_by` = the sample's core count) for `tiles` tiles and
# scaled to the sample's tiles per core (steady state).
PUBLISHED_ADD = [
    # case, cores, halves per copy, buffers, published aiv_time (us)
    ("case 1: 1 core, 8 KiB copies, single buffer", 1, 4096, 1, 6909.14),
    ("case 2: 48 cores, 8 KiB copies, single buffer", 48, 4096, 1, 297.14),
    ("case 3: 48 cores, 32 KiB copies, single buffer", 48, 16384, 1, 261.5),
    ("case 4: 48 cores, 32 KiB copies, double buffer", 48, 16384, 2, 257.56),
]


def published(work: Path) -> None:
    print("cost model vs the devkit's published Atlas A2 profile of its Add sample ([8192, 8192] f16)")
    print(f"{'':<48} {'published':>10} {'model':>10} {'model/published':>16}")
    total_halves = 8192 * 8192
    for label, cores, halves, buffers, us in PUBLISHED_ADD:
        floats = halves // 2
        tiles_per_core = total_halves / cores / halves
        tiles = min(64, int(tiles_per_core))
        n = tiles * floats
        x = np.ones(n, np.float32)
        run = prof.run_kernel_source(
            KERNELS / "eltwise_stream.cpp", "eltwise_stream", 1,
            [x, x, np.zeros(8, np.float32), np.zeros(n, np.float32), n],
            defines={"OP": 0, "TILE_LENGTH": floats, "BUFFER_NUM": buffers},
            cost_params={"shared_by": cores}, work_dir=work / f"c{cores}-{halves}-{buffers}",
        )
        model_us = run.profile.microseconds * tiles_per_core / tiles
        print(f"{label:<48} {us:>10.1f} {model_us:>10.1f} {model_us / us:>16.2f}")


def what_if(work: Path, wanted: list[str]) -> None:
    """The model's view of the optimisations of issue #17, on the hand-written kernels (which
    can be changed one aspect at a time) and on the generated ones (cost parameters)."""
    print("\nwhat-if (cost model): cycles of a variant / cycles of the baseline")
    rows = {o.name: o for o in OPS}
    for name in ("softmax", "rmsnorm", "layernorm"):
        if name not in wanted:
            continue
        op = rows[name]
        base = run_hand(op, work / name / "wi-base")
        for label, extra in (("serial chunk fold instead of halving tree", {"SERIAL_FOLD": 1}),
                             ("broadcast Div instead of Reciprocal + Mul", {"DIV_BROADCAST": 1}),
                             ("4-row tiles instead of 8 (generated tile size)", {"TILE_ROWS": 4}),
                             ("all three (the generated kernel's choices)",
                              {"SERIAL_FOLD": 1, "DIV_BROADCAST": 1, "TILE_ROWS": 4}),
                             ("next tile's copy-in before this tile's compute", {"PREFETCH": 1}),
                             ("prefetch, broadcast Div (the generated choices)", {"PREFETCH": 1, "DIV_BROADCAST": 1})):
            v = run_hand(op, work / name / f"wi-{'-'.join(f'{k}{w}' for k, w in extra.items())}", extra)
            print(f"  {name:<10} hand-written, {label:<48} {v.cycles / base.cycles:6.3f}  "
                  f"(V busy {v.utilisation().get('V', 0):5.1%} vs {base.utilisation().get('V', 0):5.1%})")
    if "attention" in wanted:
        op = rows["attention"]
        base = run_hand(op, work / "attention" / "wi-base")
        turns = run_hand(op, work / "attention" / "wi-turns", {"PIPELINED": 0})
        print(f"  {'attention':<10} hand-written, {'cores take turns (the generated kernel order)':<48} "
              f"{turns.cycles / base.cycles:6.3f}")
    for mm in ("matmul", "matmul_f16"):
        if mm not in wanted or "gen" not in rows[mm].results:
            continue
        # MTE3/Fixpipe writes kept in L2 while the program fits it (docs/performance.md, phase 8)
        op = rows[mm]
        hand = run_hand(op, work / mm / "wi-wb-hand", cost={"l2_write_back": 1})
        gen = _generated_with_cost(op, work / mm / "wi-wb-gen", "l2_write_back=1")
        roof = roofline_cycles(op, next(iter(op.results["gen"].values())))
        print(f"  {mm:<10} l2_write_back=1: generated {gen:,.0f} cycles ({roof / gen:.1%} of cube peak), "
              f"hand-written {hand.cycles:,.0f} ({roof / hand.cycles:.1%}), gen/hand {gen / hand.cycles:.3f}")
    for name in wanted:
        op = rows[name]
        if "gen" not in op.results:
            continue
        gen_cycles, _ = total(op.results["gen"])
        # barriers cost their pipeline latency: with zero V latency a barrier costs nothing
        c = _generated_with_cost(op, work / name / "wi-gen", "v_latency=0")
        print(f"  {name:<10} generated, barriers free (v_latency=0): {c / gen_cycles:6.3f}")


def _generated_with_cost(op: Op, work: Path, cost: str) -> float:
    """Cycles of the generated program with cost parameters overridden (`PYPTO_SIM_COST`)."""
    from pypto_xdsl.frontend.program import parse_python_file
    from pypto_xdsl.tools.pypto_compile import apply_pipeline, default_pipeline, simulate

    module = op.program() if op.program is not None else parse_python_file(PROGRAMS[op.name], f"<bench {op.name}>")
    apply_pipeline(module, default_pipeline())
    inputs = op.inputs(np.random.default_rng(0))
    out = np.zeros_like(op.reference(*inputs), dtype=op.out_dtype)
    os.environ["PYPTO_SIM_COST"] = cost
    try:
        rep = simulate(module, work, inputs=[*inputs, out], profile=True, compare=False)
    finally:
        del os.environ["PYPTO_SIM_COST"]
    return total(prof.by_kernel(rep.profile))[0]


if __name__ == "__main__":
    sys.exit(main())
