"""`TensorSpec` and `ScalarSpec`: how a program's input or output tensor (or scalar argument)
is made, PyPTO's spelling.

PyPTO's examples describe their tensors as specs (name, shape, dtype, how to fill it,
whether it is an output) and make them with `spec.create_tensor()`. With a torch dtype the
tensors are torch tensors (torch is imported when one is made; it is never a dependency of
this package); with a numpy dtype, numpy arrays.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class TensorSpec:
    """`TensorSpec("query", [32, 128], torch.bfloat16, init_value=torch.randn)`.

    `init_value`: None (zeros), a number (every element), a tensor (converted to `dtype`),
    a torch factory (`torch.randn`, `torch.rand`, `torch.zeros`, `torch.ones`: called with the
    shape and dtype), or any other callable of no arguments returning the contents.
    `is_output` marks a tensor the program writes (checked against a golden reference)."""

    name: str
    shape: Sequence[int]
    dtype: Any
    init_value: Any = field(default=None)
    is_output: bool = False

    def create_tensor(self) -> Any:
        shape = [int(d) for d in self.shape]
        if not type(self.dtype).__module__.startswith("torch"):
            return self._numpy(shape)
        import torch

        init = self.init_value
        if init is None:
            return torch.zeros(shape, dtype=self.dtype)
        if isinstance(init, bool) or not isinstance(init, int | float | torch.Tensor | Callable):
            raise TypeError(f"TensorSpec {self.name!r}: unsupported init_value {init!r}")
        if isinstance(init, int | float):
            return torch.full(shape, init, dtype=self.dtype)
        if isinstance(init, torch.Tensor):
            return init.to(dtype=self.dtype)
        if init in (torch.randn, torch.rand, torch.zeros, torch.ones):
            return init(shape, dtype=self.dtype)
        return torch.as_tensor(init(), dtype=self.dtype)

    def _numpy(self, shape: list[int]) -> Any:
        import numpy as np

        dtype = np.dtype(self.dtype)
        init = self.init_value
        if init is None:
            return np.zeros(shape, dtype)
        if isinstance(init, bool) or not isinstance(init, int | float | np.ndarray | Callable):
            raise TypeError(f"TensorSpec {self.name!r}: unsupported init_value {init!r}")
        if isinstance(init, int | float):
            return np.full(shape, init, dtype)
        if isinstance(init, np.ndarray):
            return init.astype(dtype)
        return np.asarray(init(), dtype=dtype)


# PyPTO's ctypes names of scalar arguments -> whether the value is an integer.
SCALAR_CTYPES = {"int64": True, "int32": True, "uint64": True, "uint32": True, "float": False, "double": False}


@dataclass
class ScalarSpec:
    """`ScalarSpec("n", 128, ctype="int32")`: a scalar argument of a program, passed after its
    tensors. `ctype` (PyPTO's ctypes name) is checked against the value; here a scalar
    argument takes the type its parameter declares."""

    name: str
    value: int | float
    ctype: str = "int64"

    def __post_init__(self) -> None:
        if self.ctype not in SCALAR_CTYPES:
            raise ValueError(
                f"ScalarSpec {self.name!r}: unsupported ctype {self.ctype!r}; one of {', '.join(SCALAR_CTYPES)}"
            )
        if SCALAR_CTYPES[self.ctype] and not isinstance(self.value, int):
            raise ValueError(f"ScalarSpec {self.name!r}: ctype {self.ctype!r} takes an integer, got {self.value!r}")
