"""A Quarto or R Markdown code chunk reads as the rendered page shows it: its options (`#| label:`
lines at its top, Quarto's way and knitr's since 1.35) are no code a reader sees, and its figure's
or table's caption (`fig-cap`, knitr's `fig.cap`, in those lines or in the chunk's header) is text
under the code, where the figure is. The options had read as the code's first lines and the
captions, often the only words saying what a plot shows, as code.

Files (tests/fixtures/readers84/): Quarto's own test `tests/docs/crossrefs/python-subfig.qmd`
(quarto-cli, MIT) and knitr's vignette `knitr-intro.Rmd` (Debian's r-cran-knitr 1.42, GPL-3+).
"""

from __future__ import annotations

from conftest import FIXTURES
from helpers.growth import grows_linearly

from minirag.ingest.chunk_options import read_chunk
from minirag.ingest.convert import convert_document

HERE = FIXTURES / "readers84"


def _read(name: str) -> str:
    return convert_document((HERE / name).read_bytes(), "." + name.rsplit(".", 1)[1].lower(), name).markdown


def test_readers84_a_chunks_option_lines_are_left_out_and_its_captions_are_text_under_it():
    markdown = _read("python-subfig.qmd")
    assert ("```python\nimport matplotlib.pyplot as plt\nplt.plot([1,23,2,4])\nplt.show()\n\n"
            "plt.plot([8,65,23,90])\nplt.show()\n```\n\nPlot 1\n\nPlot 2\n\nPlots\n\nSee @fig-plots") in markdown, markdown
    assert "#|" not in markdown and "layout" not in markdown


def test_readers84_a_caption_in_a_knitr_chunks_header_is_text_under_its_code():
    markdown = _read("knitr-intro.Rmd")
    assert ("```r\npar(mar=c(4, 4, 1, .1))\nplot(cars, pch = 20)\nabline(fit, col = 'red')\n```\n\n"
            "A scatterplot with a regression line.\n\n## References") in markdown, markdown


def test_readers84_a_chunks_long_caption_and_blank_lines_cost_their_length():
    def lines(n: int) -> str:
        return "\n".join(["#| fig-cap: |", *["#|   a caption line"] * 4 * n, *[""] * 4 * n, "plot(x)"])

    assert grows_linearly(lambda text: read_chunk("r", text.split("\n")), lines)
