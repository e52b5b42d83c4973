"""A conversion's progress as it goes: each piece it has done (a PDF page, a sheet, a slide, an EPUB
chapter read), told to whoever listens (`LISTENER`).

The converter worker sends it to its parent (convert_worker.py, isolation.py), which counts it as a
piece of work ended (interruptible.advanced): a stdio server whose client closed stdin goes on
answering a call while its work ends pieces (in_flight.settled), and a whole file, one piece, ended
too late when a long PDF took longer than SETTLE_S to read. Only a piece done is told, never time
passing: a conversion that hangs tells nothing, and is given up on as before.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

# Unset, no one is listening (a conversion outside a worker: tests, the parent's own reads).
LISTENER: ContextVar[Callable[[], None] | None] = ContextVar("conversion_progress_listener", default=None)


def advanced() -> None:
    """One more piece of the conversion in hand is done."""
    listener = LISTENER.get()
    if listener is not None:
        listener()
