"""The model a write embeds with, loaded only once something must be embedded.

A sync that finds nothing changed needs only what the model's files state (its id, the
sequence length the chunk budget is checked against): `spec`. ONNX Runtime, the tokenizer
and the session load at the first `load()`, so a no-op sync never imports them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from minirag.models import ModelSpec

if TYPE_CHECKING:
    from minirag.encoder import Encoder


@dataclass(frozen=True)
class ModelOnDemand:
    """`spec`: the model's settings, read without loading it; `load`: the loaded encoder (loading it at
    the first call), whose spec is `spec`; `loaded`: the encoder, where it was loaded before."""

    spec: ModelSpec
    load: Callable[[], Encoder]
    loaded: Encoder | None = None

    @classmethod
    def of(cls, encoder: Encoder) -> ModelOnDemand:
        return cls(encoder.spec, lambda: encoder, encoder)

    @property
    def model_id(self) -> str:
        return self.spec.model_id
