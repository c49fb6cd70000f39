"""xDSL plugin entry point: stock `xdsl-opt` and `xdsl-run` see the pypto dialect, passes and
targets (`xdsl-opt prog.mlir -p pypto-default -t ascendc`)."""

from xdsl.universe import Universe

from pypto_xdsl.dialects import get_all_dialects
from pypto_xdsl.transforms import get_all_passes


def _ascendc_target():
    from pypto_xdsl.tools.ascendc_target import get_ascendc_target

    return get_ascendc_target()


PYPTO_UNIVERSE = Universe(
    all_dialects=get_all_dialects(), all_passes=get_all_passes(), all_targets={"ascendc": _ascendc_target}
)
