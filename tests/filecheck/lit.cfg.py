# `lit tests/filecheck` loads the root configuration.
import os

lit_config.load_config(
    config, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lit.cfg.py")
)
