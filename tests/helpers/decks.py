"""Slide decks built with python-pptx in a test, read back as minirag reads them."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from minirag.ingest.convert import convert_document


def deck_markdown(build: Callable[[Any], None]) -> str:
    """The Markdown of a new deck (python-pptx's default template) after `build(deck)`."""
    from pptx import Presentation

    deck = Presentation()
    build(deck)
    with io.BytesIO() as out:
        deck.save(out)
        return convert_document(out.getvalue(), ".pptx", "deck.pptx").markdown
