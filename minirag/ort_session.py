"""ONNX Runtime sessions, made the one way minirag makes them: on the CPU, with what the runtime
prints kept off stdout, and a load that ran out of memory said as such.

When making a session raises a plain RuntimeError (a thread it could not start, memory it could not
get, a check in the runtime's C++ that failed), ONNX Runtime print()s four 'EP Error' lines and tries
once more: on stdout, which carries the CLI's JSON and, when serving over stdio, the MCP protocol.
Those lines are taken to the debug log; the error, if the second try fails too, is said once."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

from minirag.ingest.quiet import stdout_captured

_ORT_PREFIX = re.compile(r"^\[ONNXRuntimeError\] : \d+ : \w+ : ")
# The C++ source file, line and function signature the runtime names first (parameters may hold one
# level of parentheses: `unsigned int (*)(int, Eigen::ThreadPoolInterface*)`).
_SOURCE_LOCATION = re.compile(r"^\S+\.(?:cc|cpp|h):\d+ [^()]*\((?:[^()]|\([^()]*\))*\)(?: const)?\s*")
# How the runtime says that an allocation, a thread or a mapping failed for want of memory.
_NO_MEMORY = re.compile(r"bad_alloc|error code: 12\b|Failed to allocate memory|Cannot allocate memory", re.IGNORECASE)


def inference_session(model: Path | bytes, options: Any = None) -> Any:
    """A CPU session of `model` (a file, or a serialized graph). Raises what ONNX Runtime raises,
    MemoryError where what it raised says that memory ran out, or OSError for a path that names no
    regular file (a link to one is followed)."""
    import onnxruntime as ort

    if isinstance(model, Path) and not stat.S_ISREG(os.stat(model).st_mode):
        # The runtime's own open() of a FIFO waits for a writer, inside its C++ where no signal reaches.
        raise OSError(f"{model} is no regular file")
    source = str(model) if isinstance(model, Path) else model
    try:
        with stdout_captured("ONNX Runtime, making a session"):
            return ort.InferenceSession(source, sess_options=options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - the runtime's errors share no type but Exception
        if _NO_MEMORY.search(str(exc)):
            raise MemoryError(f"loading a model: {runtime_reason(exc)}") from None
        raise


def runtime_reason(exc: Exception) -> str:
    """ONNX Runtime's own reason in one line: its status message, without the error code in front
    nor the C++ source file and function it was raised in."""
    text = _ORT_PREFIX.sub("", str(exc).strip())
    if "Status Message: " in text:
        text = text.split("Status Message: ", 1)[1]
    text = _SOURCE_LOCATION.sub("", text)
    return next((line.strip() for line in text.splitlines() if line.strip()), type(exc).__name__)
