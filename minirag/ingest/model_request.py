"""A run's converting threads asking the run's own thread to load the model.

The model is loaded in the thread that runs the pass (Pipeline.run_files), never in a
converting one: Ctrl-C lands there and stops the load as it stops one before a run, and a
model that fails to load ends the run in one line instead of failing one file. A converting
thread asks as soon as it knows its file must be converted (the load runs beside the
conversion) and waits before it chunks, which takes the model's tokenizer.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future

from minirag import interruptible


class ModelStopped(Exception):
    """The run ended (or the model failed to load, which its own thread says) while a converting
    thread waited for the model: the file is left as it was, for the next run."""


class ModelRequest:
    """One run's: `loaded()` says whether the model is in hand; `load()` loads it (the run's thread)."""

    def __init__(self, loaded: Callable[[], bool], load: Callable[[], None]):
        self._loaded, self._load = loaded, load
        self._wanted = threading.Event()
        self._settled = threading.Event()  # loaded, failed to load, or the run is over
        self._wake = threading.Event()

    # --- in a converting thread ----------------------------------------------

    def want(self) -> None:
        """This thread's file will need the model: its load starts now, while the file converts."""
        if not self._loaded() and not self._wanted.is_set():
            self._wanted.set()
            self._wake.set()

    def wait(self) -> None:
        """Back once the model is loaded; ModelStopped where it will not be."""
        if self._loaded():
            return
        self.want()
        self._settled.wait()
        if not self._loaded():
            raise ModelStopped

    # --- in the run's thread -------------------------------------------------

    def done(self, future: Future) -> None:
        """Back once `future` is done, loading the model meanwhile where a converting thread asks for
        it. A failure to load is raised here, apart from the file's own result: it ends the run."""
        future.add_done_callback(lambda _done: self._wake.set())
        while True:
            if self._wanted.is_set() and not self._settled.is_set():
                try:
                    self._load()
                finally:
                    self._settled.set()
            if future.done():
                return
            interruptible.wait_set(self._wake)
            self._wake.clear()

    def close(self) -> None:
        """The run is over: a thread still waiting for the model stops waiting."""
        self._settled.set()
