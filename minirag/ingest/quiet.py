"""Keep parsers' chatter off the user's terminal and the MCP client: the conversion boundary.

Parsers warn about things a user cannot act on (openpyxl: "Unknown extension is
not supported and will be removed"). Every conversion runs inside
:func:`converting`; a warning raised on that thread meanwhile is logged at debug
level instead of shown. The hook is installed once, process-wide, but only
diverts warnings from threads that are inside a conversion: the filters are not
touched, and warnings anywhere else are shown exactly as before.
(`warnings.catch_warnings` would not do: it swaps process-wide state, so two
conversion threads entering and leaving it out of order leave it swapped.)

Parsers log, too (pdfminer: "Could not get FontBBox from font descriptor"; bs4: "Some characters
could not be decoded", said of the empty HTML a DOCX without text becomes). The converter process
(convert_worker.py) writes log records to its stderr, which reaches the terminal under `-v`, through
:func:`not_a_parsers`: a record a parser logs on a thread inside a conversion is logged at debug
level instead. minirag decodes text itself and says so in the file's warnings.
"""

from __future__ import annotations

import contextlib
import io
import logging
import threading
import warnings
from collections.abc import Iterator

log = logging.getLogger(__name__)

_local = threading.local()
_install_lock = threading.Lock()
_stdout_lock = threading.Lock()
_shown_by = None  # the showwarning we replaced, called for warnings outside a conversion


def _showwarning(message, category, filename, lineno, file=None, line=None):
    name = getattr(_local, "name", None)
    if name is not None:
        log.debug("%s: %s (%s, %s:%s)", name, message, category.__name__, filename, lineno)
        return
    _shown_by(message, category, filename, lineno, file, line)


def not_a_parsers(record: logging.LogRecord) -> bool:
    """A logging filter: False, with the record logged at debug level, for a record that a logger
    outside minirag made on a thread inside a conversion."""
    name = getattr(_local, "name", None)
    if name is None or record.name == "minirag" or record.name.startswith("minirag."):
        return True
    log.debug("%s: %s (%s)", name, record.getMessage(), record.name)
    return False


def _install() -> None:
    global _shown_by
    with _install_lock:
        if warnings.showwarning is not _showwarning:
            _shown_by = warnings.showwarning
            warnings.showwarning = _showwarning


@contextlib.contextmanager
def converting(name: str) -> Iterator[None]:
    """Warnings raised on this thread inside the block are logged at debug level, not shown."""
    _install()
    outer = getattr(_local, "name", None)
    _local.name = name
    try:
        yield
    finally:
        _local.name = outer


@contextlib.contextmanager
def stdout_captured(name: str) -> Iterator[None]:
    """For code that print()s (markitdown's YouTube converter reports errors so): on stdio,
    stdout is the MCP protocol. sys.stdout is process-wide, so holders take turns; the MCP
    transport writes to the stream it captured at start, not to sys.stdout."""
    with _stdout_lock:
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            yield
    if buffer.getvalue().strip():
        log.debug("%s printed: %s", name, buffer.getvalue().strip()[:2000])
