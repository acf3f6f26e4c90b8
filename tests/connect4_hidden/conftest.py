"""Helpers of the connect4_hidden tests, loaded by path under unique module names.

``c4_seed_controller`` (the seed's controller, the reference) and
``c4_inproc`` (a bare Match + FunctionBot game loop) are registered in
sys.modules here, before pytest imports the test modules of this folder; other
test folders may have helper modules with the same file names.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _load(name: str, file: str):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, HERE / file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_load("c4_seed_controller", "seed_controller.py")
_load("c4_inproc", "inproc.py")
