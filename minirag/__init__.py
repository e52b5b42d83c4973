"""minirag: local-first hybrid search over your documents in one SQLite file."""

import os
import sys

# onnxruntime (ours, and magika's through markitdown) writes a device id and a
# telemetry event queue under ~/.cache/Microsoft at import time unless this is
# set before its first import; disable_telemetry_events() comes too late.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
# OpenBLAS's worker threads busy-wait between products, taking the core a query's keyword
# side runs on while its vector side multiplies; read when numpy loads it, so set first.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _bound_malloc_arenas() -> None:
    """At most two glibc malloc arenas unless MALLOC_ARENA_MAX says otherwise: each new thread
    (ONNX Runtime's, a query's pool) would otherwise get an arena of its own, memory a serving
    process keeps (docs/benchmarks.md). glibc reads the variable only at start, so mallopt."""
    if not sys.platform.startswith("linux") or "MALLOC_ARENA_MAX" in os.environ:
        return
    import contextlib
    import ctypes

    with contextlib.suppress(OSError, AttributeError):  # not glibc (musl has no mallopt)
        ctypes.CDLL(None).mallopt(M_ARENA_MAX, 2)


M_ARENA_MAX = -8  # glibc's malloc.h
_bound_malloc_arenas()


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
