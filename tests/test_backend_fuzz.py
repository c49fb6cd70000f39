"""Randomised end-to-end check of the kernel printer's buffer planning.

Seeded random tile programs — DAGs of exactly rounded ops over tiles of aligned and
unaligned shapes, some inside a row loop, with tiles stored once, twice, directly after a
load or before further uses — are compiled into one module (one kernel each, one
orchestration calling them all), built once against the CPU simulation and run. Every
output must equal the reference interpreter's bit for bit: any wrong buffer sharing, early
FreeTensor or wrong copy layout shows up as a mismatch or a simulation error.
"""

from __future__ import annotations

import random
import shutil

import numpy as np
import pytest

from pypto_xdsl.tools.pypto_compile import parse_program, simulate

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the simulation")

SHAPES = [(8, 64), (4, 13), (16, 8), (1, 40), (3, 100), (16, 1), (2, 72)]
BINARY = ["add", "sub", "mul", "div", "maximum", "minimum"]
UNARY = ["abs", "neg", "relu", "sqrt"]  # sqrt is applied to abs(x): no NaN (NaN ordering in max/min is unspecified)
SCALAR = ["adds", "subs", "muls", "divs"]


def tile_t(shape) -> str:
    return f"!pypto.tile<[{shape[0]}, {shape[1]}], f32, vec>"


def tensor_t(shape) -> str:
    return f"!pypto.tensor<[{shape[0]}, {shape[1]}], f32>"


def random_kernel(rng: random.Random, name: str) -> tuple[str, list[str], list[str]]:
    """Text of one incore function; returns (text, param types, param directions)."""
    r, c = rng.choice(SHAPES)
    looped = rng.random() < 0.5
    blocks = rng.choice([2, 3]) if looped else 1
    tshape = (r * blocks, c)
    tt, ty = tensor_t(tshape), tile_t((r, c))
    n_in = rng.choice([1, 2])
    n_out = rng.choice([1, 2, 3])
    params = [f"%in{k}: {tt}" for k in range(n_in)] + [f"out %out{k}: {tt}" for k in range(n_out)]
    body: list[str] = []
    ind = "    " if looped else "  "
    values: list[tuple[str, tuple[int, int]]] = []  # (name, shape)
    counter = 0

    def fresh() -> str:
        nonlocal counter
        counter += 1
        return f"%v{counter}"

    for k in range(n_in):
        v = fresh()
        body.append(f"{ind}{v} = pypto.tile.load %in{k}[%row, %c0] : {tt} -> {ty}")
        values.append((v, (r, c)))
    for _ in range(rng.randint(3, 9)):
        kind = rng.random()
        a, _ = rng.choice(values)
        v = fresh()
        if kind < 0.35:
            b, _ = rng.choice(values)
            body.append(f"{ind}{v} = pypto.tile.{rng.choice(BINARY)} {a}, {b} : {ty}")
        elif kind < 0.55:
            unary = rng.choice(UNARY)
            if unary == "sqrt":
                pos = fresh()
                body.append(f"{ind}{pos} = pypto.tile.abs {a} : {ty}")
                a = pos
            body.append(f"{ind}{v} = pypto.tile.{unary} {a} : {ty}")
        elif kind < 0.75:
            body.append(f"{ind}{v} = pypto.tile.{rng.choice(SCALAR)} {a}, %s{rng.randint(0, 2)} : {ty}, f32")
        elif c > 1:
            red = fresh()
            body.append(f"{ind}{red} = pypto.tile.row_max {a} : {ty} -> {tile_t((r, 1))}")
            op = rng.choice(["row_expand_sub", "row_expand_mul", "row_expand_div"])
            b, _ = rng.choice(values)
            body.append(f"{ind}{v} = pypto.tile.{op} {b}, {red} : {ty}, {tile_t((r, 1))}")
        else:
            body.append(f"{ind}{v} = pypto.tile.abs {a} : {ty}")
        values.append((v, (r, c)))
    # Stores: the last value always; others at random (maybe twice, maybe a loaded tile).
    stores = [values[-1][0]] + [rng.choice(values)[0] for _ in range(n_out - 1)]
    carried = [f"%acc{k}" if looped else f"%out{k}" for k in range(n_out)]
    written = []
    for k, v in enumerate(stores):
        w = fresh()
        body.append(f"{ind}{w} = pypto.tile.store {v}, {carried[k]}[%row, %c0] : {ty}, {tt}")
        written.append(w)
        if rng.random() < 0.3:  # a use after the store
            u = fresh()
            body.append(f"{ind}{u} = pypto.tile.muls {v}, %s0 : {ty}, f32")
            values.append((u, (r, c)))
    lines = [f"pypto.func incore @{name}({', '.join(params)}) -> ({', '.join([tt] * n_out)}) {{"]
    lines += ["  %c0 = arith.constant 0 : index"]
    for k, val in enumerate([1.5, -0.75, 3.0]):
        lines.append(f"  %s{k} = arith.constant {val} : f32")
    if looped:
        lines += [
            f"  %c{r} = arith.constant {r} : index",
            f"  %cend = arith.constant {r * blocks} : index",
            f"  %res:{n_out} = scf.for %row = %c0 to %cend step %c{r} iter_args("
            + ", ".join(f"%acc{k} = %out{k}" for k in range(n_out))
            + f") -> ({', '.join([tt] * n_out)}) {{",
        ]
        lines += body
        lines.append(f"    scf.yield {', '.join(written)} : {', '.join([tt] * n_out)}")
        lines.append("  }")
        results = [f"%res#{k}" for k in range(n_out)]
    else:
        lines.append("  %row = arith.constant 0 : index")
        lines += body
        results = written
    lines.append(f"  pypto.return {', '.join(results)} : {', '.join([tt] * n_out)}")
    lines.append("}")
    types = [tt] * (n_in + n_out)
    dirs = ["in"] * n_in + ["out"] * n_out
    return "\n".join(lines), types, dirs


def random_module(seed: int, kernels: int = 6) -> str:
    rng = random.Random(seed)
    funcs, calls, orch_params, orch_results, orch_result_types = [], [], [], [], []
    for k in range(kernels):
        text, types, dirs = random_kernel(rng, f"k{k}")
        funcs.append(text)
        args = []
        for j, (t, d) in enumerate(zip(types, dirs)):
            pname = f"%k{k}_p{j}"
            orch_params.append(f"{'out ' if d == 'out' else ''}{pname}: {t}")
            args.append(pname)
        outs = [t for t, d in zip(types, dirs) if d == "out"]
        res = f"%r{k}"
        calls.append(
            f"  {res}:{len(outs)} = pypto.call @k{k}({', '.join(args)}) : ({', '.join(types)}) -> ({', '.join(outs)})"
            if len(outs) > 1
            else f"  {res} = pypto.call @k{k}({', '.join(args)}) : ({', '.join(types)}) -> {outs[0]}"
        )
        for j in range(len(outs)):
            orch_results.append(f"{res}#{j}" if len(outs) > 1 else res)
            orch_result_types.append(outs[j])
    orch = (
        f"pypto.func orchestration @main({', '.join(orch_params)}) -> ({', '.join(orch_result_types)}) {{\n"
        + "\n".join(calls)
        + f"\n  pypto.return {', '.join(orch_results)} : {', '.join(orch_result_types)}\n}}"
    )
    return "\n\n".join(funcs + [orch]) + "\n"


@pytest.mark.parametrize("seed", [0, 1])
def test_random_tile_programs_match_the_interpreter_exactly(tmp_path, seed):
    source = random_module(seed)
    module = parse_program(source)
    report = simulate(module, tmp_path / f"fuzz{seed}", seed=seed)
    assert report.reference is not None, report.note
    for name, got in report.outputs.items():
        want = report.reference[name]
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want, err_msg=f"seed {seed}, output {name}\n{source}")
