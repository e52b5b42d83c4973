"""Conversions side by side, or one alone.

A conversion is marked in the index while it runs (pipeline.py), so that if minirag dies
meanwhile the next sync knows which files it was converting. Every file converting at that
moment is marked, the innocent beside the guilty, and one whose conversion never finished
twice is not tried again. So a file whose first conversion never finished is converted
alone: when minirag dies again, the mark names that file only.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator


class ConversionGate:
    """Many shared holders or one alone; one waiting to be alone goes before new shared ones."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._shared = 0
        self._alone = False
        self._waiting_alone = 0

    @contextlib.contextmanager
    def shared(self) -> Iterator[None]:
        with self._changed:
            self._changed.wait_for(lambda: not self._alone and not self._waiting_alone)
            self._shared += 1
        try:
            yield
        finally:
            with self._changed:
                self._shared -= 1
                self._changed.notify_all()

    @contextlib.contextmanager
    def alone(self) -> Iterator[None]:
        with self._changed:
            self._waiting_alone += 1
            try:
                self._changed.wait_for(lambda: not self._alone and not self._shared)
            finally:
                self._waiting_alone -= 1
            self._alone = True
        try:
            yield
        finally:
            with self._changed:
                self._alone = False
                self._changed.notify_all()
