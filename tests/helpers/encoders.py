"""Wrappers around the real encoder that let a test see what it embeds."""

from __future__ import annotations


class CountingEncoder:
    """The real encoder, recording every passage it is asked to embed."""

    def __init__(self, real):
        self.real, self.embedded = real, []

    def __getattr__(self, name):
        return getattr(self.real, name)

    def embed_documents(self, texts):
        self.embedded.extend(texts)
        return self.real.embed_documents(texts)

