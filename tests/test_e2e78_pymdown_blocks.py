"""PyMdown's generic blocks (`/// note | Title` ... `///`) read as the page shows them: the title
or the kind's label, then the content; the slash lines and the options under the header are no
text.

pymdown-extensions' own docs (docs/src/markdown/extensions/tabbed.md, blocks/plugins/admonition.md
in its 13.1.2 sdist) are written with them, as MkDocs Material's are: every box read with its
`/// tip | 9.10 New Approach to Tabs` and `///` lines, and every rendered example wrapped in
`/// html | div.result` and `///`, a passage of markup words no reader sees.
"""

from __future__ import annotations

from minirag.ingest.convert import convert_document

TABBED = '''# Tabbed

/// tip | 9.10 New Approach to Tabs
9.10 introduces the new, experimental version of tabs using the [generic block syntax](./blocks/index.md).
///

## Overview

/// html | div.result
=== "Tab 1"
    Markdown **content**.

=== "Tab 2"
    More Markdown **content**.
///

/// note
If you are using JavaScript to track selected tabs across pages, adjust it.
///

/// admonition | Some title
    type: warning

Some content
///

//// html | div.result
/// caption
Fruit Count
///
////

```text title="Admonition"
/// admonition | Some title
Some content
///
```

/// warning
An unclosed block is text.
'''


def test_pymdown_blocks_read_as_their_title_and_content():
    markdown = convert_document(TABBED.encode(), ".md", "tabbed.md").markdown
    assert "9.10 New Approach to Tabs\n9.10 introduces the new" in markdown
    assert "Tab 1\nMarkdown **content**." in markdown and "div.result" not in markdown
    assert "Note: If you are using JavaScript" in markdown
    assert "Some title\nSome content" in markdown and "type: warning" not in markdown
    assert "\nFruit Count\n" in markdown
    assert "```text title=\"Admonition\"\n/// admonition | Some title\nSome content\n///\n```" in markdown  # code stays
    assert "/// warning\nAn unclosed block is text." in markdown
    assert markdown.count("///") == 3  # the code block's two lines and the unclosed block's


def test_a_block_nested_with_as_many_slashes_closes_in_order():
    text = "/// details | Outer\n/// note\nInner text.\n///\nOuter text.\n///\n"
    markdown = convert_document(text.encode(), ".md", "nested.md").markdown
    assert "///" not in markdown
    assert "Outer\nNote: Inner text.\n\nOuter text." in markdown
