import pathlib
import sys

import pytest
import torch

# `make check` runs pytest with PYTHONPATH=build/python; this keeps a bare
# `pytest python/tests` from the repository root working too.
BUILD_PYTHON = pathlib.Path(__file__).resolve().parents[2] / "build" / "python"
if BUILD_PYTHON.is_dir() and str(BUILD_PYTHON) not in sys.path:
    sys.path.insert(0, str(BUILD_PYTHON))


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
