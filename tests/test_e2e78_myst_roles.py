"""A MyST role in a Markdown cell or file (`` {class}`EnsembleSampler` ``) reads as the same role
in reStructuredText does: a code role as a code span, a reference as its title.

emcee's tutorials (docs/tutorials/quickstart.ipynb and moves.ipynb in its 3.1.6 sdist) are MyST
notebooks: the passages an agent got read `the {func}\\`EnsembleSampler.run_mcmc\\` function` and
`see {ref}\\`moves-user\\` for the API docs`, the role names indexed as words of the text.
"""

from __future__ import annotations

import json

from minirag.ingest.convert import convert_document

CELLS = [
    "Now, we'll set up the specific values of those \"hyperparameters\" in 5\ndimensions:",
    "the documentation for\nthe {func}`EnsembleSampler.run_mcmc` function. The call to the\n"
    "{func}`EnsembleSampler.reset` method clears all of the important bookkeeping",
    "interface for using different \"moves\" (see {ref}`moves-user` for the API docs), "
    "as {ref}`the guide <quickstart>` shows; {py:class}`moves.DEMove` too.",
    "A literal `{class}` and `` {func}`not_a_role` `` stay code.",
]


def _notebook(cells: list[str]) -> bytes:
    return json.dumps({"nbformat": 4, "nbformat_minor": 4, "metadata": {},
                       "cells": [{"cell_type": "markdown", "metadata": {}, "source": c} for c in cells]}).encode()


def test_myst_roles_read_as_their_text():
    markdown = convert_document(_notebook(CELLS), ".ipynb", "quickstart.ipynb").markdown
    assert "the `EnsembleSampler.run_mcmc` function" in markdown
    assert "`EnsembleSampler.reset` method" in markdown
    assert "(see moves-user for the API docs), as the guide shows; `moves.DEMove` too." in markdown
    assert "A literal `{class}` and `` {func}`not_a_role` `` stay code." in markdown


def test_a_role_in_a_markdown_file_and_in_code():
    text = "Call {meth}`Sampler.get_chain` first.\n\n```md\n{meth}`kept`\n```\n"
    markdown = convert_document(text.encode(), ".md", "guide.md").markdown
    assert "Call `Sampler.get_chain` first." in markdown and "{meth}`kept`" in markdown
