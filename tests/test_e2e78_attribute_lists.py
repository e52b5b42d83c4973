"""Attribute lists (Python-Markdown's attr_list, as MkDocs Material's docs use it; Pandoc's heading
attributes) set a class, an id or an attribute and show nothing.

Every page of pymdown-extensions' docs (13.1.2 sdist, docs/src/markdown/extensions/*.md) opens
with `[:octicons-file-code-24:][_details]{: .source-link }`, and Material's docs mark buttons
`[Download](x.md){ .md-button }`: the braces were indexed as words of the passage.
"""

from __future__ import annotations

from minirag.ingest.convert import convert_document

PAGE = """# Details {#details}

Click [Get started](getting-started.md){ .md-button .md-button--primary } to begin.

![Logo](logo.png){ width="300" align=left }

Details is an extension that creates collapsible elements that hide their content.
{: .lead }

A *highlighted* word, and `code {: .x }` stays code.

TeX keeps its macro arguments: $\\newcommand{\\x}[1]{#1}$, and {braces in prose} stay.

$$
\\mu_f = \\frac{1}{N}\\sum_{n=1}^N f_n
$$

A chain $\\{f_n\\}_{n=1}^N$ is enough.

```md
[Download](x.md){ .md-button }
```
"""


def test_attribute_lists_show_nothing():
    markdown = convert_document(PAGE.encode(), ".md", "details.md").markdown
    assert "# Details\n" in markdown and "{#details}" not in markdown
    assert "Click [Get started](getting-started.md) to begin." in markdown
    assert "![Logo](logo.png)\n" in markdown and "width=" not in markdown.split("```")[0]
    assert "hide their content.\n\nA *highlighted* word, and `code {: .x }` stays code." in markdown
    assert "$\\newcommand{\\x}[1]{#1}$, and {braces in prose} stay." in markdown
    assert "\\sum_{n=1}^N f_n" in markdown and "A chain $\\{f_n\\}_{n=1}^N$ is enough." in markdown
    assert "```md\n[Download](x.md){ .md-button }\n```" in markdown
