"""Reference interpreter of pypto programs (numpy on xDSL's interpreter framework).

See docs/semantics.md for the execution model.
"""

from pypto_xdsl.interpreter.api import (
    make_interpreter,
    parse_module,
    random_inputs,
    run,
    run_spmd,
)
from pypto_xdsl.interpreter.generator import GenConfig, generate_program
from pypto_xdsl.interpreter.testing import SemanticsMismatch, assert_same_semantics
from pypto_xdsl.interpreter.values import PyptoInterpretationError, TaskId

__all__ = [
    "GenConfig",
    "PyptoInterpretationError",
    "SemanticsMismatch",
    "TaskId",
    "assert_same_semantics",
    "fuzz_pipeline",
    "generate_program",
    "make_interpreter",
    "parse_module",
    "random_inputs",
    "run",
    "run_spmd",
]


def __getattr__(name: str):
    # lazy, so that `python -m pypto_xdsl.interpreter.fuzz` does not import the module twice
    if name == "fuzz_pipeline":
        from pypto_xdsl.interpreter.fuzz import fuzz_pipeline

        return fuzz_pipeline
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
