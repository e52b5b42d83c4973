"""Markdown shaped to make the chunker's in-process scans quadratic (found by redteam76). The chunker
runs in the syncing process on up to MAX_TEXT_CHARS (32 M characters) of a document's text, outside
the converter's memory and CPU limits, so a line an attacker shapes stalls the whole sync."""

from helpers.growth import grows_linearly

from minirag.chunking.images import strip_data_images


def test_unclosed_data_images_on_one_line_cost_linear_time():
    # Each attempt from a `![` ran its possessive data run to the end of the line (no `)` and no
    # space): 160,000 characters took 11 s, and 32 M would take days.
    assert grows_linearly(strip_data_images, lambda n: "![a](data:" * n)


def test_a_data_image_is_still_its_alt_text():
    assert strip_data_images("See ![a chart](data:image/png;base64,iVBO+/w==) here ![x](data:a) too") == \
        "See a chart here x too"
    assert strip_data_images('![t](data:image/svg+xml;utf8,%3Csvg%3E "title")') == "t"
