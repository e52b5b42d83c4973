"""Documents as a reader sees them: what a converter used to lose, drop or garble on real
documents, and what it keeps now."""

from __future__ import annotations

import json

from conftest import FIXTURES

from minirag.ingest.convert import convert_document, convert_file

DOCS = FIXTURES / "docs"


# --- notebooks ------------------------------------------------------------------------------


def test_a_notebooks_printed_output_is_kept_after_its_code():
    markdown = convert_file(DOCS / "ipynb_nbformat_test4.ipynb").markdown  # nbformat's own test notebook
    assert '```python\nfrom __future__ import annotations\n\nprint("hello")\n```\n\n```\nhello\n```' in markdown
    assert "<IPython.core.display" not in markdown  # a bare repr is not what a reader sees


def _notebook(cells: list[dict], language: str = "python") -> bytes:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "cells": cells,
                       "metadata": {"kernelspec": {"name": "ir", "language": language}}}).encode()


def test_a_notebooks_table_result_and_error_are_text_and_its_images_are_left_out():
    table = ('<div><table class="dataframe"><thead><tr><th></th><th>city</th><th>rainfall_mm</th></tr></thead>'
             "<tbody><tr><th>0</th><td>Bergen</td><td>2250</td></tr></tbody></table></div>")
    data = _notebook([
        {"cell_type": "markdown", "metadata": {}, "source": ["# Rainfall\n", "Yearly totals."]},
        {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": "df <- read.csv('rain.csv')\ndf",
         "outputs": [{"output_type": "execute_result", "execution_count": 1, "metadata": {},
                      "data": {"text/html": [table], "text/plain": ["  city rainfall_mm\n", "0 Bergen 2250"]}},
                     {"output_type": "display_data", "metadata": {}, "data": {"image/png": "iVBORw0KGgo="}}]},
        {"cell_type": "code", "metadata": {}, "execution_count": 2, "source": ["stop('no station')"],
         "outputs": [{"output_type": "error", "ename": "simpleError", "evalue": "no station",
                      "traceback": ["\x1b[1m\x1b[31mError in eval(expr, envir, enclos): no station\x1b[0m"]}]},
    ], language="R")
    markdown = convert_document(data, ".ipynb", "rain.ipynb").markdown
    assert "```r\ndf <- read.csv('rain.csv')\ndf\n```" in markdown
    assert "| Bergen | 2250 |" in markdown
    assert "```\nError in eval(expr, envir, enclos): no station\n```" in markdown
    assert "iVBORw0KGgo" not in markdown and "\x1b" not in markdown
