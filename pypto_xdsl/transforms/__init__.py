"""Passes registered by pypto-opt (lazy factories: a pass module is imported when used)."""

from collections.abc import Callable
from importlib import import_module

from xdsl.passes import ModulePass

# pass name -> (module under pypto_xdsl.transforms, class name)
_PASSES: dict[str, tuple[str, str]] = {
    "inline-functions": ("inline_functions", "InlineFunctionsPass"),
    "verify-inline-functions-eliminated": (
        "inline_functions",
        "VerifyInlineFunctionsEliminatedPass",
    ),
    "localize-windows": ("localize_windows", "LocalizeWindowsPass"),
    "outline-incore-scopes": ("outline_incore_scopes", "OutlineIncoreScopesPass"),
    "verify-split-incore-orch": ("verify_split_incore_orch", "VerifySplitIncoreOrchPass"),
    "convert-tensor-to-tile": ("convert_tensor_to_tile", "ConvertTensorToTilePass"),
    "verify-convert-tensor-to-tile": ("convert_tensor_to_tile", "VerifyTensorToTilePass"),
    "fold-bias-epilogue": ("fold_bias_epilogue", "FoldBiasEpiloguePass"),
    "expand-mixed-kernel": ("expand_mixed_kernel", "ExpandMixedKernelPass"),
    "verify-expand-mixed-kernel": ("expand_mixed_kernel", "VerifyMixedKernelExpandedPass"),
    "hoist-cube-loads": ("hoist_cube_loads", "HoistCubeLoadsPass"),
    "pair-cube-blocks": ("pair_cube_blocks", "PairCubeBlocksPass"),
    "pipeline-cross-core-loops": ("pipeline_cross_core_loops", "PipelineCrossCoreLoopsPass"),
    "lower-cross-core-rings": ("lower_cross_core_rings", "LowerCrossCoreRingsPass"),
    "split-vector-member": ("split_vector_member", "SplitVectorMemberPass"),
    "convert-pypto-to-ascendc": ("convert_pypto_to_ascendc", "ConvertPyptoToAscendCPass"),
    "ascendc-tree-reductions": ("ascendc_tree_reductions", "AscendCTreeReductionsPass"),
    "ascendc-broadcast-reciprocal": ("ascendc_broadcast_reciprocal", "AscendCBroadcastReciprocalPass"),
    "ascendc-plan-buffers": ("ascendc_plan_buffers", "AscendCPlanBuffersPass"),
    "ascendc-insert-sync": ("ascendc_insert_sync", "AscendCInsertSyncPass"),
    "ascendc-remove-redundant-sync": ("ascendc_remove_redundant_sync", "AscendCRemoveRedundantSyncPass"),
    "ascendc-prefetch-copy-in": ("ascendc_prefetch_copy_in", "AscendCPrefetchCopyInPass"),
    "ascendc-cse": ("ascendc_cse", "AscendCCsePass"),
    "pypto-default": ("pipelines", "PyptoDefaultPipeline"),
    "pypto-ascendc": ("pipelines", "PyptoAscendCPipeline"),
}


def _factory(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        return getattr(import_module(f"pypto_xdsl.transforms.{module}"), cls)

    return load


def _available(module: str) -> bool:
    from importlib.util import find_spec

    return find_spec(f"pypto_xdsl.transforms.{module}") is not None


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    return {
        name: _factory(module, cls)
        for name, (module, cls) in _PASSES.items()
        if _available(module)
    }
