"""markitdown's internals that conversion uses.

Written against markitdown 0.1.2 to 0.1.9.
"""

from __future__ import annotations

import sys
import types

DISTRIBUTION = "markitdown"
SUPPORTED = ("0.1.2", "0.2")


def youtube_fetches_transcripts() -> bool:
    """Whether markitdown's YouTube converter would fetch a video's transcript itself (the
    optional youtube-transcript-api is installed); True when markitdown no longer says."""
    from markitdown.converters import _youtube_converter

    return bool(getattr(_youtube_converter, "IS_YOUTUBE_TRANSCRIPT_CAPABLE", True))


class _NoMagika(types.ModuleType):
    """markitdown imports magika (which loads onnxruntime and its thread pool) for its
    MarkItDown class's format guessing; convert.py calls one converter per format directly and
    never guesses, so the converter worker stands this in for it."""

    class Magika:
        def __init__(self, *args, **kwargs):
            raise RuntimeError("magika is not available in the converter worker")


def without_magika() -> None:
    """Before markitdown is imported: make its `import magika` load nothing."""
    sys.modules.setdefault("magika", _NoMagika("magika"))


def without_pandas() -> None:
    """Before markitdown is imported: make its `import pandas` fail, as where pandas is not installed.
    Only its XLSX and XLS converters use pandas (they say a dependency is missing when called);
    convert.py reads sheets itself (xlsx_tables.py) and calls neither, and pandas with numpy was over
    a third of the CPU a converter worker spent before its first DOCX or PPTX."""
    if "pandas" not in sys.modules:
        sys.modules["pandas"] = None  # type: ignore[assignment]  # `import pandas` raises ImportError
