"""xDSL plugin entry point: stock `xdsl-opt` and `xdsl-run` see the pypto dialect and passes."""

from xdsl.universe import Universe

from pypto_xdsl.dialects import get_all_dialects
from pypto_xdsl.transforms import get_all_passes

PYPTO_UNIVERSE = Universe(all_dialects=get_all_dialects(), all_passes=get_all_passes())
