"""minirag: local-first hybrid search over your documents in one SQLite file."""

import os
from importlib.metadata import PackageNotFoundError, version

# onnxruntime (ours, and magika's through markitdown) writes a device id and a
# telemetry event queue under ~/.cache/Microsoft at import time unless this is
# set before its first import; disable_telemetry_events() comes too late.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
# OpenBLAS's worker threads busy-wait between products, taking the core a query's keyword
# side runs on while its vector side multiplies; read when numpy loads it, so set first.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

try:
    __version__ = version("minirag")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"
