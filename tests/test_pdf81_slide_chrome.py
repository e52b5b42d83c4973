"""A beamer deck's footline, repeated on every slide, reads once, not as each slide's text.

tests/fixtures/pdf81/slides.pdf is made from slides.tex beside it (pdflatex, beamer's Madrid theme):
each slide's foot holds the author and institute, the title, the date and the slide's number
("2 / 5"), four lines below the slide's own text. Only the last two lines of a page were looked at
for running footers, so the date and the number went and the author and the title stayed, two
lines of every slide's text."""

from __future__ import annotations

from conftest import FIXTURES

from minirag.ingest.convert import convert_file

SLIDES = FIXTURES / "pdf81" / "slides.pdf"


def test_a_slide_reads_as_its_own_text_without_the_footline():
    markdown = convert_file(SLIDES).markdown
    assert markdown.count("Ann Lee (Kelp Institute)") == 1  # kept where it first stands, on the title slide
    where = markdown.index("Why otters use tools")
    assert " ".join(markdown[where:].split()) == (
        "Why otters use tools Otters crack urchins on flat stones carried in a pouch. A favourite stone is "
        "kept for weeks. Where they rest Rafts of otters float in kelp beds, holding paws so they do not drift "
        "apart while they sleep. How much they eat An adult eats a quarter of its weight each day: crabs, "
        "clams, urchins and snails. What threatens them Oil spills matt their fur, which then no longer keeps "
        "them warm in cold water.")
