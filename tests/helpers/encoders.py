"""Wrappers around the real encoder that let a test see or hold what it embeds."""

from __future__ import annotations

import threading

GATE_TIMEOUT_S = 60  # a gate the test never opens fails the embedding instead of hanging the run


class CountingEncoder:
    """The real encoder, recording every passage it is asked to embed, and each call's count."""

    def __init__(self, real):
        self.real, self.embedded, self.calls = real, [], []

    def __getattr__(self, name):
        return getattr(self.real, name)

    def embed_documents(self, texts, on_batch=None, **kwargs):
        self.embedded.extend(texts)
        self.calls.append(len(texts))
        return self.real.embed_documents(texts, on_batch, **kwargs)


class GatedEncoder:
    """The real encoder, whose document embeddings wait until the test calls `release()`: an
    operation that embeds (a sync, holding the index's sync lock) stays running exactly as long
    as the test needs. `entered` is set once the first embedding is waiting."""

    def __init__(self, real):
        self.real, self.entered, self._gate = real, threading.Event(), threading.Event()

    def __getattr__(self, name):
        return getattr(self.real, name)

    def release(self) -> None:
        self._gate.set()

    def embed_documents(self, texts, on_batch=None, **kwargs):
        self.entered.set()
        if not self._gate.wait(GATE_TIMEOUT_S):
            raise TimeoutError("the test never released the gated encoder")
        return self.real.embed_documents(texts, on_batch, **kwargs)
