"""GitHub alerts, Python-Markdown admonitions and MyST markup, read as their renderers show them."""

import pytest
from helpers.growth import grows_linearly

from minirag.ingest.convert import convert_document
from minirag.ingest.markdown_extensions import read_extensions


def test_github_alerts_read_as_their_label():
    source = ("> [!NOTE]\n> Restart after upgrading.\n\n>> [!caution] Nested.\n\n> \\[!TIP]\n> Escaped.\n\n"
              "> [!UNKNOWN]\n> Kept.\n")
    assert read_extensions(source) == (
        "> Note:\n> Restart after upgrading.\n\n>> Caution: Nested.\n\n> Tip:\n> Escaped.\n\n> [!UNKNOWN]\n> Kept.\n")


def test_admonitions_and_content_tabs_read_as_their_title_then_their_content_unindented():
    source = (
        "Intro.\n\n!!! tip \"Speed it up\"\n    Use the **cache**.\n\n    ```sh\n    run --fast\n    ```\n\n"
        "??? note\n    Collapsed text.\n\n!!! warning inline end\n    Placed text.\n\n!!! danger \"\"\n    No title.\n\n"
        "=== \"Linux\"\n\n    Run `apt install x`.\n\nOutro.\n")
    assert read_extensions(source) == (
        "Intro.\n\nSpeed it up\nUse the **cache**.\n\n```sh\nrun --fast\n```\n\n"
        "Note: Collapsed text.\n\nWarning: Placed text.\n\nNo title.\n\n"
        "Linux\nRun `apt install x`.\n\nOutro.\n")


def test_lines_that_only_look_like_admonitions_stay():
    for line in ("=== Linux", "!!!", "!!! two words here", "===", "Text !!! note"):
        assert read_extensions(line + "\n    indented\n") == line + "\n    indented\n"


def test_myst_targets_go_and_directives_show_their_content():
    source = (
        "(install)=\n## Install\n\n```{note}\nA note with <b>bold</b>.\n```\n\n"
        ":::{warning} Mind the gap\n:class: dropdown\nCareful.\n:::\n\n"
        "```{code-block} python\n:linenos:\nx = 1\n```\n\n"
        "````{admonition} Custom title\nOuter text.\n\n```{tip}\nInner tip.\n```\n````\n\n"
        "```{toctree}\n:maxdepth: 2\nintro\n```\n\n"
        "```{eval-rst}\n.. versionadded:: 3.2\n   Added the *thing*.\n```\n\n"
        "```{figure} cat.png\n---\nalt: A cat on a mat\n---\nThe caption.\n```\n\nEnd.\n")
    assert read_extensions(source) == (
        "## Install\n\nNote: A note with <b>bold</b>.\n\nWarning: Mind the gap\nCareful.\n\n"
        "```python\nx = 1\n```\n\nCustom title: Outer text.\n\nTip: Inner tip.\n\n"
        "New in version 3.2: Added the *thing*.\n\nA cat on a mat The caption.\n\nEnd.\n")



@pytest.mark.parametrize(("source", "shown"), [
    # ```{r} is a knitr or Quarto chunk, not a directive named r: its code had been read as prose.
    ("```{r}\nfit <- lm(y ~ x, data = sales)\n```\n\n```{python}\n#| echo: false\nimport pandas as pd\n```\n\n"
     "```{.python}\nx = 1\n```\n\n```{note}\nA note.\n```\n\n:::{python}\nA colon fence is never code.\n:::\n",
     "```r\nfit <- lm(y ~ x, data = sales)\n```\n\n```python\nimport pandas as pd\n```\n\n"
     "```python\nx = 1\n```\n\nNote: A note.\n\nA colon fence is never code.\n"),
    # knitr's chunk options follow the engine in the braces (every R Markdown file opens with
    # ```{r setup, include=FALSE}); the fence had been kept as written, its info string `{r`.
    ("```{r setup, include=FALSE}\nlibrary(dplyr)\n```\n\n```{r, echo=FALSE}\nx <- 1\n```\n\n"
     "```{sql, connection=con}\nSELECT 1\n```\n\n```{.python .numberLines}\ny = 2\n```\n",
     "```r\nlibrary(dplyr)\n```\n\n```r\nx <- 1\n```\n\n```sql\nSELECT 1\n```\n\n```python\ny = 2\n```\n"),
    # Pandoc's raw block ```{=html} is put in the page as it is: its tags had been indexed as code.
    ("Before.\n\n```{=html}\n<div class=\"box\"><b>Raw</b> html <em>words</em></div>\n```\n\n```{=latex}\n\\newpage\n```\n",
     "Before.\n\nRaw html words\n\n```{=latex}\n\\newpage\n```\n"),
    # Quarto's callouts, tab sets and columns are Pandoc's fenced divs: their `:::` lines and
    # attributes had been indexed as words ("::: {.callout-note}" a section of its own).
    ("Intro.\n\n::: {.callout-warning}\nBack up first.\n:::\n\n:::: {.columns}\n::: {.column width=\"50%\"}\n"
     "Left words.\n:::\n::::\n\n::: panel-tabset\n## Tab A\n\nAlpha.\n:::\n\n```\n::: {.kept}\n```\n",
     "Intro.\n\nWarning: Back up first.\n\nLeft words.\n\n## Tab A\n\nAlpha.\n\n```\n::: {.kept}\n```\n"),
], ids=["code-chunks", "chunk-options", "raw-html", "fenced-divs"])
def test_quarto_and_pandoc_markup_reads_as_the_page_shows(source, shown):
    assert read_extensions(source) == shown


def test_code_keeps_what_looks_like_an_extension():
    source = "```python\n!!! note\n    x\n(target)=\n> [!NOTE]\n```\n\n~~~\n```{note}\nno\n```\n~~~\n"
    assert read_extensions(source) == source


def test_a_markdown_file_is_indexed_without_the_markers():
    source = b"# Setup\n\n> [!IMPORTANT]\n> Back up first.\n\n!!! note\n    Needs <kbd>root</kbd>.\n\n(anchor)=\nDone.\n"
    markdown = convert_document(source, ".md", "setup.md").markdown
    assert markdown == "# Setup\n\n> Important:\n> Back up first.\n\nNote: Needs root.\n\nDone.\n"


@pytest.mark.parametrize("run", ["> ", "> >", "!!! ", "=== \"", "```{note}\n", ":::{x}\n", "!!! note\n    ",
                                 "(a)=\n", "````{note}\n```{tip}\n", "::: {.callout-note}\n", "::: note\n"])
def test_long_runs_of_extension_markers_are_read_in_linear_time(run):
    assert grows_linearly(read_extensions, lambda repeats: "> [!NOTE]\n" + run * repeats + "x")


def test_nesting_past_the_limit_is_left_as_text():
    deep = "".join(f"{'    ' * n}!!! note\n" for n in range(60)) + "    " * 60 + "core\n"
    out = read_extensions(deep)
    assert "core" in out and out.count("Note:") == 41
