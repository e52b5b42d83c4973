"""Frontmatter is read in the indexing process itself, outside the converter's CPU and memory
bounds: its cost must follow the length of the block."""

from __future__ import annotations

from helpers.growth import grows_linearly

from minirag.chunking.frontmatter import parse_frontmatter

LINE = "  " + "folded words of a summary " * 4 + "\n"


def _folded(lines: int) -> str:
    return "---\nsummary: >\n" + LINE * lines + "---\n# Body\n\nThe body text.\n"


def test_a_folded_value_is_read_in_time_in_proportion_to_its_lines():
    """Each line of a folded (`>`) or literal (`|`) value was appended by rebuilding the whole value
    so far: quadratic, so a 6.5 MB Markdown file of one long summary kept a sync 254 s on it (67 s of
    that in the syncing process, which no converter bound stops) and a 4.3 MB block alone took 22 s
    to parse (160,000 lines; 80,000 took 3 s)."""
    assert grows_linearly(parse_frontmatter, _folded)


def test_a_folded_value_still_reads_as_its_lines_joined_and_a_later_value_of_its_key_wins():
    meta, body = parse_frontmatter("---\nsummary: >\n  one\n\n  two  \nstatus: draft\nnote: |\n  three\n"
                                   "---\nbody\n")
    assert meta == {"summary": "one two", "status": "draft", "note": "three"} and body == "body\n"
    meta, _ = parse_frontmatter("---\nsummary: >\n  one\nsummary: plain\n---\nbody\n")
    assert meta == {"summary": "plain"}
    meta, _ = parse_frontmatter("---\nsummary: plain\nsummary: >\n  one\n  two\n---\nbody\n")
    assert meta == {"summary": "one two"}
    meta, _ = parse_frontmatter("---\nsummary: >\ntags:\n  - a\n---\nbody\n")
    assert meta == {"summary": "", "tags": ["a"]}
