"""The communication domain of a group of simulated ranks (the host side of
`sim/include/pypto_sim/comm.h`).

Each rank of a `@pl.jit.host` program runs on the sim target as a device of its own: a
process of the rank's build. The ranks share their windows through a file every process
maps: a header (the group's size, the size of a rank's region, a lock, a write epoch and
each rank's state) and one *windows in* region per rank, every window buffer of the group
at the same byte offset of each region. Its layout is comm.h's.
"""

from __future__ import annotations

import os
import struct
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

MAGIC = 0x50434F4D
MAX_RANKS = 64
HEADER_BYTES = 8192
SLOT_BYTES = 64
SLOTS_AT = 64  # the rank slots follow the 64-byte head of the header
ALIGN = 512
RUNNING, ABSENT = 1, 0


class CommDomain:
    """The windows of `nranks` ranks: `place(key, nbytes)` gives a buffer its byte offset in
    every rank's region (in the order buffers are placed), `create()` writes the file."""

    def __init__(self, nranks: int):
        if not 1 <= nranks <= MAX_RANKS:
            raise ValueError(f"a communication domain has 1 to {MAX_RANKS} ranks, got {nranks}")
        self.nranks = nranks
        self.offsets: dict[Any, int] = {}
        self.names: list[tuple[str, int, int]] = []  # (name, offset, bytes) for messages
        self.size = 0
        self.path: Path | None = None

    def place(self, key: Any, nbytes: int, name: str) -> int:
        if key not in self.offsets:
            self.offsets[key] = self.size
            self.names.append((name, self.size, nbytes))
            self.size += max(ALIGN, -(-nbytes // ALIGN) * ALIGN)
        return self.offsets[key]

    @property
    def region_bytes(self) -> int:
        return max(ALIGN, self.size)

    def create(self, launched: set[int]) -> Path:
        fd, name = tempfile.mkstemp(prefix="pypto-comm-", suffix=".bin")
        total = HEADER_BYTES + self.nranks * self.region_bytes
        with os.fdopen(fd, "wb") as f:
            head = bytearray(HEADER_BYTES)
            struct.pack_into("<IIQ", head, 0, MAGIC, self.nranks, self.region_bytes)
            for r in range(self.nranks):
                struct.pack_into("<i", head, SLOTS_AT + r * SLOT_BYTES, RUNNING if r in launched else ABSENT)
            f.write(bytes(head))
            f.truncate(total)
        self.path = Path(name)
        return self.path

    def region(self, rank: int) -> np.memmap:
        assert self.path is not None
        return np.memmap(
            self.path,
            dtype=np.uint8,
            mode="r+",
            offset=HEADER_BYTES + rank * self.region_bytes,
            shape=(self.region_bytes,),
        )

    def write(self, rank: int, offset: int, array: np.ndarray) -> None:
        data = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
        region = self.region(rank)
        region[offset : offset + data.size] = data
        region.flush()

    def read(self, rank: int, offset: int, like: np.ndarray) -> np.ndarray:
        n = like.size * like.itemsize
        raw = np.array(self.region(rank)[offset : offset + n])
        return raw.view(like.dtype).reshape(like.shape)

    def env(self, rank: int, last: bool) -> dict[str, str]:
        assert self.path is not None
        return {
            "PYPTO_SIM_COMM": str(self.path),
            "PYPTO_SIM_RANK": str(rank),
            "PYPTO_SIM_LAST": "1" if last else "0",
            "PYPTO_SIM_WINDOWS": ",".join(f"{n}:{o}:{b}" for n, o, b in self.names),
        }

    def close(self) -> None:
        if self.path is not None:
            self.path.unlink(missing_ok=True)
            self.path = None
