"""API reference pages from generators other than Sphinx and DocBook (javadoc, rustdoc, Doxygen),
read as a coding agent reads them: each member's text under a heading that names it.

Each page below is the generator's real markup (Debian 12's openjdk-17-doc, rust-doc 1.63,
libstdc++-12-doc's Doxygen 1.9.4), cut to a few members: element names, classes, attributes
and nesting as written, text shortened.
"""

import pytest
from helpers.growth import grows_linearly

from minirag.chunking import chunk_document
from minirag.ingest.html_markdown import html_to_markdown


def md(html: str) -> str:
    return html_to_markdown(html)[0]


def chunks(markdown: str, budget: int = 40) -> list[str]:
    return [chunk.text for chunk in chunk_document(markdown, title="Optional", budget=budget,
                                                   count_tokens=lambda text: len(text.split())).chunks]


# javadoc 17: the summary and each member's details are sections inside list items, the list
# only laying the page out (no marker is shown).
JAVADOC_DETAILS = (
    '<main role="main"><div class="header"><h1 title="Class Optional" class="title">Class Optional&lt;T&gt;</h1>'
    '</div><section class="summary"><ul class="summary-list"><li>'
    '<section class="method-summary" id="method-summary"><h2>Method Summary</h2>'
    '<div class="summary-table three-column-summary"><div class="table-header col-first">Modifier and Type</div>'
    '<div class="col-first even-row-color"><code>boolean</code></div>'
    '<div class="col-second even-row-color"><code><a href="#isEmpty()">isEmpty</a>()</code></div>'
    '<div class="col-last even-row-color"><div class="block">If a value is not present, returns <code>true</code>,'
    ' otherwise <code>false</code>.</div></div></div>'
    '<div class="inherited-list"><h3 id="methods-inherited-from-class-java.lang.Object">Methods declared in class'
    '&nbsp;java.lang.<a href="../lang/Object.html">Object</a></h3>'
    '<code><a href="../lang/Object.html#clone()">clone</a>, <a href="../lang/Object.html#wait()">wait</a></code>'
    '</div></section></li></ul></section>'
    '<section class="details"><ul class="details-list"><li>'
    '<section class="method-details" id="method-detail"><h2>Method Details</h2><ul class="member-list"><li>'
    '<section class="detail" id="empty()"><h3>empty</h3>'
    '<div class="member-signature"><span class="modifiers">public static</span>&nbsp;'
    '<span class="type-parameters">&lt;T&gt;</span>&nbsp;<span class="return-type">'
    '<a href="Optional.html">Optional</a>&lt;T&gt;</span>&nbsp;<span class="element-name">empty</span>()</div>'
    '<div class="block">Returns an empty <code>Optional</code> instance. No value is present for this'
    ' <code>Optional</code>.</div><dl class="notes"><dt>Type Parameters:</dt><dd><code>T</code> - The type of'
    ' the non-existent value</dd><dt>Returns:</dt><dd>an empty <code>Optional</code></dd></dl></section></li><li>'
    '<section class="detail" id="orElseThrow()"><h3>orElseThrow</h3>'
    '<div class="member-signature"><span class="modifiers">public</span>&nbsp;<span class="return-type">'
    '<a href="Optional.html">T</a></span>&nbsp;<span class="element-name">orElseThrow</span>()</div>'
    '<div class="block">If a value is present, returns the value, otherwise throws'
    ' <code>NoSuchElementException</code>.</div><dl class="notes"><dt>Returns:</dt><dd>the non-<code>null</code>'
    ' value described by this <code>Optional</code></dd><dt>Throws:</dt><dd><code>'
    '<a href="NoSuchElementException.html">NoSuchElementException</a></code> - if no value is present</dd>'
    '<dt>Since:</dt><dd>10</dd></dl></section></li></ul></section></li></ul></section></main>'
)


def test_javadoc_member_details_are_headed_by_the_member_not_by_a_list_item():
    # The lists that hold javadoc's sections were written as Markdown lists, each heading
    # behind a marker and indented (`  - ### orElseThrow`): the chunker saw none of the members'
    # headings and one of the inherited-methods line, so every method's details were filed
    # under "Methods declared in class java.lang.Object".
    markdown = md(JAVADOC_DETAILS)
    for heading in ("## Method Summary", "### Methods declared in class java.lang.", "## Method Details",
                    "### empty", "### orElseThrow"):
        assert f"\n{heading}" in markdown
    assert "- ##" not in markdown and "\n  " not in markdown.split("## Method Details")[1].split("Throws:")[0]
    throws = [text for text in chunks(markdown) if "- if no value is present" in text]
    assert throws and all(text.startswith("Optional > Class Optional<T> > Method Details > orElseThrow")
                          for text in throws)
    assert "\npublic [T](Optional.html) orElseThrow()\n" in markdown


# rustdoc 1.63: each example's "Run" link carries the example again, URL-encoded, to the playground.
RUSTDOC_EXAMPLE = (
    '<main><section id="main-content" class="content"><div class="main-heading"><h1 class="fqn">'
    '<span class="in-band">Struct <a href="../index.html">std</a>::<wbr><a href="index.html">collections</a>'
    '::<wbr><a class="struct" href="#">HashMap</a></span></h1></div>'
    '<details class="rustdoc-toggle method-toggle" open><summary><section id="method.capacity" class="method">'
    '<h4 class="code-header">pub fn <a href="#method.capacity" class="fnname">capacity</a>(&amp;self) -&gt; '
    '<a class="primitive" href="../primitive.usize.html">usize</a></h4></section></summary><div class="docblock">'
    '<p>Returns the number of elements the map can hold without reallocating.</p>'
    '<h5 id="examples-5"><a href="#examples-5">Examples</a></h5><div class="example-wrap">'
    '<pre class="rust rust-example-rendered"><code><span class="kw">use</span> std::collections::HashMap;\n'
    '<span class="kw">let</span> map: HashMap&lt;i32, i32&gt; = HashMap::with_capacity(100);\n'
    'assert!(map.capacity() &gt;= 100);</code></pre>'
    '<a class="test-arrow" target="_blank" href="https://play.rust-lang.org/?code=%23!%5Ballow(unused)%5D%0Afn%20'
    'main()%20%7B%0Ause%20std%3A%3Acollections%3A%3AHashMap%3B%0Alet%20map%3A%20HashMap%3Ci32%2C%20i32%3E%20%3D%20'
    'HashMap%3A%3Awith_capacity(100)%3B%0Aassert!(map.capacity()%20%3E%3D%20100)%3B%0A%7D&amp;edition=2021">Run</a>'
    '</div></div></details></section></main>'
)


def test_a_link_whose_address_carries_data_keeps_its_text_alone():
    # In 146 pages of std's docs, 1,427 links had a query over 100 characters, all "Run" links;
    # as `[Run](https://play.rust-lang.org/?code=...)` each was cut into chunks of percent-escapes
    # (HashMap's page: 565 chunks, 333 without them).
    markdown = md(RUSTDOC_EXAMPLE)
    assert "play.rust-lang.org" not in markdown and "%3A%3A" not in markdown
    assert "assert!(map.capacity() >= 100);\n```\n\nRun" in markdown
    short = md('<p><a href="https://example.org/search?q=vec+capacity&amp;lang=en">search</a></p>')
    assert short == "[search](https://example.org/search?q=vec+capacity&lang=en)"


# Doxygen 1.9.4 (libstdc++): a group of the member summary is a table whose first row is its
# heading; each member's signature is a table of one row (name, "(", type, parameter, ")").
DOXYGEN_CLASS = (
    '<div class="header"><div class="headertitle"><div class="title">std::vector&lt; _Tp, _Alloc &gt; Class '
    'Template Reference</div></div></div><div class="contents">'
    '<table class="memberdecls">\n<tr class="heading"><td colspan="2"><h2 class="groupheader">'
    '<a id="pub-methods" name="pub-methods"></a>\nPublic Member Functions</h2></td></tr>\n'
    '<tr class="memitem:a069ff981e0a360ca71ab2682cb4472f4"><td class="memItemLeft" align="right" valign="top">'
    'constexpr void&#160;</td><td class="memItemRight" valign="bottom"><a class="el" '
    'href="a08898.html#a069ff981e0a360ca71ab2682cb4472f4">push_back</a> (const value_type &amp;__x)</td></tr>\n'
    '<tr class="separator:a069ff981e0a360ca71ab2682cb4472f4"><td class="memSeparator" colspan="2">&#160;</td>'
    '</tr>\n<tr class="memitem:a22049143588a50ab6b1fc555e689b9c7"><td class="memItemLeft" align="right" '
    'valign="top">constexpr size_type&#160;</td><td class="memItemRight" valign="bottom"><a class="el" '
    'href="a08898.html#a22049143588a50ab6b1fc555e689b9c7">capacity</a> () const noexcept</td></tr>\n</table>\n'
    '<h2 class="groupheader">Member Function Documentation</h2>\n'
    '<a id="a069ff981e0a360ca71ab2682cb4472f4" name="a069ff981e0a360ca71ab2682cb4472f4"></a>\n'
    '<h2 class="memtitle"><span class="permalink"><a href="#a069ff981e0a360ca71ab2682cb4472f4">&#9670;&nbsp;</a>'
    '</span>push_back() <span class="overload">[1/2]</span></h2>\n<div class="memitem">\n<div class="memproto">\n'
    '<div class="memtemplate">\ntemplate&lt;typename _Tp , typename _Alloc  = std::allocator&lt;_Tp&gt;&gt; </div>\n'
    '<table class="mlabels">\n  <tr>\n  <td class="mlabels-left">\n      <table class="memname">\n        <tr>\n'
    '          <td class="memname">constexpr void <a class="el" href="a08898.html">std::vector</a>&lt; _Tp, '
    '_Alloc &gt;::push_back </td>\n          <td>(</td>\n          <td class="paramtype">const value_type '
    '&amp;&#160;</td>\n          <td class="paramname"><em>__x</em></td><td>)</td>\n          <td></td>\n'
    '        </tr>\n      </table>\n  </td>\n  <td class="mlabels-right">\n<span class="mlabels"><span '
    'class="mlabel">inline</span><span class="mlabel">constexpr</span></span>  </td>\n  </tr>\n</table>\n'
    '</div><div class="memdoc">\n\n<p>Add data to the end of the vector. </p>\n<dl class="params"><dt>Parameters'
    '</dt><dd>\n  <table class="params">\n    <tr><td class="paramname">__x</td><td>Data to be added.</td></tr>\n'
    '  </table>\n  </dd>\n</dl>\n<p>This is a typical stack operation. </p>\n</div>\n</div>\n'
    '<h2 class="memtitle"><span class="permalink"><a href="#a9a7cd5c4a2d8e6c3b9b6e7d1e1f2a3b4">&#9670;&nbsp;</a>'
    '</span>reserve()</h2>\n<div class="memitem">\n<div class="memproto">\n<table class="memname">\n        <tr>\n'
    '          <td class="memname">void <a class="el" href="a08898.html">std::vector</a>&lt; _Tp, _Alloc '
    '&gt;::reserve </td>\n          <td>(</td>\n          <td class="paramtype">size_type&#160;</td>\n'
    '          <td class="paramname"><em>__n</em></td><td>)</td>\n          <td></td>\n        </tr>\n'
    '      </table>\n</div><div class="memdoc">\n<p>Attempt to preallocate enough memory for specified number'
    ' of elements. </p>\n</div>\n</div>\n</div>'
)


def test_doxygen_member_groups_are_headings_and_signatures_read_as_one_line():
    # A group's heading row was a line before the table, escaped (`\\## Public Member Functions`),
    # so the summary's rows were filed under the page's title; each signature was a pipe table
    # whose only row was its header: `| constexpr void std::vector< _Tp, _Alloc >::push_back | ( | ...`.
    markdown = md(DOXYGEN_CLASS)
    assert "\n## Public Member Functions\n\n| constexpr void | [push_back]" in markdown
    assert "\\#" not in markdown
    assert "\nconstexpr void [std::vector](a08898.html)< _Tp, _Alloc >::push_back ( const value_type & __x )" \
           in markdown
    assert "\nvoid [std::vector](a08898.html)< _Tp, _Alloc >::reserve ( size_type __n )\n" in markdown
    assert "| ( |" not in markdown
    texts = chunks(markdown, budget=60)
    assert any(text.startswith("Optional > Public Member Functions\n") and "capacity" in text for text in texts)
    # The permalink diamond before each member's name is no part of the name.
    assert [text for text in texts if text.startswith("Optional > reserve()\n")]


def test_mdbook_listing_inside_a_second_pre_keeps_its_language():
    # The Rust book (mdBook, rust-doc 1.63) writes each listing as <pre><pre class="playground">
    # <code class="language-rust">: the outer <pre> was fenced with no language (618 listings
    # on 53 of its 185 pages).
    markdown = md('<main><h2 id="x">Creating a New Hash Map</h2><p>One way to create an empty hash map.</p>'
                  '<pre><pre class="playground"><code class="language-rust"><span class="boring">fn main() {\n'
                  '</span>    use std::collections::HashMap;\n    let mut scores = HashMap::new();\n'
                  '<span class="boring">}</span></code></pre></pre></main>')
    assert "```rust\nfn main() {\n    use std::collections::HashMap;\n" in markdown


# Whether a list lays sections out looks three levels below each item, and no further than the
# next list; whether a table is a signature looks at two cells' own text. One case a test, so the
# workers share them out.
@pytest.mark.parametrize("page", [
    lambda n: "<ul>" + "<li><div><div><div><p>x</p></div></div></div></li>" * n + "</ul>",
    lambda n: "<ul><li><div>" * n + "<h3>deep</h3>" + "</div></li></ul>" * n,
    lambda n: "<table><tr><td>f</td><td>" * n + "(" + "</td><td>x</td></tr></table>" * n,
], ids=["items", "nested-items", "signature-cells"])
def test_reading_lists_and_tables_as_layout_stays_linear(page):
    assert grows_linearly(md, page)


def test_a_list_whose_item_holds_a_note_with_a_heading_stays_a_list():
    # PostgreSQL's bug-reporting page (DocBook): an item holds a Note, titled with an <h3>; the
    # list is a list (8 of PostgreSQL 15's 1,173 pages have such items).
    markdown = md('<div class="itemizedlist"><ul class="itemizedlist" style="list-style-type: disc; ">'
                  '<li class="listitem"><p>The exact sequence of steps to reproduce the problem.</p></li>'
                  '<li class="listitem"><p>The output you got.</p><div class="note"><h3 class="title">Note</h3>'
                  '<p>Obtain the most verbose form of the message.</p></div></li>'
                  '<li class="listitem"><p>The output you expected.</p></li></ul></div>')
    assert markdown.startswith("- The exact sequence of steps to reproduce the problem.\n- The output you got.\n")
    assert "\n  ### Note\n" in markdown and "\n- The output you expected." in markdown


def test_javadoc_8_member_details_behind_a_named_anchor_are_headed_by_the_member():
    # javadoc 8 (still many libraries' docs): <ul class="blockList"><li class="blockList">
    # <a name="method.detail"><!-- --></a><h3>Method Detail</h3>, a member per inner list.
    markdown = md('<div class="details"><ul class="blockList"><li class="blockList">'
                  '<a name="method.detail"><!--   --></a><h3>Method Detail</h3>'
                  '<a name="orElseThrow--"><!--   --></a><ul class="blockListLast"><li class="blockList">'
                  '<h4>orElseThrow</h4><pre>public&nbsp;T&nbsp;orElseThrow()</pre>'
                  '<div class="block">Return the contained value, if present, otherwise throw.</div></li></ul>'
                  '</li></ul></div>')
    assert markdown.startswith("### Method Detail\n\n#### orElseThrow\n\n```\npublic\xa0T\xa0orElseThrow()\n```")


# rustdoc 1.63's page of a struct, cut to one method: the controls drawn around the item (its
# version and "source" link, the collapse-all toggle, "Expand description", the logo, the "Run"
# link and ⓘ of each example) and the "Notable traits" tooltip inside the method's heading.
RUSTDOC_PAGE = (
    '<html><head><meta name="generator" content="rustdoc"><title>HashMap in std::collections - Rust</title>'
    '</head><body class="rustdoc struct"><main><div class="width-limiter"><div class="sub-container">'
    '<a class="sub-logo-container" href="../../std/index.html"><img class="rust-logo" '
    'src="../../rust-logo1.63.0.svg" alt="logo"></a></div><section id="main-content" class="content">'
    '<div class="main-heading"><h1 class="fqn"><span class="in-band">Struct <a href="../index.html">std</a>::<wbr>'
    '<a href="index.html">collections</a>::<wbr><a class="struct" href="#">HashMap</a></span></h1>'
    '<span class="out-of-band"><span class="since" title="Stable since Rust version 1.0.0">1.0.0</span> · '
    '<a class="srclink" href="../../src/std/collections/hash/map.rs.html#213-215">source</a> · '
    '<a id="toggle-all-docs" href="javascript:void(0)" title="collapse all docs">[<span class="inner">&#x2212;'
    '</span>]</a></span></div><div class="docblock item-decl"><pre class="rust struct"><code>pub struct '
    'HashMap&lt;K, V, S&nbsp;=&nbsp;RandomState&gt; { /* private fields */ }</code></pre></div>'
    '<details class="rustdoc-toggle top-doc" open><summary class="hideme"><span>Expand description</span>'
    '</summary><div class="docblock"><p>A hash map implemented with quadratic probing and SIMD lookup.</p>'
    '</div></details><h2 id="implementations" class="small-section-header">Implementations</h2>'
    '<details class="rustdoc-toggle method-toggle" open><summary><section id="method.capacity" '
    'class="method has-srclink"><span class="rightside"><a class="srclink" '
    'href="../../src/std/collections/hash/map.rs.html#331-333">source</a></span>'
    '<a href="#method.capacity" class="anchor"></a><h4 class="code-header">pub fn <a href="#method.capacity" '
    'class="fnname">capacity</a>(&amp;self) -&gt; usize</h4></section></summary><div class="docblock">'
    '<p>Returns the number of elements the map can hold without reallocating.</p></div></details>'
    '<details class="rustdoc-toggle method-toggle" open><summary><section id="method.keys" '
    'class="method has-srclink"><span class="rightside"><span class="since" title="Stable since Rust version '
    '1.7.0">1.7.0</span> · <a class="srclink" href="../../src/std/collections/hash/map.rs.html#359-361">'
    'source</a></span><a href="#method.keys" class="anchor"></a><h4 class="code-header">pub fn '
    '<a href="#method.keys" class="fnname">keys</a>(&amp;self) -&gt; <a class="struct" '
    'href="hash_map/struct.Keys.html">Keys</a>&lt;\'_, K, V&gt;<span class="notable-traits">'
    '<span class="notable-traits-tooltip">ⓘ<span class="notable-traits-tooltiptext"><span class="docblock">'
    '<span class="notable">Notable traits for <a class="struct" href="hash_map/struct.Keys.html">Keys</a>'
    '&lt;\'a, K, V&gt;</span><code class="content"><span class="where fmt-newline">impl&lt;\'a, K, V&gt; '
    '<a class="trait" href="../iter/trait.Iterator.html">Iterator</a> for <a class="struct" '
    'href="hash_map/struct.Keys.html">Keys</a>&lt;\'a, K, V&gt;</span><span class="where fmt-newline">    type '
    '<a href="../iter/trait.Iterator.html#associatedtype.Item" class="associatedtype">Item</a> = &amp;\'a K;'
    '</span></code></span></span></span></span></h4></section></summary><div class="docblock">'
    '<p>An iterator visiting all keys in arbitrary order.</p><div class=\'information\'>'
    '<div class=\'tooltip should_panic\'>ⓘ</div></div><div class="example-wrap"><pre class="rust '
    'rust-example-rendered should_panic"><code>let v = map.keys();</code></pre><a class="test-arrow" '
    'target="_blank" href="https://play.rust-lang.org/?code=fn%20main()%20%7B%7D&amp;edition=2021">Run</a>'
    '</div></div></details></section></div></main></body></html>'
)


def test_rustdoc_controls_and_tooltips_are_left_out_and_the_text_kept():
    # 146 pages of std: 1,428 "Run" lines, 146 "Expand description", 122 logos, a "source" line before
    # each method that ended the chunk of the method above, and in each heading of a method that
    # returns an iterator the tooltip: `-> Keys<'_, K, V>ⓘNotable traits for Keys<'a, K, V>impl…`.
    markdown = md(RUSTDOC_PAGE)
    for chrome in ("source", "Expand description", "[−]", "logo", "Run", "ⓘ", "Notable traits", "1.7.0 ·"):
        assert chrome not in markdown
    assert markdown.startswith("# Struct [std](../index.html)::[collections](index.html)::[HashMap](#)\n\n```\n"
                               "pub struct HashMap<K, V, S\xa0=\xa0RandomState> { /* private fields */ }\n```\n\n"
                               "A hash map implemented with quadratic probing and SIMD lookup.\n\n## Implementations")
    assert ("\n#### pub fn [keys](#method.keys)(&self) -> [Keys](hash_map/struct.Keys.html)<'_, K, V>\n\n"
            "An iterator visiting all keys in arbitrary order.\n\n```\nlet v = map.keys();\n```") in markdown
    assert "reallocating.\n\n#### pub fn [keys]" in markdown
    texts = chunks(markdown, budget=80)
    assert [text for text in texts if text.startswith("Optional > Struct std::collections::HashMap > "
                                                      "Implementations > pub fn keys(&self) -> Keys<'_, K, V>\n")]


def test_rustdoc_markup_on_another_site_is_read_as_before():
    # The rules read rustdoc's classes on rustdoc's pages only: a site that names a class "srclink"
    # or "rightside" keeps its text.
    page = RUSTDOC_PAGE.replace('<meta name="generator" content="rustdoc">', "")
    assert "Expand description" in md(page) and "[source](../../src/std" in md(page)


# Doxygen 1.9.4 (libstdc++): the page's title is a <div>, the project's name a table above it, a
# member's labels are <span>s side by side, and the footer names the generator.
DOXYGEN_PAGE = (
    '<html><head><meta name="generator" content="Doxygen 1.9.4"/><title>libstdc++: std::vector&lt; _Tp, '
    '_Alloc &gt; Class Template Reference</title></head><body><div id="top"><div id="titlearea">'
    '<table cellspacing="0" cellpadding="0"><tbody><tr id="projectrow"><td id="projectalign">'
    '<div id="projectname">libstdc++</div></td></tr></tbody></table></div></div>'
    '<div id="doc-content"><div class="header"><div class="headertitle"><div class="title">std::vector&lt; _Tp, '
    '_Alloc &gt; Class Template Reference<div class="ingroups"><a class="el" href="a01563.html">Containers</a> '
    '&raquo; <a class="el" href="a01564.html">Sequences</a></div></div></div></div><div class="contents">'
    '<p><code>#include &lt;<a class="el" href="a00407_source.html">stl_vector.h</a>&gt;</code></p>'
    '<div class="dynheader">Inheritance diagram for std::vector&lt; _Tp, _Alloc &gt;:</div>'
    '<div class="dyncontent"><div class="center"><iframe scrolling="no" frameborder="0" src="a08897.svg" '
    'width="148" height="150"><p><b>This browser is not able to show SVG</b></p></iframe></div><center>'
    '<span class="legend">[<a target="top" href="graph_legend.html">legend</a>]</span></center></div>'
    + DOXYGEN_CLASS +
    '</div></div><div id="nav-path" class="navpath"><ul><li class="navelem"><a class="el" href="a01655.html">'
    'std</a></li><li class="navelem"><a class="el" href="a08898.html">vector</a></li><li class="footer">'
    'Generated by <a href="https://www.doxygen.org/index.html"><img class="footer" src="doxygen.svg" '
    'alt="doxygen"/></a> 1.9.4 </li></ul></div></body></html>'
)


def test_doxygen_labels_stand_apart_and_the_title_is_a_heading():
    # `inlineconstexpr` (266 lines of 43 pages), the project's name as a table of one cell atop each
    # page, the class's name a plain line, "Generated by doxygen 1.9.4" and a diagram's caption.
    markdown = md(DOXYGEN_PAGE)
    assert "\ninline constexpr\n" in markdown and "inlineconstexpr" not in markdown
    assert markdown.startswith("# std::vector< _Tp, _Alloc > Class Template Reference\n\n"
                               "[Containers](a01563.html) » [Sequences](a01564.html)\n`#include")
    for chrome in ("libstdc++", "Generated by", "Inheritance diagram", "legend", "[std](a01655.html)"):
        assert chrome not in markdown
    assert "\n## Public Member Functions\n\n| constexpr void | [push_back]" in markdown


# javadoc 17's summary: a grid of <div>s, the column headers first, then a <div> per cell that CSS
# lays out three to a row.
JAVADOC_SUMMARY = (
    '<html><head><meta name="generator" content="javadoc/ClassWriterImpl"><title>Optional (Java SE 17 &amp; '
    'JDK 17)</title></head><body><main role="main"><div class="header"><h1 title="Class Optional" '
    'class="title">Class Optional&lt;T&gt;</h1></div><section class="summary"><ul class="summary-list"><li>'
    '<section class="method-summary" id="method-summary"><h2>Method Summary</h2><div id="method-summary-table">'
    '<div class="table-tabs" role="tablist" aria-orientation="horizontal"><button id="method-summary-table-tab0" '
    'role="tab" aria-selected="true" class="active-table-tab">All Methods</button></div>'
    '<div id="method-summary-table.tabpanel" role="tabpanel">'
    '<div class="summary-table three-column-summary">\n'
    '<div class="table-header col-first">Modifier and Type</div>\n'
    '<div class="table-header col-second">Method</div>\n'
    '<div class="table-header col-last">Description</div>\n'
    '<div class="col-first even-row-color method-summary-table"><code>static &lt;T&gt;&nbsp;'
    '<a href="Optional.html" title="class in java.util">Optional</a>&lt;T&gt;</code></div>\n'
    '<div class="col-second even-row-color method-summary-table"><code><a href="#empty()" '
    'class="member-name-link">empty</a>()</code></div>\n'
    '<div class="col-last even-row-color method-summary-table">\n<div class="block">Returns an empty '
    '<code>Optional</code> instance.</div>\n</div>\n'
    '<div class="col-first odd-row-color method-summary-table"><code>boolean</code></div>\n'
    '<div class="col-second odd-row-color method-summary-table"><code><a href="#isEmpty()" '
    'class="member-name-link">isEmpty</a>()</code></div>\n'
    '<div class="col-last odd-row-color method-summary-table">\n<div class="block">If a value is not present, '
    'returns <code>true</code>, otherwise <code>false</code>.</div>\n</div>\n'
    '</div></div></div></section></li></ul></section></main></body></html>'
)


def test_javadoc_summary_grid_reads_a_row_a_line():
    # Each cell was a line of its own and a paragraph apart from the next, so a method's signature
    # and its description fell into different chunks (all 138 "Method Summary" grids of java.util).
    markdown = md(JAVADOC_SUMMARY)
    assert ("## Method Summary\n\n| Modifier and Type | Method | Description |\n| --- | --- | --- |\n"
            "| `static <T> [Optional](Optional.html)<T>` | `[empty](#empty%28%29)()` | Returns an empty "
            "`Optional` instance. |\n| `boolean` | `[isEmpty](#isEmpty%28%29)()` | If a value is not present, "
            "returns `true`, otherwise `false`. |") in markdown


# `python -m pydoc -w textwrap` (Python 3.11): each section is a table whose first row, one cell
# across its three columns, is the section's title; a class's section is such a table inside the
# Classes section's cell. Python 3.10 and before wrote the same tables with colours, not classes.
PYDOC_PAGE = (
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Python: module textwrap</title>\n'
    '</head><body>\n\n<table class="heading">\n<tr class="heading-text decor">\n<td class="title">&nbsp;<br>'
    '<strong class="title">textwrap</strong></td>\n<td class="extra"><a href=".">index</a></td></tr></table>\n'
    '    <p><span class="code">Text&nbsp;wrapping&nbsp;and&nbsp;filling.</span></p>\n<p>\n'
    '<table class="section">\n<tr class="decor index-decor heading-text">\n<td class="section-title" colspan=3>'
    '&nbsp;<br><strong class="bigsection">Classes</strong></td></tr>\n    \n<tr><td class="decor index-decor">'
    '<span class="code">&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;</span></td><td>&nbsp;</td>\n'
    '<td class="singlecolumn"><dl>\n<dt class="heading-text"><a href="builtins.html#object">builtins.object</a>\n'
    '</dt><dd>\n<dl>\n<dt class="heading-text"><a href="textwrap.html#TextWrapper">TextWrapper</a>\n</dt></dl>\n'
    '</dd>\n</dl>\n <p>\n<table class="section">\n<tr class="decor title-decor heading-text">\n'
    '<td class="section-title" colspan=3>&nbsp;<br><a name="TextWrapper">class <strong>TextWrapper</strong></a>'
    '(<a href="builtins.html#object">builtins.object</a>)</td></tr>\n    \n<tr><td class="decor title-decor" '
    'rowspan=2><span class="code">&nbsp;&nbsp;&nbsp;</span></td>\n<td class="decor title-decor" colspan=2>'
    '<span class="code"><a href="#TextWrapper">TextWrapper</a>(width=70)<br>\n&nbsp;<br>\nObject&nbsp;for&nbsp;'
    'wrapping/filling&nbsp;text.</span></td></tr>\n<tr><td>&nbsp;</td>\n<td class="singlecolumn">Methods defined '
    'here:<br>\n<dl><dt><a name="TextWrapper-wrap"><strong>wrap</strong></a>(self, text)</dt><dd><span class="code">'
    'Reformat&nbsp;the&nbsp;single&nbsp;paragraph&nbsp;in&nbsp;\'text\'&nbsp;so&nbsp;it&nbsp;fits&nbsp;in&nbsp;lines'
    '&nbsp;of&nbsp;no<br>\nmore&nbsp;than&nbsp;\'self.width\'&nbsp;columns.</span></dd></dl>\n</td></tr></table>'
    '</td></tr></table><p>\n<table class="section">\n<tr class="decor functions-decor heading-text">\n'
    '<td class="section-title" colspan=3>&nbsp;<br><strong class="bigsection">Functions</strong></td></tr>\n    \n'
    '<tr><td class="decor functions-decor"><span class="code">&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;</span></td>'
    '<td>&nbsp;</td>\n<td class="singlecolumn"><dl><dt><a name="-dedent"><strong>dedent</strong></a>(text)</dt>'
    '<dd><span class="code">Remove&nbsp;any&nbsp;common&nbsp;leading&nbsp;whitespace&nbsp;from&nbsp;every&nbsp;line'
    '&nbsp;in&nbsp;`text`.</span></dd></dl>\n <dl><dt><a name="-fill"><strong>fill</strong></a>(text, width=70, '
    '**kwargs)</dt><dd><span class="code">Fill&nbsp;a&nbsp;single&nbsp;paragraph&nbsp;of&nbsp;text,&nbsp;returning'
    '&nbsp;a&nbsp;new&nbsp;string.</span></dd></dl>\n</td></tr></table>\n</body></html>'
)
PYDOC_310_SECTION = (
    '<table width="100%" cellspacing=0 cellpadding=2 border=0 summary="section">\n<tr bgcolor="#eeaa77">\n'
    '<td colspan=3 valign=bottom>&nbsp;<br>\n<font color="#ffffff" face="helvetica, arial"><big><strong>Functions'
    '</strong></big></font></td></tr>\n    \n<tr><td bgcolor="#eeaa77"><tt>&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;'
    '</tt></td><td>&nbsp;</td>\n<td width="100%"><dl><dt><a name="-dedent"><strong>dedent</strong></a>(text)</dt>'
    '<dd><tt>Remove&nbsp;any&nbsp;common&nbsp;leading&nbsp;whitespace.</tt></dd></dl>\n <dl><dt><a name="-fill">'
    '<strong>fill</strong></a>(text, width=70)</dt><dd><tt>Fill&nbsp;a&nbsp;single&nbsp;paragraph.</tt></dd></dl>\n'
    '</td></tr></table>'
)


def test_pydoc_section_bars_are_headings():
    # Each section's title was a line like any other ("Functions" above `dedent(text)`), so every
    # chunk of json's page was filed under the page's title alone (50 of its 86 chunks).
    markdown = md(PYDOC_PAGE)
    assert "\n## Classes\n" in markdown and "\n## Functions\n" in markdown
    assert ("\n### class [TextWrapper](#TextWrapper)([builtins.object](builtins.html#object))\n" in markdown
            or "\n### class TextWrapper([builtins.object](builtins.html#object))\n" in markdown)
    texts = chunks(markdown, budget=40)
    assert [text for text in texts if text.startswith("Optional > Functions\n") and "fill(text" in text]
    assert [text for text in texts if text.startswith("Optional > Classes > class TextWrapper(builtins.object)")
            and "wrap(self, text)" in text]
    assert md(PYDOC_310_SECTION).startswith("## Functions\n\ndedent(text)\n")


def _page(generator: str, body: str) -> str:
    return f'<html><head><meta name="generator" content="{generator}"></head><body>{body}</body></html>'


# Each generator's rule looks at each element once; a section bar's level counts at most five tables
# around it. One case a test, so the workers share them out.
@pytest.mark.parametrize("page", [
    lambda n: _page("rustdoc", '<section><span class="rightside"><a class="srclink" href="s.html">source</a>'
                    '</span><h4>pub fn f()<span class="notable-traits"><span>ⓘ</span></span></h4></section>'
                    '<p>Text.</p>' * n),
    lambda n: _page("Doxygen 1.9.4", '<span class="mlabels">' + '<span class="mlabel">inline</span>' * n
                    + '</span><div class="dynheader">Diagram</div>' * n),
    lambda n: _page("javadoc/ClassWriterImpl", '<div class="summary-table two-column-summary">'
                    '<div class="table-header">A</div><div class="table-header">B</div>'
                    + '<div><code>int</code></div><div><div class="block">Text.</div></div>' * n + '</div>'),
    lambda n: '<table><tr><td colspan=2><strong>S</strong></td></tr><tr><td>a</td>'
              '<td><p>f</p><p>x</p></td></tr></table>' * n,
    lambda n: PYDOC_310_SECTION.replace("</table>", "<tr><td>a</td><td>b</td></tr>" * n + "</table>"),
], ids=["rustdoc", "doxygen", "javadoc", "section-bars", "pydoc"])
def test_reading_generators_markup_and_section_bars_stays_linear(page):
    assert grows_linearly(md, page)


def test_doxygen_member_template_reads_on_its_members_row():
    # A template member's summary is two rows, its template line alone in the first (one cell across
    # both columns): `| template<typename... _Args> |  |` was a row of its own, 280 of them in 43 pages,
    # often the last row of a chunk whose member is in the next one.
    markdown = md(
        '<html><head><meta name="generator" content="Doxygen 1.9.4"/></head><body><div class="contents">'
        '<table class="memberdecls">\n<tr class="heading"><td colspan="2"><h2 class="groupheader">'
        '<a id="pub-methods" name="pub-methods"></a>\nPublic Member Functions</h2></td></tr>\n'
        '<tr class="memitem:a22"><td class="memItemLeft" align="right" valign="top">constexpr size_type&#160;</td>'
        '<td class="memItemRight" valign="bottom"><a class="el" href="a08898.html#a22">capacity</a> () const noexcept'
        '</td></tr>\n<tr class="separator:a22"><td class="memSeparator" colspan="2">&#160;</td></tr>\n'
        '<tr class="memitem:a16"><td class="memTemplParams" colspan="2">template&lt;typename... _Args&gt; </td></tr>\n'
        '<tr class="memitem:a16"><td class="memTemplItemLeft" align="right" valign="top">constexpr iterator&#160;</td>'
        '<td class="memTemplItemRight" valign="bottom"><a class="el" href="a08898.html#a16">emplace</a> '
        '(const_iterator __position, _Args &amp;&amp;... __args)</td></tr>\n'
        '<tr class="separator:a16"><td class="memSeparator" colspan="2">&#160;</td></tr>\n'
        '<tr class="memitem:ga0c"><td class="memItemLeft" align="right" valign="top">template&lt;&gt; </td></tr>\n'
        '<tr class="memitem:ga0c"><td class="memTemplItemLeft" align="right" valign="top">constexpr bool&#160;</td>'
        '<td class="memTemplItemRight" valign="bottom"><a class="el" href="a01571.html#ga0c">std::chrono::is_clock_v'
        '&lt; file_clock &gt;</a></td></tr>\n</table></div></body></html>')
    assert ("| template<typename... _Args> constexpr iterator | [emplace](a08898.html#a16) (const_iterator __position, "
            "_Args &&... __args) |") in markdown
    assert "| template<> constexpr bool | [std::chrono::is_clock_v< file_clock >](a01571.html#ga0c) |" in markdown
    assert "|  |" not in markdown
