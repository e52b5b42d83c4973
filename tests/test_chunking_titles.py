"""Title choice and lifecycle frontmatter."""

from __future__ import annotations

import pytest

from minirag.chunking.frontmatter import parse_frontmatter
from minirag.chunking.titles import MAX_TITLE_CHARS, choose_title, fitted_title, is_informative_stem


def title(markdown: str = "", metadata: str | None = None, stem: str = "report") -> str:
    return choose_title(markdown, metadata_title=metadata, stem=stem)


def test_converter_metadata_wins_over_everything():
    assert title("# Heading\n", metadata="Page Title", stem="Informative name") == "Page Title"


def test_blank_metadata_is_ignored():
    assert title("# Heading\n", metadata="  ") == "Heading"


def test_the_first_h1_is_the_title_by_default():
    assert title("Intro line\n\n## Sub\n\n# Main Heading\n\n# Second") == "Main Heading"


def test_an_h1_inside_a_code_block_is_not_a_title():
    assert title("```\n# comment\n```\n\n# Real", stem="x") == "Real"


@pytest.mark.parametrize(
    "heading",
    [
        "Introduction",
        "Table of contents",
        "Contents",
        "1. Общие положения",
        "Лист изменений",
        "Содержание",
        "ВВЕДЕНИЕ",
        "2 Introduction:",
        "Overview",
    ],
)
def test_a_boilerplate_h1_gives_way_to_an_informative_filename(heading):
    assert title(f"# {heading}\n\nText.", stem="И-112_ЗПС_Хранение ТМЗ") == "И-112 ЗПС Хранение ТМЗ"


def test_a_heading_without_words_gives_way_to_the_filename():
    md = "# ![logo](data:image/png;base64,AAAA)\n\nText."
    assert title(md, stem="Supplier contract 2024") == "Supplier contract 2024"


@pytest.mark.parametrize(("heading", "stem", "expected"), [
    ("# ![Typer](https://x.test/logo.svg)", "README", "Typer"),
    ("# [![Axios logo](logo.svg)](https://axios.test)", "readme", "Axios"),
    ("# ![Acme](logo.png)", "Supplier contract 2024", "Supplier contract 2024"),
    ("# ![logo](logo.png)", "README", "README"),
])
def test_a_picture_only_h1_names_a_readme_by_its_alt_text(heading, stem, expected):
    assert title(f"{heading}\n\nText.", stem=stem) == expected


def test_a_boilerplate_h1_is_still_used_when_the_filename_is_not_informative():
    assert title("# Introduction\n", stem="Untitled-1") == "Introduction"


def test_with_no_h1_an_uninformative_stem_is_used_as_it_is():
    assert title("plain text", stem="IMG_20260807_123456") == "IMG_20260807_123456"


@pytest.mark.parametrize(
    "stem",
    [
        "Untitled-1",
        "IMG_20260807_123456",
        "Копия документа (2)",
        "DSC_0001",
        "new",
        "abc",
        "Screenshot 2026-01-02 at 10.11.12",
        "document (3)",
    ],
)
def test_machine_given_file_names_are_not_informative(stem):
    assert not is_informative_stem(stem)


@pytest.mark.parametrize(
    "stem", ["Copy of budget plan", "scan_invoice_114", "И-112_ЗПС_Хранение ТМЗ", "2024 roadmap"]
)
def test_real_names_that_merely_contain_a_generic_word_are_informative(stem):
    assert is_informative_stem(stem)


def test_underscores_in_a_stem_title_become_spaces():
    assert title("", stem="Hello_big_world") == "Hello big world"


# -- frontmatter --------------------------------------------------------------


@pytest.mark.parametrize(("given", "shown"), [
    ("Quarterly" + " " * 590 + "Report", "Quarterly Report"),
    ("\n" * 700 + "Annual report", "Annual report"),
    ("Annual\n\treport", "Annual report"),
    ("word " * 100, ("word " * 59).rstrip() + "…"),
])
def test_a_title_is_shown_on_one_line_with_its_words_whatever_whitespace_pads_it(given, shown):
    assert fitted_title(given) == shown and len(shown) <= MAX_TITLE_CHARS


def test_frontmatter_is_parsed_into_simple_values_and_removed():
    md = "---\nrag: false\nlifecycle: superseded\nversion: 3\nratio: 0.5\nowner: \"Jane: Doe\"\nnote: 'it''s'\n---\n# Doc\n"
    meta, body = parse_frontmatter(md)
    assert meta == {
        "rag": False,
        "lifecycle": "superseded",
        "version": 3,
        "ratio": 0.5,
        "owner": "Jane: Doe",
        "note": "it's",
    }
    assert body == "# Doc\n"


def test_a_number_too_long_for_python_to_read_is_kept_as_written():
    # int() refuses over 4,300 digits: the whole sync of the file failed with a traceback.
    digits = "1" * 5000
    meta, body = parse_frontmatter(f"---\nx: {digits}\ny: 12\n---\n# Hi\n")
    assert meta == {"x": digits, "y": 12} and body == "# Hi\n"


def test_frontmatter_lists_and_empty_values_are_understood():
    meta, _ = parse_frontmatter("---\ntags:\n  - a\n  - b\nempty:\nrag: TRUE\n---\nx")
    assert meta == {"tags": ["a", "b"], "empty": None, "rag": True}


def test_a_document_without_frontmatter_is_returned_unchanged():
    for md in ["# Doc\n---\nrag: false\n---\n", "", "text", "---\nrag: false\n"]:
        assert parse_frontmatter(md) == ({}, md)


def test_a_leading_rule_followed_by_prose_is_not_frontmatter():
    md = "---\nThis is a paragraph, not metadata.\n---\nMore."
    assert parse_frontmatter(md) == ({}, md)
