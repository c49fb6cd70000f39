"""`make demo`: the main job on the bundled example, stage by stage.

Parses and verifies `examples/fused_softmax.mlir`, runs each pass of the default pipeline
printing the IR after it, checks with the reference interpreter that the program still
computes the same values, and, when the Ascend C backend is present, writes the kernels and
host code and runs them in the CPU simulation.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException, ParseError

from pypto_xdsl.parsing import PyptoParser

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_EXAMPLE = ROOT / "examples" / "fused_softmax.mlir"


def banner(title: str) -> None:
    print(f"\n=== {title} " + "=" * max(0, 70 - len(title)))


def main(argv: list[str] | None = None) -> int:
    arg_parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arg_parser.add_argument("input", nargs="?", default=str(DEFAULT_EXAMPLE))
    arg_parser.add_argument("-o", "--output", default=str(ROOT / "out" / "demo"))
    args = arg_parser.parse_args(argv)

    from pypto_xdsl.dialects import make_context
    from pypto_xdsl.transforms import get_all_passes
    from pypto_xdsl.transforms.pipelines import DEFAULT_PIPELINE

    ctx = make_context()
    source = Path(args.input).read_text()
    try:
        module = PyptoParser(ctx, source, args.input).parse_module()
        module.verify()
    except (ParseError, DiagnosticException) as e:
        print(e, file=sys.stderr)
        return 1
    banner(f"input: {args.input}")
    print(module)
    original = module.clone()

    available = get_all_passes()
    for name in DEFAULT_PIPELINE:
        available[name]()().apply(ctx, module)
        module.verify()
        banner(f"after {name}")
        print(module)

    check_semantics(original, module)
    compile_backend(module, Path(args.output))
    return 0


def check_semantics(before: ModuleOp, after: ModuleOp) -> None:
    from pypto_xdsl.interpreter.testing import assert_same_semantics

    assert_same_semantics(before, after, "main", seeds=(0, 1, 2))
    banner("interpreter: the pipeline preserved the program's results (3 random inputs)")


def compile_backend(module: ModuleOp, out_dir: Path) -> None:
    from pypto_xdsl.backend.ascendc.demo import run_demo_backend

    run_demo_backend(module, out_dir)


if __name__ == "__main__":
    sys.exit(main())
