"""Definition lists: which definition each block is inside, and the chunks that start inside one."""

from __future__ import annotations

from minirag.chunking import reconstruct
from minirag.chunking.blocks import parse_blocks
from minirag.chunking.definitions import with_definitions
from tests.test_chunking_rules import chunk, count, words


def defined(markdown: str) -> list[tuple[str, tuple[str, ...], bool]]:
    lines = markdown.split("\n")
    blocks = with_definitions(parse_blocks(lines, [None] * len(lines)))
    return [(block.lines[0].strip(), block.terms, block.opens_term) for block in blocks]


def test_a_definition_runs_while_its_paragraphs_are_indented_under_its_term():
    markdown = ("Intro.\n\nport\n: The port.\n\n  More on ports.\n\n```\nport = 5432\n```\n\n  Still ports.\n\n"
                "host\n: The host.\n\nText after the list.")
    assert defined(markdown) == [
        ("Intro.", (), False),
        ("port", ("port",), True),
        ("More on ports.", ("port",), False),
        ("```", ("port",), False),  # code neither continues nor ends a definition
        ("Still ports.", ("port",), False),
        ("host", ("host",), True),
        ("Text after the list.", (), False),
    ]


def test_nested_definitions_and_a_term_set_apart_from_its_definition():
    markdown = ("class Queue\n: A queue.\n\n  put(item)\n  : Adds item.\n\n    Blocks when full.\n\n"
                "  Back in the class.\n\n# Next\n\nterm\n\n: Its definition, a blank line below it.\n\n  More.")
    assert defined(markdown) == [
        ("class Queue", ("class Queue",), True),
        ("put(item)", ("class Queue", "put(item)"), True),
        ("Blocks when full.", ("class Queue", "put(item)"), False),
        ("Back in the class.", ("class Queue",), False),
        ("# Next", (), False),
        ("term", ("term",), True),
        (": Its definition, a blank line below it.", ("term",), False),
        ("More.", ("term",), False),
    ]


def test_a_colon_inside_ordinary_text_opens_no_definition():
    assert defined("Ratio\n:  of two\nthings") == [("Ratio", ("Ratio",), True)]  # a term, as Markdown reads it
    assert [terms for _, terms, _ in defined("one\ntwo\nthree\nfour\n: five")] == [()]  # four lines: no term
    assert [terms for _, terms, _ in defined("  indented\n: not at its indent")] == [()]
    assert [terms for _, terms, _ in defined("note: this\nis text")] == [()]
    assert defined(": first\n: second") == [(": first", (), False)]  # definitions with no term before them


def test_a_chunk_that_starts_inside_a_definition_names_its_term_and_the_text_after_the_list_does_not():
    markdown = ("# Server\n\n## Settings\n\n`listen_addresses` (`string`)\n: " + words(60, "addr") + "\n\n  "
                + words(60, "more") + "\n\n`port` (`integer`)\n: The port.\n\n" + words(60, "after"))
    doc = chunk(markdown, budget=64)
    texts = [c.text for c in doc.chunks]
    assert texts[0].startswith("Server > Settings\n`listen_addresses` (`string`)\n: addr0")  # the term, as written
    inside = [t for t in texts if "more5 " in t or "addr50" in t]
    assert inside and all(t.startswith("Server > Settings > `listen_addresses` (`string`)\n") for t in inside)
    after = [t for t in texts if "after10" in t or "after50" in t]
    assert after and all(t.startswith("Server > Settings\n") for t in after)
    assert all(c.tokens <= 64 for c in doc.chunks)
    assert all(count(c.text) == c.tokens for c in doc.chunks)
    assert reconstruct(doc.sections) == markdown  # what a reader gets back is the document


def test_a_term_is_not_left_alone_at_the_end_of_a_chunk():
    markdown = "# S\n\n## T\n\n" + words(40, "lead") + "\n\n`max_connections` (`integer`)\n: " + words(50, "def")
    texts = [c.text for c in chunk(markdown, budget=64).chunks]
    assert not any(t.endswith("`max_connections` (`integer`)") for t in texts)
    assert sum("\n`max_connections` (`integer`)\n: def0 " in t for t in texts) == 1


def test_the_terms_of_one_definition_go_together_with_its_first_words():
    markdown = ("# S\n\n## T\n\n" + words(40, "lead") + "\n\nbinascii.b2a_hex(data)\nbinascii.hexlify(data)\n: "
                + words(50, "def") + " " + words(30, "tail"))
    texts = [c.text for c in chunk(markdown, budget=64).chunks]
    assert not any(t.endswith(("binascii.b2a_hex(data)", "binascii.hexlify(data)")) for t in texts)
    assert sum("binascii.b2a_hex(data)\nbinascii.hexlify(data)\n: def0 " in t for t in texts) == 1


def test_a_long_signature_is_named_without_its_parameters():
    signature = "json.dump(obj, fp, *, skipkeys=False, ensure_ascii=True, check_circular=True, allow_nan=True)"
    markdown = "# json\n\n## Basic Usage\n\n" + signature + "\n: " + words(30, "ser") + "\n\n  " + words(80, "opt")
    texts = [c.text for c in chunk(markdown, budget=64).chunks]
    later = [t for t in texts if "opt70" in t]
    assert later and later[0].startswith("json > Basic Usage > json.dump(…)\n")


def test_a_heading_kept_in_the_text_does_not_end_a_chunk_where_what_it_heads_fits_beside_it():
    """A slide's `### Notes:` (a heading inside a slide) ended a chunk, its notes opening the next."""
    notes = words(20, "note") + "\n" + words(20, "more")
    markdown = "<!-- Slide number: 1 -->\n# Budget\n" + words(70, "body") + "\n\n### Notes:\n" + notes
    texts = [c.text for c in chunk(markdown, budget=64).chunks]
    assert not any(t.rstrip().endswith("### Notes:") for t in texts)
    assert any("### Notes:\n\nnote0 " in t for t in texts)
    # Where the notes' first piece would not fit beside it, the heading stays where it was: a
    # chunk of a heading alone would say less.
    markdown = "<!-- Slide number: 1 -->\n# Budget\n" + words(70, "body") + "\n\n### Notes:\n" + words(60, "long")
    texts = [c.text for c in chunk(markdown, budget=64).chunks]
    assert not any(t == "Budget\n### Notes:" for t in texts)
