"""One workspace layout for the two members of a MIX kernel.

The AIC and AIV members of a group run in one core group and address the same per-block
part of the launch workspace. The group's own workspaces (the rings lower-cross-core-rings
made, the tensors both cores use) must be at the same offset in both members; every tensor
only one member creates (a cube-side staging tensor, the partial results split-vector-member
exchanges between the AIVs) needs bytes of its own, apart from everything the other member
places. Laying each member out from offset 0 puts the first private tensor of each at the
same offset, where the two cores overwrite each other's data.

`group_workspace_layout` places the shared tensors first, in the group's order, then each
member's private ones after all of those of the members before it; every member gets the
same total, so a block's part of the workspace is the same size on its cores.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation

from pypto_xdsl.analysis.ascendc_kernel import (
    WORKSPACE_ALIGN,
    WorkspaceLayout,
    local_tensor_bytes,
    local_tensors,
    round_up,
)
from pypto_xdsl.dialects import program, tensor


def group_workspace_layout(
    members: Sequence[program.FuncOp], shared: Sequence[Sequence[tensor.CreateOp]]
) -> list[WorkspaceLayout]:
    """The layout of each of `members` (kernel functions whose group workspaces are
    kernel-local tensors): `shared[i]` holds, for group workspace i, the `tensor.create` that
    stands for it in each member, in the order of `members`."""
    offsets: dict[Operation, int] = {}
    end = 0
    for creates in shared:
        sizes = {local_tensor_bytes(c) for c in creates}
        assert len(sizes) == 1, "a group workspace has one type in every member"
        for c in creates:
            offsets[c] = end
        end += round_up(sizes.pop(), WORKSPACE_ALIGN)
    for member in members:
        for c in local_tensors(member):
            if c not in offsets:
                offsets[c] = end
                end += round_up(local_tensor_bytes(c), WORKSPACE_ALIGN)
    return [WorkspaceLayout(tuple(offsets[c] for c in local_tensors(m)), end) for m in members]


__all__ = ["group_workspace_layout"]
