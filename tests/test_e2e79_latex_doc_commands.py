"""LaTeX's own manuals (and every package's, written with the doc or ltxguide class) name commands
with `\\cs{begin}` and arguments with `\\meta{env}`, `\\marg{env}`, `\\oarg{...}`, and quote code
between `|` bars once `\\MakeShortVerb{\\|}` (or the ltxguide class) makes the bar a `\\verb`.
They read `begin`, `env` and nothing: "Doing this for begin and end", "(beginenv … endenv)", and
a declaration box of four empty `||` lines. Pieces of TeX Live 2022's `ltnews30.tex`, `usrguide.tex`
and `cyrguide.tex` (texlive-latex-base-doc, LPPL)."""

from minirag.ingest.latex_text import latex_to_markdown

LTNEWS = r"""\documentclass{ltnews}
\providecommand\meta[1]{$\langle$\textit{#1}$\rangle$}
\begin{document}
Doing this for \cs{begin} and \cs{end} was rather tricky as the
standard mechanism with \cs{DeclareRobustCommand} doesn't work here.
\end{document}
"""

USRGUIDE = r"""\documentclass{ltxguide}
\begin{document}
\begin{decl}
  |\NewDocumentEnvironment|     \arg{env} \arg{arg spec} \arg{beg-code} \arg{end-code} \\
  |\RenewDocumentEnvironment|   \arg{env} \arg{arg spec} \arg{beg-code} \arg{end-code}
\end{decl}
These commands work in the same way as \cs{NewDocumentCommand}, etc.\@, but
create environments (\cs{begin}\arg{env} \ldots{}
\cs{end}\arg{env}). Both the \meta{beg-code} and \meta{end-code}
may access the arguments as defined by \meta{arg spec}.
\end{document}
"""

CYRGUIDE = r"""\documentclass{article}
\MakeShortVerb{\|}
\begin{document}
Cyrillic \TeX{} font encodings---|T2A|, |T2B|, |T2C|, and~|X2|. Use \verb|\usepackage[T2A]{fontenc}|.
\DeleteShortVerb{\|}
A bar after it is text: a|b.
\end{document}
"""


def test_cs_names_a_command_with_its_backslash_and_meta_an_argument_in_angle_brackets():
    markdown, _ = latex_to_markdown(LTNEWS)
    assert "Doing this for `\\begin` and `\\end` was rather tricky as the standard mechanism with " \
           "`\\DeclareRobustCommand` doesn't work here." in markdown
    markdown, _ = latex_to_markdown(USRGUIDE)
    assert "create environments (`\\begin`{⟨env⟩} … `\\end`{⟨env⟩})" in markdown
    assert "Both the ⟨beg-code⟩ and ⟨end-code⟩ may access the arguments as defined by ⟨arg spec⟩." in markdown


def test_bars_are_verbatim_where_make_short_verb_or_the_ltxguide_class_makes_them_so():
    markdown, _ = latex_to_markdown(USRGUIDE)
    assert "`\\NewDocumentEnvironment` {⟨env⟩} {⟨arg spec⟩} {⟨beg-code⟩} {⟨end-code⟩}" in markdown
    assert "`\\RenewDocumentEnvironment` {⟨env⟩}" in markdown and "||" not in markdown
    markdown, _ = latex_to_markdown(CYRGUIDE)
    assert "font encodings—`T2A`, `T2B`, `T2C`, and `X2`. Use `\\usepackage[T2A]{fontenc}`." in markdown
    assert "A bar after it is text: a|b." in markdown
    plain, _ = latex_to_markdown(CYRGUIDE.replace("\\MakeShortVerb{\\|}\n", ""))
    assert "encodings—|T2A|, |T2B|" in plain  # no declaration: a bar is a bar


LTNEWS_ISSUE = r"""\documentclass{ltnews}
\providecommand\githubissue[2][]{\ifhmode\unskip\fi
     \quad\penalty500\strut\nobreak\hfill
     \mbox{\small\slshape(%
       \href{https://github.com/latex3/latex2e/issues/#2}%
                  {github issue#1 #2}%
           )}%
     \par\smallskip}
\begin{document}
\texttt{U+012F} which is i with ogonek produced a dotless i with ogonek by mistake.
\githubissue{122}
{\tolerance=9999 \hyphenpenalty 10000 Set loosely.}
\end{document}
"""


def test_the_number_after_penalty_and_tex_integer_parameters_is_not_text():
    # LaTeX News sets each issue link after `\penalty500`: every one read "500(github issue …)".
    markdown, _ = latex_to_markdown(LTNEWS_ISSUE)
    assert "by mistake. ([github issue 122](https://github.com/latex3/latex2e/issues/122))" in markdown
    assert "500" not in markdown and "9999" not in markdown and "10000" not in markdown
    assert "Set loosely." in markdown
