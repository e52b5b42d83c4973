"""Assemble the all-MiniLM-L6-v2 MODEL_PATH directory for tests, CI and benchmarks from installed
packages (the code is in tests/helpers/models.py).

    python scripts/test_model.py [DEST]    # prints the directory
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from helpers.models import MINILM_DEST as DEFAULT_DEST  # noqa: E402 - tests/ is on sys.path above
from helpers.models import assemble_minilm as assemble  # noqa: E402

__all__ = ["DEFAULT_DEST", "assemble"]

if __name__ == "__main__":
    print(assemble(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_DEST))
