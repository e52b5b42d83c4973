"""A notebook output given as LaTeX reads as its TeX, as Jupyter typesets it, not as its
text/plain repr.

emcee's line-fitting tutorial (docs/tutorials/line.ipynb, 3.1.6 sdist) ends with its fitted
parameters, displayed as `Math`: the passage read `<IPython.core.display.Math object>` three times,
and the answers (m = -1.007, b = 4.550, log f = -0.772 with their errors) were nowhere.
"""

from __future__ import annotations

import json

from minirag.ingest.convert import convert_document

SOURCE = ('from IPython.display import display, Math\n\nfor i in range(ndim):\n'
          '    mcmc = np.percentile(flat_samples[:, i], [16, 50, 84])\n    q = np.diff(mcmc)\n'
          '    txt = "\\\\mathrm{{{3}}} = {0:.3f}_{{-{1:.3f}}}^{{{2:.3f}}}"\n'
          '    txt = txt.format(mcmc[1], q[0], q[1], labels[i])\n    display(Math(txt))')
RESULTS = ("$\\displaystyle \\mathrm{m} = -1.007_{-0.081}^{0.077}$", "$\\displaystyle \\mathrm{b} = 4.550_{-0.358}^{0.366}$")


def test_a_latex_output_reads_as_its_tex():
    outputs = [{"output_type": "display_data", "metadata": {},
                "data": {"text/latex": [tex], "text/plain": ["<IPython.core.display.Math object>"]}} for tex in RESULTS]
    notebook = {"nbformat": 4, "nbformat_minor": 4, "metadata": {}, "cells": [
        {"cell_type": "code", "execution_count": 12, "metadata": {}, "source": SOURCE, "outputs": outputs}]}
    markdown = convert_document(json.dumps(notebook).encode(), ".ipynb", "line.ipynb").markdown
    assert "Math object" not in markdown
    assert "```\n\n" + RESULTS[0] + "\n\n" + RESULTS[1] in markdown
