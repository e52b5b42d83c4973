"""A mostly-English text in Latin-1 whose few accented letters are people's names from several
languages (a NEWS file's credits: Pokorný, Górny, Jérôme, Suárez, Stéphane) is read as Latin text.
The detector's Shift-JIS (cp932) reading of the same bytes holds no accented letter at all, so no
language's alphabet could misfit it: but it spells those bytes as private-use code points and
kanji no one wrote (`Pokorn\\uf8f1`, `J駻\\ue31de`)."""

from __future__ import annotations

from minirag.ingest.text_decoding import decode_text

CREDITS = "\n".join([
    "1.1.35: May 2024",
    "",
    "  Regenerate symbols and API docs (Nick Wellnhofer),",
    "  Fix typos (Jan Pokorný),",
    "  New-line terminate an error message that missed this convention (Jan Pokorný),",
    "  Use pkg-config and xml2-config (Micha¿ Górny),",  # a name mangled once already, as in libxslt's NEWS
    "  Allow per-context override of the maximum depth (Jérôme Carretero),",
    "  Fix attributes without a document (Mariano Suárez-Alvarez),",
    "  Fix variables in the Python bindings (Stéphane Bidoul),",
    "  Fix the EXSLT URI escaping (Jörg Walter),",
    "  Portability fixes for older compilers and build systems,",
    "",
])
# Most of such a file is plain ASCII: the detector has little to go on.
FILLER = "".join(f"  Fix a leak in the pattern compiler when a key is redefined (bug {n}),\n" for n in range(700))


def test_credits_of_several_languages_in_latin_1_read_as_latin_text():
    text, warnings = decode_text((FILLER + CREDITS + FILLER).encode("latin-1"), "NEWS")
    assert "Pokorný" in text and "Jérôme Carretero" in text and "Suárez" in text
    assert not any("\ue000" <= c <= "\uf8ff" for c in text)
    assert "cp932" not in warnings[0]
