import pytest
from helpers.growth import grows_linearly

from minirag.chunking import chunk_document
from minirag.chunking.fences import code_line_mask
from minirag.ingest.html_markdown import html_to_markdown


def md(html: str) -> str:
    return html_to_markdown(html)[0]


def test_headings_paragraphs_and_the_title():
    markdown, title = html_to_markdown(
        "<html><head><title> The  Guide </title><style>p {color: red}</style></head>"
        "<body><h1>Install</h1><p>Run   the\n installer.</p><h3>Notes</h3><div>Reboot after.</div></body></html>"
    )
    assert title == "The Guide"
    assert markdown == "# Install\n\nRun the installer.\n\n### Notes\n\nReboot after."


def test_scripts_styles_and_form_controls_are_dropped_but_text_after_them_stays():
    markdown = md("<p>before<script>alert(1)</script> after<!-- note --> tail<select><option>x</option></select></p>")
    assert markdown == "before after tail"


def test_nested_lists_keep_their_markers_and_indentation():
    markdown = md("<ul><li>one<ul><li>one.a</li></ul></li><li>two</li></ul><ol start='3'><li>three</li><li>four</li></ol>")
    assert markdown == "- one\n  - one.a\n- two\n\n3. three\n4. four"


def test_a_table_becomes_a_pipe_table_with_its_header_first():
    markdown = md("<table><caption>Types</caption><thead><tr><th>TOML</th><th>Python</th></tr></thead>"
                  "<tbody><tr><td>table</td><td>dict</td></tr><tr><td>a|b</td></tr></tbody></table>")
    assert markdown == "Types\n\n| TOML | Python |\n| --- | --- |\n| table | dict |\n| a\\|b |  |"


def test_preformatted_code_is_fenced_verbatim_with_its_language():
    markdown = md('<div class="highlight-python3"><pre>def f():\n    return "```"\n</pre></div><p>x</p>')
    assert markdown == '````python3\ndef f():\n    return "```"\n````\n\nx'


def test_inline_code_links_and_images():
    markdown = md('<p>Call <code>load()</code> from <a href="lib/toml.html#load" title="t">the docs</a>, '
                  '<a href="javascript:evil()">not this</a>, <img alt="logo" src="a b.png">'
                  '<img alt="inline" src="data:image/png;base64,AAAA"></p>')
    assert markdown == "Call `load()` from [the docs](lib/toml.html#load), not this, ![logo](a%20b.png)inline"


def test_line_breaks_blockquotes_and_definition_lists():
    markdown = md("<p>line one<br>line two</p><blockquote><p>quoted</p><p>more</p></blockquote>"
                  "<dl><dt>term</dt><dd>meaning</dd></dl>")
    assert markdown == "line one\nline two\n\n> quoted\n>\n> more\n\nterm\n: meaning"  # a term stays with its meaning


def test_text_that_looks_like_a_heading_is_escaped():
    assert md("<p># not a heading</p>") == "\\# not a heading"


@pytest.mark.parametrize("html", ["", "   ", "<!-- only a comment -->", "<html><body></body></html>"])
def test_empty_documents_give_no_text(html):
    assert md(html) == ""


def test_an_xml_declaration_and_a_broken_document_are_read():
    assert md('<?xml version="1.0" encoding="utf-8"?><html><body><p>ok</p></body></html>') == "ok"
    assert md("<p>unclosed <b>bold <i>italic</p><p>next") == "unclosed bold italic\n\nnext"


def test_nesting_deeper_than_the_stack_keeps_the_text():
    # Without its structure, but not run together ("deeptext"), and no script kept.
    assert md("<div>" * 1000 + "<p>deep</p><p>text</p>" + "</div>" * 1000) == "deep\ntext"
    assert md("<div>" * 1000 + "<p>a<script>evil()</script>b<!-- c -->c <i>d</i>e</p><ul><li>f</li><li>g</li></ul>"
              + "</div>" * 1000) == "abc de\nf\ng"
    md("<div>" * 5000 + "<p>deep</p>" + "</div>" * 5000)  # past libxml2's 2048 levels: no error


def test_nesting_past_libxml2s_depth_limit_keeps_the_text_inside_and_after_it():
    # 3,000 unclosed <font> tags, as old page generators leave them: libxml2 stops reading at 2,048
    # levels, and lxml's tree held neither the deep text nor anything after it.
    page = ("<html><head><title>Old page</title><style>p {}</style></head><body><p>before</p>"
            + "<font size=2>" * 3000 + "<p>deep</p><script>evil()</script><p>deeper <b>bold</b></p>"
            + "<table><tr><td>cell</td><td>other</td></tr></table><p>after</p></body></html>")
    markdown, title = html_to_markdown(page)
    assert markdown == "before\ndeep\ndeeper bold\ncell\nother\nafter"
    assert title == "Old page"


def test_a_merged_cell_is_repeated_in_every_row_it_covers_and_written_once_across():
    # Cells were written left to right, their spans ignored: Pear stood under Group and green
    # under Name, and every cell after a colspan moved a column left. A row read alone (a chunk
    # may hold only some rows) still says which group it is in; a merge across is in its row once.
    markdown = md("<table><thead><tr><th rowspan=2>Group</th><th colspan=2>Item</th></tr>"
                  "<tr><th>Name</th><th>Colour</th></tr></thead>"
                  "<tbody><tr><td rowspan=2>Fruit</td><td>Apple</td><td>red</td></tr>"
                  "<tr><td>Pear</td><td>green</td></tr>"
                  "<tr><td rowspan=0>Root</td><td>Leek</td><td>white</td></tr>"  # 0: to the end of its tbody
                  "<tr><td>Beet</td><td>red</td></tr></tbody>"
                  "<tbody><tr><td colspan=2>Total</td><td rowspan=9>4</td></tr></tbody></table>")
    assert markdown == ("| Group | Item |  |\n| --- | --- | --- |\n| Group | Name | Colour |\n"
                        "| Fruit | Apple | red |\n| Fruit | Pear | green |\n| Root | Leek | white |\n"
                        "| Root | Beet | red |\n| Total |  | 4 |")


def test_rows_of_one_cell_across_the_whole_table_are_its_caption_and_the_row_under_them_its_header():
    # A title row across the table was the Markdown table's header, and the column names a row of
    # data: a chunk holding later rows repeated the title over them, never the names.
    rows = "".join(f"<tr><td>Region {n}</td><td>{n}</td><td>{n * 2}</td></tr>" for n in range(200))
    markdown = md("<table><caption>Table 3</caption><thead><tr><th colspan=3>Sales by region</th></tr>"
                  "<tr><td colspan=3>In thousands</td></tr><tr><th>Region</th><th>Q1</th><th>Q2</th></tr></thead>"
                  f"<tbody>{rows}</tbody></table>")
    assert markdown.startswith("Table 3\n\nSales by region\n\nIn thousands\n\n| Region | Q1 | Q2 |\n| --- |")
    pieces = chunk_document(markdown, title="Sales", count_tokens=lambda text: len(text.split()), budget=120).chunks
    assert len(pieces) > 3 and all("| Region | Q1 | Q2 |" in piece.text for piece in pieces[1:])
    # Not a title: a merge across part of the row, a one-column table's header, a table of titles only.
    assert md("<table><tr><td colspan=2>Group</td><td>x</td></tr><tr><td>a</td><td>b</td><td>c</td></tr></table>"
              ).startswith("| Group |  | x |\n")
    assert md("<table><tr><th>Name</th></tr><tr><td>Ann</td></tr></table>") == "| Name |\n| --- |\n| Ann |"
    assert md("<table><tr><td colspan=2>one</td></tr><tr><td colspan=2>two</td></tr></table>").startswith("| one |")


def test_a_layout_table_with_merged_cells_is_still_read_as_blocks():
    markdown = md("<table><tr><td rowspan=2><img src='note.png'></td><td>Note</td></tr>"
                  "<tr><td>Back up first.</td></tr></table>")
    assert markdown == "Note\nBack up first."


def test_a_wide_row_over_many_short_ones_is_not_padded_into_a_blow_up():
    # Every row was padded to the widest: one row of 5,000 cells over 5,000 one-cell rows made
    # 25 million cells. Rows are padded as CSV's are, only where that at most doubles the table.
    rows = "".join(f"<tr><td>{n}</td></tr>" for n in range(5_000))
    html = f"<table><tr><td>head</td></tr>{rows}<tr>{'<td>w</td>' * 5_000}</tr></table>"
    markdown = md(html)
    assert len(markdown) < 2 * len(html)
    lines = markdown.splitlines()
    assert lines[0].count("|") == lines[1].count("|") == 5_001 and lines[2] == "| 0 |"


def test_merges_across_a_wide_table_are_not_padded_into_a_blow_up():
    # Each row of one cell merged across 1,000 columns was written as 1,000 cells, 999 of them
    # empty: 200 KB of HTML made 15 MB of pipes (to chunk and embed). The empty columns a merge
    # covers at the end of a row are padded by CSV's rule, as a short row's are.
    rows = "".join(f"<tr><td colspan=1000>row {n}</td></tr>" for n in range(5_000))
    html = f"<table><tr>{'<th>h</th>' * 1_000}</tr>{rows}</table>"
    markdown = md(html)
    assert len(markdown) < 2 * len(html)
    assert "| row 0 |" in markdown.splitlines() and "| row 4999 |" in markdown.splitlines()


def test_merges_across_under_a_wide_row_are_not_spread_into_a_blow_up():
    # A 5,000-cell row over 2,000 rows of five cells merged across 1,000 columns each: within
    # "rows times the widest row" twice over, so 300 KB of HTML was spread into 10 million
    # positions (1.4 GB, 30 MB of pipes). Spans may at most double the cells the table gives.
    rows = "".join("<tr>" + "<td colspan=1000>y</td>" * 5 + "</tr>" for _ in range(2_000))
    html = f"<table><tr>{'<td>x</td>' * 5_000}</tr>{rows}</table>"
    markdown = md(html)
    assert len(markdown) < 2 * len(html)
    assert markdown.splitlines()[-1] == "| y | y | y | y | y |"


@pytest.mark.parametrize("span", ["rowspan=100000", "colspan=100000", "rowspan=0", "colspan=0", "rowspan=-3",
                                  "colspan=-3", "rowspan=x", "colspan='2.5'", "rowspan=" + "9" * 5000,
                                  "colspan=" + "9" * 5000, "colspan=1000 rowspan=65534"])
def test_hostile_spans_are_clamped_and_the_copies_bounded(span):
    # A long cell spanning every row of a long table would be written 2,000 times (40 MB):
    # spans stop at the rows there are, and copies may add no more than the table's own text.
    rows = "".join(f"<tr><td>{n}</td></tr>" for n in range(2_000))
    html = f"<table><tr><td {span}>{'long text ' * 2_000}</td><td>head</td></tr>{rows}</table>"
    markdown = md(html)
    assert len(markdown) < 2 * len(html)
    assert 2_000 <= markdown.count("long text") <= 4_000 and "| 1999 |" in markdown


def _chunks(markdown: str) -> list[str]:
    return [chunk.text for chunk in chunk_document(markdown, title="T", count_tokens=lambda text: len(text.split()),
                                                   budget=120).chunks]


def test_every_line_after_a_break_that_would_be_a_heading_or_a_fence_is_escaped():
    # Only a block's first line was escaped: each later root prompt of a DocBook listing
    # (`<p class="code">`, the live-manual EPUB) was an H1, a heading-only chunk, and the
    # breadcrumb of everything after it.
    markdown = md('<h2>Persistence</h2><p class="code"># mkfs.ext4 -L persistence /dev/sdb1<br/>'
                  '# mount -t ext4 /dev/sdb1 /mnt<br/>## comment<br/>#<br/>  ###### six</p><p>Then reboot.</p>'
                  '<h2>Next</h2><p>More.</p>')
    listing = ("\\# mkfs.ext4 -L persistence /dev/sdb1\n\\# mount -t ext4 /dev/sdb1 /mnt\n"
               "\\## comment\n\\#\n\\###### six")
    assert markdown == f"## Persistence\n\n{listing}\n\nThen reboot.\n\n## Next\n\nMore."
    assert _chunks(markdown) == [f"T > Persistence\n{listing}\n\nThen reboot.", "T > Next\nMore."]
    # A fence opened by one paragraph's line and closed by another's made the text between them code.
    markdown = md("<p>a<br>```<br>b</p><p>c</p><p>d<br>~~~</p><p>e<br>```</p>")
    assert markdown == "a\n\\```\nb\n\nc\n\nd\n\\~~~\n\ne\n\\```"
    assert not any(code_line_mask(markdown.split("\n")))


def test_a_hash_inside_a_line_and_a_hashtag_are_left_as_they_are():
    assert md("<p>x <code>$ foo # bar</code><br>#tag and C#</p>") == "x `$ foo # bar`\n#tag and C#"


def test_heading_lines_in_list_items_definitions_title_rows_and_flat_text_are_escaped():
    # A list item's later lines are indented under its marker, and three spaces still start a heading.
    assert md("<ol><li>run<br># as root</li></ol><dl><dt>x</dt><dd>y<br># z</dd></dl>") == (
        "1. run\n   \\# as root\n\nx\n: y\n  \\# z")
    assert md("<table><tr><td colspan=2># title row</td></tr><tr><td>a</td><td>b</td></tr>"
              "<tr><td>1</td><td>2</td></tr></table>").startswith("\\# title row\n\n| a | b |")
    assert md("<div>" * 1000 + "<p># deep</p>" + "</div>" * 1000) == "\\# deep"
    assert md("<font>" * 3000 + "<p># deeper</p>") == "\\# deeper"


def test_code_in_pre_is_kept_as_it_is_and_is_no_heading_to_the_chunker():
    markdown = md("<h2>Setup</h2><pre># apt install foo\n```\n# reboot</pre><p>Done.</p><h2>Next</h2><p>More.</p>")
    code = "````\n# apt install foo\n```\n# reboot\n````"
    assert markdown == f"## Setup\n\n{code}\n\nDone.\n\n## Next\n\nMore."
    assert _chunks(markdown) == [f"T > Setup\n{code}\n\nDone.", "T > Next\nMore."]


def test_form_controls_inside_code_are_dropped():
    # Node.js's API pages put a copy button in every <pre>: "copy" ended each code block.
    markdown = md('<pre><code class="language-js">fs.readFile(f, (err, data) =&gt; {\n  console.log(data);\n});</code>'
                  ' <button class="copy-button">copy</button></pre>')
    assert markdown == "```js\nfs.readFile(f, (err, data) => {\n  console.log(data);\n});\n```"
    assert md("<pre>a<select><option>b</option></select>c<textarea>d</textarea></pre>") == "```\nac\n```"


def test_a_line_break_inside_code_is_a_new_line():
    # libxslt's API pages lay a signature's parameters out with <br> inside <pre>: they ran together.
    markdown = md('<pre class="programlisting">void	xsltFunction	(<a href="#ctxt">xmlXPathParserContextPtr</a> ctxt, '
                  "<br/>			 int nargs)</pre>")
    assert markdown == "```\nvoid\txsltFunction\t(xmlXPathParserContextPtr ctxt, \n\t\t\t int nargs)\n```"


def test_a_hash_inside_a_code_span_a_link_or_a_cell_is_not_escaped():
    # Inline text was escaped as a block's first line: `<code># comment</code>` read `\# comment`.
    assert md("<p><code># comment</code> and <code>#</code></p><h2>Title<a href='#t'>#</a></h2>"
              "<table><tr><th># n</th></tr><tr><td>1</td></tr></table>") == (
        "`# comment` and `#`\n\n## Title[#](#t)\n\n| # n |\n| --- |\n| 1 |")


def test_a_link_wrapped_around_a_heading_and_text_reads_as_blocks():
    """A card links a heading and a paragraph as one: it read `[# Pricing Plans for teams](/p)`."""
    markdown, _ = html_to_markdown('<a href="/p"><h2>Pricing</h2><p>Plans for teams.</p></a><p>See <a href="/q">more</a>.</p>')
    assert markdown == "## Pricing\n\nPlans for teams.\n\nSee [more](/q)."


def test_a_definition_list_is_written_as_markdowns_with_its_definitions_indented_under_their_terms():
    """Pandoc's and MkDocs' definition lists: the chunker reads where a definition ends from the
    indent, so the paragraph after the list is not indented; nothing in the list is lost."""
    markdown = md("<dl><dt>a</dt><dt>b</dt><dd><p>one</p><pre>code\n  x</pre><p>two</p></dd><dd>three</dd>"
                  "<div><dt>c</dt><dd>see <code>c</code></dd></div>stray<dt>lonely</dt></dl><p>after</p>")
    assert markdown == ("a\nb\n: one\n\n  ```\n  code\n    x\n  ```\n\n  two\n\n  three\n\n"
                        "c\n: see `c`\n\n  stray\n\nlonely\n\nafter")


def test_a_definition_that_opens_with_a_table_or_code_keeps_its_term_on_a_line_of_its_own():
    assert md("<dl><dt>t</dt><dd><pre>x = 1</pre><p>then</p></dd></dl>") == "t\n\n```\nx = 1\n```\n\nthen"


@pytest.mark.parametrize(("opening", "closing"), [("<dl><dt>t</dt><dd>", "</dd></dl>"), ("<ul><li>", "</li></ul>")])
def test_definitions_and_list_items_nested_past_eight_levels_are_not_indented_again(opening, closing):
    """Each level of a definition inside a definition (or an item inside an item) indents every line
    below it: 200 levels over 50,000 short lines made 20 MB of Markdown (80 times the page) and took
    seconds, as quotes had."""
    from minirag.ingest.html_markdown import MAX_DEFINITION_DEPTH

    html = opening * 120 + "<p>" + "x<br>" * 5000 + "</p>" + closing * 120
    markdown = md(html)
    assert markdown.count("x") == 5000
    assert len(markdown) <= 5000 * (2 * MAX_DEFINITION_DEPTH + 3) + 1000


@pytest.mark.parametrize("doctype", [
    '<!DOCTYPE html [<!ENTITY y "x">]>',
    '<?xml version="1.0"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "x.dtd" [\n'
    '  <!ENTITY nbsp "&#160;">\n  <!ENTITY odd "a]>b">\n  <!ATTLIST p id ID #IMPLIED>\n]>\n',
    # A comment in the subset may hold a lone quote or a `]>`.
    "<!DOCTYPE html [\n  <!-- don't expand ]> here -->\n  <!ENTITY y 'x'>\n]>\n",
])
def test_a_doctype_with_an_internal_subset_is_not_read_as_text(doctype):
    # The parser ended the doctype at the first `>`, inside the subset, and read the rest as text.
    markdown, _ = html_to_markdown(doctype + "<html><body><p>hello world</p></body></html>")
    assert markdown == "hello world"


@pytest.mark.parametrize("run", ["<!--", "<!-- '", "'", '"'])
def test_a_doctype_subset_never_closed_is_read_in_linear_time(run):
    assert grows_linearly(html_to_markdown, lambda repeats: "<!DOCTYPE html [" + run * repeats + "<p>x</p>")
