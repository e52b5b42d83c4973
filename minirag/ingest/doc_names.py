"""What a file's name says it is read as: its suffix, a compressed document's inner one, a manual page's section.

- `README.md.gz`, `notes.txt.bz2`, `data.csv.xz`: the document inside, read as the name without the
  compression's suffix says (`.md`). A name with nothing before the compression's suffix that
  minirag reads (`x.gz`, `x.tar.gz`, `x.md.gz.gz`) is no document: archives are not indexed, and a
  stream is unwrapped once. gzip's own record of the inner name (its FNAME header) is not asked: a
  file's format comes from its name, as every other file's does.
- `ls.1`, `printf.3`, `openssl.1ssl`, `git-commit.1.gz`: a manual page only when its head is roff
  (`is_roff_head`): `file.1` is as often a rotated log or a numbered copy. `x.man` is always one.
- `README`, `NEWS.gz`, `changelog.Debian.gz`, `copyright`, `LICENSE`: the files a project or a
  package names for what they hold, with no extension, are plain text (`.txt`); other names
  without one (`Makefile`, `notes`) are not documents.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

COMPRESSIONS = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz"}
MANUAL = ".man"
# A manual section's suffix, lower-cased: a digit and up to twelve letters (`.1`, `.3p`, `.1ssl`, `.3pm`,
# `.3readline`, `.3ncurses`).
_SECTION = re.compile(r"\.[1-9][a-z]{0,12}")
# What a manual page begins with (blank lines and other requests before it aside): a comment, man(7)'s
# title or mdoc(7)'s date.
_ROFF_STARTS = (b'.\\"', b"'\\\"", b'\\"', b'\\#', b".TH", b".Dd", b'.\\\\"')
HEAD_BYTES = 4096  # the most of a page's head is_roff_head looks at
# Names of plain-text files a project (GNU's standards, GitHub's conventions) or a Debian package
# ships, lower-cased; each may end in `.Debian` (an architecture's after it: changelog.Debian.amd64)
# or `.source` as well (README.Debian, NEWS.Debian).
_TEXT_NAMES = frozenset({"readme", "news", "changes", "changelog", "history", "authors", "contributors", "thanks",
                         "todo", "install", "copying", "license", "licence", "notice", "copyright", "faq", "bugs",
                         "hacking", "contributing"})
# (An architecture's name holds a digit, armel and armhf aside: `.md` after `.Debian` is Markdown's.)
_PACKAGE_SUFFIX = re.compile(r"\.debian(?:\.(?:[a-z]{0,10}[0-9][a-z0-9_-]{0,10}|armel|armhf))?|\.source")
PLAIN_TEXT = ".txt"


@dataclass(frozen=True)
class NamedAs:
    suffix: str  # as named, lower-cased, compression's suffix included: ".md", ".md.gz", ".1", ".tar.gz", ""
    kind: str  # the format read: the inner suffix (".md"); MANUAL for a manual section (".1", ".3p")
    compression: str  # ".gz", ".bz2", ".xz" or ""
    sniffed: bool  # a manual section's number: a manual page only if its head is roff

    @property
    def read_as(self) -> str:
        """The suffix convert reads the file by: `suffix`, or ".txt" (".txt.gz") for a `README` (`NEWS.gz`)."""
        return PLAIN_TEXT + self.compression if self.suffix == self.compression and self.kind == PLAIN_TEXT \
            else self.suffix


def _last_suffix(name: str) -> str:
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 and dot < len(name) - 1 else ""


def named_as(name: str) -> NamedAs:
    """What the file name `name` (no folders) is read as."""
    outer = _last_suffix(name)
    compression = outer if outer in COMPRESSIONS else ""
    inner = _last_suffix(name[:-len(outer)]) if compression else outer
    if _is_text_name(name[:-len(outer)] if compression else name):
        return NamedAs(compression, PLAIN_TEXT, compression, False)
    if compression and (not inner or inner in COMPRESSIONS):
        return NamedAs(outer, outer, "", False)  # `x.gz`, `x.md.gz.gz`: nothing minirag reads by its name
    sniffed = _SECTION.fullmatch(inner) is not None
    return NamedAs(inner + compression, MANUAL if sniffed else inner, compression, sniffed)


def _is_text_name(name: str) -> bool:
    head, dot, rest = name.lower().partition(".")
    return head in _TEXT_NAMES and (not dot or _PACKAGE_SUFFIX.fullmatch(dot + rest) is not None)


def split_suffix(suffix: str) -> tuple[str, str]:
    """A suffix as convert receives it (".md.gz") as its format's suffix and its compression's."""
    suffix = suffix.lower()
    for compression in COMPRESSIONS:
        if suffix.endswith(compression) and len(suffix) > len(compression):
            return suffix[:-len(compression)], compression
    return suffix, ""


def stem(name: str) -> str:
    """`name` without what it is read as: `README.md.gz` -> `README`, `ls.1` -> `ls`."""
    suffix = named_as(name).suffix
    return name[:-len(suffix)] if suffix and name.lower().endswith(suffix) else name


def title_stem(path: str) -> str:
    """What a file at `path` is titled where nothing in it names it: its stem, and for text named
    for what it holds (`README`, `copyright`) its folder's name after it, `README (openssh-client)`:
    a thousand packages' notes would otherwise share a handful of titles."""
    folder, name = os.path.split(path)
    named = named_as(name)
    if named.kind == PLAIN_TEXT and named.suffix == named.compression and os.path.basename(folder):
        return f"{stem(name)} ({os.path.basename(folder)})"
    return stem(name)


def is_manual_section(suffix: str) -> bool:
    return _SECTION.fullmatch(suffix.lower()) is not None


def is_roff_head(head: bytes) -> bool:
    """Whether a page that begins with `head` is roff: a roff comment, man(7)'s `.TH` or mdoc(7)'s
    `.Dd` comes before any line of text, other requests before it aside (`.lf 1 stdin`, a `.de`
    macro's definition, `.ds`). A page that is only `.so other.1` is none."""
    ignoring = False  # inside `.ig ... ..`, a block roff leaves out
    for line in head[:HEAD_BYTES].lstrip(b"\xef\xbb\xbf").splitlines():
        if ignoring:
            ignoring = not line.startswith(b"..")
        elif line.startswith(_ROFF_STARTS):
            return True
        elif line.startswith(b".ig"):
            ignoring = True
        elif line.strip() and not line.startswith((b".", b"'")):
            return False
    return False
