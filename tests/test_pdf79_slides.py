"""A slide deck's navigation, repeated on every slide, is read once.

beamer's sidebar themes set the deck's title, its author and every section's and subsection's name
beside each slide: beamerexample-lecture-beamer-version.pdf (texlive-latex-recommended-doc) read
those 20 lines on each of its 33 slides, above or below the slide's own few lines, so a chunk of a
slide was mostly the deck's table of contents, and every hit on "Semantik von Programmiersprachen"
was a sidebar.

The pages here are that deck's text, laid out as its pages are (tests/pdf_maker.py): each slide's
title and text, then the sidebar, then the slide's number; an outline of its sections.
"""

from __future__ import annotations

from pdf_maker import make_pdf

from minirag.ingest.convert import convert_document

SIDEBAR = ["Syntax versus", "Semantik", "", "Till Tantau", "", "Ziele und Inhalt", "", "Was ist Syntax?", "",
           "Syntax", "natürlicher Sprachen", "", "Syntax von", "Programmiersprachen", "", "Was ist Semantik?", "",
           "Semantik", "natürlicher Sprachen", "", "Semantik von", "Programmiersprachen", "", "Alphabete", "",
           "Worte"]
SLIDES = [
    ("Die Lernziele der heutigen Vorlesung.", "Die Begriffe Syntax und Semantik erklären können."),
    ("Beobachtungen zu einem ägyptischen Text.", "Wir haben keine Ahnung, was der Text bedeutet."),
    ("Beobachtungen zu einem kyrillischen Text.", "Wir kennen mehr Regeln als bei den Hieroglyphen."),
    ("Beobachtungen zu einem deutschen Text.", "Auch hier werden viele syntaktische Regeln eingehalten."),
    ("Die Syntax von Programmiersprachen.", "Ein Compiler prüft die Syntax, bevor er übersetzt."),
    ("Die Semantik von Programmiersprachen.", "Ein Interpreter gibt einem Programm seine Bedeutung."),
]
OUTLINE = [(1, "Ziele und Inhalt", 0), (1, "Was ist Syntax?", 1), (2, "Syntax natürlicher Sprachen", 1),
           (2, "Syntax von Programmiersprachen", 4), (1, "Was ist Semantik?", 5)]


def _deck() -> str:
    pages = [[title, "", text, ""] + SIDEBAR + ["", f"1.{number}"] for number, (title, text) in enumerate(SLIDES, 1)]
    return convert_document(make_pdf(pages, OUTLINE), ".pdf", "deck.pdf").markdown


def test_the_sidebar_is_read_on_the_first_slide_only():
    text = _deck()
    pages = text.split("\f")
    assert len(pages) == len(SLIDES) + 1  # every slide still a page
    assert text.count("Semantik von\nProgrammiersprachen") == 1
    assert text.count("Till Tantau") == 1 and "Till Tantau" in pages[0]
    for page, (title, line) in zip(pages, SLIDES, strict=False):
        assert title in page and line in page


def test_a_section_heading_in_the_sidebar_stays_on_its_slide():
    pages = _deck().split("\f")
    assert "# Ziele und Inhalt" in pages[0]
    assert "# Was ist Syntax?" in pages[1] and "## Syntax natürlicher Sprachen" in pages[1]
    assert "## Syntax von Programmiersprachen" in pages[4]
    assert "# Was ist Semantik?" in pages[5]
    assert [line for line in pages[2].split("\n") if line.strip()] == [
        "Beobachtungen zu einem kyrillischen Text.", "Wir kennen mehr Regeln als bei den Hieroglyphen.", "1.3"]
