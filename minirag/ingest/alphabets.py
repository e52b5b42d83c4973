"""Whether a text's accented Latin letters are one language's: what tells cp1250 from cp1252 on a few lines.

Text in a legacy code page is read by the detector (charset_normalizer) by how chaotic each
reading looks and how well it fits a language's letter frequencies; a few lines of a CSV have too
few letters for the second, and Central and Western European letters sit on the same bytes, so
Czech `Jiří` read as cp1252 (`Jiøí`) scores as well as read as cp1250. A reader knows better: no
language writes `ø` beside `í`, or `č` beside `û` (`crčme brűlée`, French read as cp1250). So the
readings are told apart by how many of their accented Latin letters the best-fitting language of
each code page's users lacks. Letters of other scripts (Cyrillic, Greek) are no Latin mojibake and
never count against a reading.
"""

from __future__ import annotations

import unicodedata

# The accented lower-case letters of the languages written in windows-1250, -1252 and -1254.
_ALPHABETS = tuple(frozenset(letters) for letters in (
    "äöüß",  # German
    "àâæçéèêëîïôœùûüÿ",  # French
    "áéíñóúü",  # Spanish
    "áâãàçéêíóôõú",  # Portuguese
    "àèéìíîòóùú",  # Italian
    "àçèéíïòóúü",  # Catalan
    "áéíóúàèëïöü",  # Dutch
    "æøåéèêóòâô",  # Danish and Norwegian
    "åäöéšž",  # Swedish and Finnish
    "áðéíóúýþæö",  # Icelandic
    "áčďéěíňóřšťúůýž",  # Czech
    "áäčďéíĺľňóôŕšťúýž",  # Slovak
    "ąćęłńóśźż",  # Polish
    "áéíóöőúüű",  # Hungarian
    "čćđšž",  # Croatian, Bosnian, Slovenian
    "ăâîșțşţ",  # Romanian
    "çë",  # Albanian
    "çğıöşü",  # Turkish
))


def misfit(text: str) -> int:
    """How many distinct accented Latin letters of `text` the language that fits it best lacks:
    0 for text one language could have written, more for mojibake. Linear in `text`."""
    letters = {c for c in set(text.lower()) if ord(c) > 0x7F and unicodedata.name(c, "").startswith("LATIN")}
    if not letters:
        return 0
    return min(len(letters - alphabet) for alphabet in _ALPHABETS)
