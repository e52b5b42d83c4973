"""A LaTeX source's cross-references read as their labels, and its title page's date prints.

Typeset, `\\ref{sec:install}` prints "2" and `\\eqref{eq:energy}` "(3)"; the source does not hold
those numbers, and they printed nothing: "See Section and Eq. ." read as words run together, and
the label, the one word the author chose for the thing referred to, was not searchable. They read
as the label now, in brackets as a citation's keys do (`(label)` for an equation, as it prints)."""

from __future__ import annotations

from conftest import write

from minirag.ingest.convert import convert_file

PAPER = r"""\documentclass{article}
\usepackage{hyperref,cleveref}
\title{Installing Foo}
\author{Ann Lee \and Bo Chen}
\date{March 2024}
\begin{document}
\maketitle
\section{Install}\label{sec:install}
See Section~\ref{sec:install} and Eq.~\eqref{eq:energy}, as \cite{knuth84} does, on page~\pageref{sec:install}.
\Cref{fig:arch,tab:sizes} and \autoref{sec:use_cases} show it; so does \nameref{sec:install}.
\hyperref[sec:install]{the installation} and \vref{fig:arch}.
Typeset with \LaTeX{} and \TeX, \ldots{} a \textbackslash{} and \url{https://x.org/a_b}.
\end{document}
"""


def _read(tmp_path) -> str:
    return convert_file(write(tmp_path / "paper.tex", PAPER)).markdown


def test_a_reference_reads_as_its_label(tmp_path):
    markdown = _read(tmp_path)
    assert "See Section [sec:install] and Eq. (eq:energy), as [knuth84] does, on page [sec:install]." in markdown
    assert "[fig:arch, tab:sizes] and [sec:use_cases] show it; so does [sec:install]." in markdown
    assert "the installation and [fig:arch]." in markdown


def test_the_title_page_prints_its_authors_and_its_date_and_the_logos_their_names(tmp_path):
    markdown = _read(tmp_path)
    assert markdown.startswith("Ann Lee, Bo Chen\n\nMarch 2024\n\n# Install")
    assert "Typeset with LaTeX and TeX, … a \\ and https://x.org/a_b." in markdown
    # `\\today`: the day LaTeX runs is not in the source; the day of reading would change the text daily.
    markdown = convert_file(write(tmp_path / "a.tex", PAPER.replace("March 2024", r"\today"))).markdown
    assert markdown.startswith("Ann Lee, Bo Chen\n\n# Install")
