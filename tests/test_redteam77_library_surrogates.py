"""Red team 77: a library caller's query or title holding a lone surrogate (a string no JSON
transport passes: stdio and HTTP make it U+FFFD, the CLI refuses such an argument) ended in the
tokenizer's TypeError (`TextEncodeInput must be Union[...]`, `TextInputSequence must be str`), an
internal error. Each is refused in one line, as a scope holding one is (redteam75)."""

from __future__ import annotations

import pytest

from minirag.errors import InvalidArgument


def test_a_query_holding_a_lone_surrogate_is_refused_in_one_line(indexed):
    with pytest.raises(InvalidArgument, match=r"^query is not valid UTF-8 \(it holds a lone surrogate\)"):
        indexed.query("otters \ud800")


def test_a_title_holding_a_lone_surrogate_is_refused_in_one_line(app):
    with pytest.raises(InvalidArgument, match=r"^title .* is not valid UTF-8 \(it holds a lone surrogate\)"):
        app.ingest_data("Otters hold hands.", "notes/otters", title="Otters \udfff")


@pytest.mark.parametrize("call", [
    lambda app: app.source_key(file_path=None, source="notes/\ud800"),
    lambda app: app.source_key(file_path="/tmp/otters-\udcff.md", source=None),
    lambda app: app.read("notes/otters\ud800"),
    lambda app: app.neighbors("notes/otters\ud800", 0),
    lambda app: app.delete("notes/otters\ud800"),
], ids=["source", "filePath", "read", "neighbors", "delete"])
def test_a_source_or_path_holding_a_lone_surrogate_is_refused_in_one_line(indexed, call):
    with pytest.raises(InvalidArgument, match=r"is not valid UTF-8 \(it holds a lone surrogate\)"):
        call(indexed)
