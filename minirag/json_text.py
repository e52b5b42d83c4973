"""JSON text from outside the program (a setting, a meta value of an index someone else made, a lock
file, a model's folder) parsed with one failure for every way it can be wrong.

Python's parser raises RecursionError, not ValueError, for arrays or objects nested deeper than
its stack allows (`[[[[...` a few thousand levels deep fits in a 4 kB lock file): a caller that
catches ValueError for "not JSON" met it as an internal error.
"""

from __future__ import annotations

import json
from typing import Any


def loads(text: str | bytes) -> Any:
    """`json.loads(text)`; ValueError for text that is not JSON or is nested too deeply to read."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply to read") from None
