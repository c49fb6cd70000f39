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
from pypto_xdsl.interpreter.testing import SemanticsMismatch, assert_same_semantics
from pypto_xdsl.interpreter.values import PyptoInterpretationError, TaskId

__all__ = [
    "PyptoInterpretationError",
    "SemanticsMismatch",
    "TaskId",
    "assert_same_semantics",
    "make_interpreter",
    "parse_module",
    "random_inputs",
    "run",
    "run_spmd",
]

