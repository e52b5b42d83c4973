"""groff's character names (groff_char(7)) as the characters they print: `\\(em`, `\\[u00E9]`,
`\\(:a` (a letter with an accent: the older German and French pages spell their umlauts so),
`\\[u0065_0301]` (a composite), `\\N'233'` (a code)."""

from __future__ import annotations

import unicodedata

_CHARACTERS = {
    "em": "—", "en": "–", "hy": "-", "mi": "-", "aq": "'", "dq": '"', "lq": "“", "rq": "”", "oq": "‘", "cq": "’",
    "bu": "•", "co": "©", "rg": "®", "tm": "™", "de": "°", "mu": "×", "di": "÷", "+-": "±", "<=": "≤", ">=": "≥",
    "!=": "≠", "->": "→", "<-": "←", "rs": "\\", "sl": "/", "ti": "~", "ha": "^", "ga": "`", "ul": "_", "ba": "|",
    "or": "|", "lB": "[", "rB": "]", "lC": "{", "rC": "}", "la": "⟨", "ra": "⟩", "Fo": "«", "Fc": "»", "fm": "′",
    "sc": "§", "ps": "¶", "dg": "†", "Eu": "€", "ct": "¢", "Po": "£", "Ye": "¥", "sq": "□", "ci": "○", "**": "*",
    "ss": "ß", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "/o": "ø", "/O": "Ø", "/l": "ł", "/L": "Ł", "-D": "Ð",
    "Sd": "ð", "TP": "Þ", "Tp": "þ", ".i": "ı", "ff": "ff", "fi": "fi", "fl": "fl", "Fi": "ffi", "Fl": "ffl",
    "r!": "¡", "r?": "¿", "Do": "$", "at": "@", "sh": "#", "bq": "‚", "Bq": "„", "fo": "‹", "fc": "›", "12": "½",
    "14": "¼", "34": "¾", "aa": "´", "ad": "¨", "ac": "¸", "a^": "^", "a~": "~", "pc": "·",
}
# An accent and a letter (`:a`, `'e`, `,c`, `oa`, `vs`): the letter with its combining accent.
_ACCENTS = {":": "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303", ",": "\u0327",
            "o": "\u030a", "v": "\u030c"}


def named_character(name: str) -> str:
    """What the character `name` prints; nothing for a name groff's table does not have."""
    if name in _CHARACTERS:
        return _CHARACTERS[name]
    if name.startswith("u") and len(name) > 4:
        codes = name[1:].split("_")
        if all(4 <= len(code) <= 6 and all(c in "0123456789ABCDEFabcdef" for c in code) for code in codes):
            points = [int(code, 16) for code in codes]
            if all(point <= 0x10FFFF and not 0xD800 <= point <= 0xDFFF for point in points):
                return unicodedata.normalize("NFC", "".join(map(chr, points)))
        return ""
    if len(name) == 2 and name[0] in _ACCENTS and name[1].isascii() and name[1].isalpha():
        composed = unicodedata.normalize("NFC", name[1] + _ACCENTS[name[0]])
        return composed if len(composed) == 1 else ""
    return ""


def numbered_character(number: str) -> str:
    """`\\N'233'`: the character of that code, nothing for a code none has or a control's."""
    if not number.isascii() or not number.isdigit() or len(number) > 7:
        return ""
    point = int(number)
    if point < 32 or 0xD800 <= point <= 0xDFFF or point > 0x10FFFF:
        return ""
    return chr(point)
