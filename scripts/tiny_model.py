"""Build the tiny test encoder (a real ONNX model with small seeded weights; the code and its
description are in tests/helpers/models.py). Needs the `onnx` package (dev dependency group).

    python scripts/tiny_model.py [DEST]    # prints the directory
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from helpers.models import TINY_DEST as DEFAULT_DEST  # noqa: E402 - tests/ is on sys.path above
from helpers.models import build_tiny as build  # noqa: E402

__all__ = ["DEFAULT_DEST", "build"]

if __name__ == "__main__":
    print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_DEST))
