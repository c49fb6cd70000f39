"""The parts of the convert-tensor-to-tile pass (`pypto_xdsl/transforms/convert_tensor_to_tile.py`)."""
