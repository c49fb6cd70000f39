"""Command-line options the tools share for `.py` inputs holding `@pl.jit` functions."""

from __future__ import annotations

import argparse


def _shape(text: str):
    from pypto_xdsl.runtime.loading import parse_shape

    try:
        return parse_shape(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _scalar(text: str):
    from pypto_xdsl.runtime.loading import parse_scalar

    try:
        return parse_scalar(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_python_arguments(parser: argparse.ArgumentParser, entry: bool = True) -> None:
    """`--entry NAME` (when the tool has none), `--shape a=64x64:f32`, `--scalar n=4`."""
    if entry:
        parser.add_argument(
            "--entry", default=None,
            help=".py input: the @pl.jit function (or the function of a @pl.program) to compile",
        )
    parser.add_argument(
        "--shape", action="append", type=_shape, default=[], metavar="NAME=DIMSxDIMS[:DTYPE]",
        help=".py input with a @pl.jit function: shape and dtype of a tensor parameter (e.g. a=64x64:f32)",
    )
    parser.add_argument(
        "--scalar", action="append", type=_scalar, default=[], metavar="NAME=VALUE",
        help="value of a scalar parameter: a @pl.jit function's is specialised into the program; the entry's of a "
             "@pl.program or .mlir program is its value in the run (pypto-run, pypto-compile --sim)",
    )
