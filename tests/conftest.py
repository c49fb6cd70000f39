"""Test-suite setup: the test helper modules next to this file are importable
(`from reference_support import ...`); pytest runs with `--import-mode=importlib`, which
puts no test directory on `sys.path`."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
