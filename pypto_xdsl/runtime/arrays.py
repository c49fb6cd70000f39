"""Arguments of a jit call as numpy arrays, and results back in the caller's kind of array.

Accepted tensor arguments: numpy arrays; torch CPU tensors (torch is never imported here
unless the caller already did); anything with `__dlpack__` or `__array__`; lists of numbers
(read-only). The program reads and writes a numpy array sharing the argument's memory when
it can (numpy arrays, torch tensors of a numpy dtype, writable DLPack exports); otherwise a
copy, whose contents are written back after the run (`ArrayArg.write_back`), e.g. for bf16
torch tensors, which numpy cannot view (the interpreter carries bf16 as float32).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pypto_xdsl.language import types as T

_NUMPY_DTYPES: dict[np.dtype, str] = {
    np.dtype(np.float32): "FP32",
    np.dtype(np.float16): "FP16",
    np.dtype(np.bool_): "BOOL",
    np.dtype(np.int8): "INT8",
    np.dtype(np.int16): "INT16",
    np.dtype(np.int32): "INT32",
    np.dtype(np.int64): "INT64",
    np.dtype(np.uint8): "UINT8",
    np.dtype(np.uint16): "UINT16",
    np.dtype(np.uint32): "UINT32",
    np.dtype(np.uint64): "UINT64",
}

_TORCH_NAMES = {
    "float32": "FP32", "float16": "FP16", "bfloat16": "BF16", "bool": "BOOL", "int8": "INT8",
    "int16": "INT16", "int32": "INT32", "int64": "INT64", "uint8": "UINT8", "uint16": "UINT16",
    "uint32": "UINT32", "uint64": "UINT64",
}


class ArgumentProblem(Exception):
    """A jit call's argument cannot be used (the message names the parameter)."""


@dataclass
class ArrayArg:
    """A tensor argument: the array the program uses and how results reach the caller."""

    array: np.ndarray
    dtype: T.DataType
    original: Any
    kind: str  # "numpy", "torch", "list" (read only) or "other"
    write_back: Callable[[np.ndarray], None] | None = None
    """Copies the program's array into the caller's object when they do not share memory."""


def _torch() -> Any:
    return sys.modules.get("torch")


def is_torch_tensor(value: Any) -> bool:
    torch = _torch()
    return torch is not None and isinstance(value, torch.Tensor)


def _from_torch(value: Any, what: str) -> ArrayArg:
    if value.device.type != "cpu":
        raise ArgumentProblem(f"{what} is a torch tensor on '{value.device}'; pass a CPU tensor")
    name = str(value.dtype).removeprefix("torch.")
    dtype = _TORCH_NAMES.get(name)
    if dtype is None:
        raise ArgumentProblem(f"{what} has the torch dtype {value.dtype}, which pl has no dtype for")
    t = value.detach()
    if dtype == "BF16":
        array = t.float().numpy()

        def write_back(result: np.ndarray, target=value) -> None:
            torch = _torch()
            with torch.no_grad():
                target.copy_(torch.from_numpy(np.ascontiguousarray(result, dtype=np.float32)))

        return ArrayArg(array, T.DataType(dtype), value, "torch", write_back)
    return ArrayArg(t.numpy(), T.DataType(dtype), value, "torch")


def as_unsigned_view(a: ArrayArg, want: T.DataType) -> ArrayArg:
    """`a` read as the unsigned dtype `want` when it is a signed integer array of that width
    (PyPTO's test harness carries UINT16 / UINT32 tensors in torch.int16 / int32, torch
    having no full unsigned types of those widths): a view of the same memory and bits, so
    the program's writes reach the caller's tensor. Any other `a` is returned as is."""
    array = a.array
    if not (want.name.startswith("UINT") and isinstance(array, np.ndarray) and array.dtype.kind == "i"):
        return a
    unsigned = np.dtype(f"uint{array.dtype.itemsize * 8}")
    if _NUMPY_DTYPES.get(unsigned) != want.name:
        return a
    return ArrayArg(array.view(unsigned), want, a.original, a.kind, a.write_back)


def _numpy_dtype_name(array: np.ndarray, what: str) -> str:
    dtype = _NUMPY_DTYPES.get(array.dtype)
    if dtype is None:
        hint = " (convert with .astype(np.float32))" if array.dtype.kind == "f" else ""
        raise ArgumentProblem(f"{what} has the dtype {array.dtype}, which pl has no dtype for{hint}")
    return dtype


class TypedSample(np.ndarray):
    """A (read-only) zero array standing for a tensor of a pl dtype (bf16 included: carried as float32),
    used where only the type of an argument matters (`fn.lower()` from annotations, the tools'
    `--shape`)."""

    pl_dtype: T.DataType

    def __new__(cls, shape: Any, dtype: T.DataType) -> TypedSample:
        from pypto_xdsl.interpreter.values import numpy_dtype

        # a broadcast zero: no memory for the elements, so any extent the types allow
        try:
            sample = np.broadcast_to(np.zeros((), dtype=numpy_dtype(dtype.to_ir())), tuple(shape)).view(cls)
        except ValueError as e:  # more elements than numpy can index
            raise ArgumentProblem(f"a tensor of shape {list(shape)}: {e}") from None
        sample.pl_dtype = dtype
        return sample


def as_array(value: Any, what: str) -> ArrayArg | None:
    """The tensor argument `value` (None when it is no array: a scalar, or another object)."""
    if isinstance(value, TypedSample):
        return ArrayArg(value, value.pl_dtype, value, "numpy")
    if isinstance(value, np.ndarray):
        return ArrayArg(value, T.DataType(_numpy_dtype_name(value, what)), value, "numpy")
    if is_torch_tensor(value):
        return _from_torch(value, what)
    if isinstance(value, bool | int | float | complex | str | bytes | np.generic) or value is None:
        return None
    if hasattr(value, "__dlpack__"):
        try:
            array = np.from_dlpack(value)
        except (TypeError, BufferError, RuntimeError) as e:
            raise ArgumentProblem(f"{what}: numpy cannot read it through DLPack ({e})") from None
        return _exported(value, array, what)
    if hasattr(value, "__array__"):
        return _exported(value, np.asarray(value), what)
    if isinstance(value, list | tuple):
        try:
            array = np.asarray(value)
        except ValueError as e:
            raise ArgumentProblem(f"{what}: not a rectangular list of numbers ({e})") from None
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        if array.dtype.kind not in "biuf":
            return None
        return ArrayArg(array, T.DataType(_numpy_dtype_name(array, what)), value, "list")
    return None


def _exported(value: Any, array: np.ndarray, what: str) -> ArrayArg:
    dtype = T.DataType(_numpy_dtype_name(array, what))
    if array.flags.writeable:
        return ArrayArg(array, dtype, value, "other")
    copy = np.array(array)

    def write_back(result: np.ndarray) -> None:
        try:
            value[...] = result
        except Exception as e:  # the object cannot be written
            raise ArgumentProblem(f"{what} is read-only; pass a writable array for an out parameter ({e})") from None

    return ArrayArg(copy, dtype, value, "other", write_back)


def scalar_value(value: Any) -> bool | int | float | None:
    """`value` as a Python scalar (numpy scalars and 0-d arrays included), else None."""
    if isinstance(value, bool | int | float):
        return value
    if isinstance(value, np.generic):
        return value.item()
    return None


def to_caller_kind(array: np.ndarray, like: str, dtype: T.DataType | None = None) -> Any:
    """A result array in the kind of array the caller passed (torch when any input was)."""
    if like == "torch" and _torch() is not None:
        torch = _torch()
        tensor = torch.from_numpy(np.ascontiguousarray(array))
        if dtype is not None and dtype.name == "BF16":
            tensor = tensor.to(torch.bfloat16)
        return tensor
    return array
