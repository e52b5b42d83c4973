"""minirag: local-first hybrid search over your documents in one SQLite file."""

import os

# onnxruntime (ours, and magika's through markitdown) writes a device id and a
# telemetry event queue under ~/.cache/Microsoft at import time unless this is
# set before its first import; disable_telemetry_events() comes too late.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
# OpenBLAS's worker threads busy-wait between products, taking the core a query's keyword
# side runs on while its vector side multiplies; read when numpy loads it, so set first.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")



def __getattr__(name: str) -> str:
    """`__version__`, read from the installed metadata on first use: importing importlib.metadata
    is a tenth of a cold command's imports, and most commands never show the version."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("minirag")
    except PackageNotFoundError:  # running from a source tree that was never installed
        found = "0.0.0+unknown"
    globals()["__version__"] = found
    return found
