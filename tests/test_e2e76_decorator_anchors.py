"""`read_file` of a Sphinx page's `#fragment` naming a decorator or a command-line option starts
at its entry.

Sphinx writes a decorator's entry (`.. decorator::`) with its `@`: functools.html's
`@functools.lru_cache(maxsize=128, typed=False)`, `@functools.total_ordering`. The entry's line
was looked for without the `@`, so 6 of the 15 entries of Python 3.11's functools page
(`functools.html#functools.lru_cache`, the link an agent follows from a passage) read from the
page's top. The page below is that entry, as Debian's python3.11-doc writes it.
"""

from __future__ import annotations

from minirag.anchors import heading_offset
from minirag.ingest.convert import convert_document

PAGE = """<html><head><title>functools — Higher-order functions</title></head><body>
<div class="body" role="main"><section id="module-functools">
<h1><code class="xref py py-mod docutils literal notranslate"><span class="pre">functools</span></code> — Higher-order functions<a class="headerlink" href="#module-functools" title="Permalink to this heading">¶</a></h1>
<p>The <code class="xref py py-mod docutils literal notranslate"><span class="pre">functools</span></code> module is for higher-order functions.</p>
<dl class="py function">
<dt class="sig sig-object py" id="functools.lru_cache">
<em class="property"><span class="pre">@</span></em><span class="sig-prename descclassname"><span class="pre">functools.</span></span><span class="sig-name descname"><span class="pre">lru_cache</span></span><span class="sig-paren">(</span><em class="sig-param"><span class="n"><span class="pre">user_function</span></span></em><span class="sig-paren">)</span><a class="headerlink" href="#functools.lru_cache" title="Permalink to this definition">¶</a></dt>
<dd><p>Decorator to wrap a function with a memoizing callable that saves up to the <em>maxsize</em> most recent calls.</p></dd></dl>
<dl class="py function">
<dt class="sig sig-object py" id="functools.total_ordering">
<em class="property"><span class="pre">@</span></em><span class="sig-prename descclassname"><span class="pre">functools.</span></span><span class="sig-name descname"><span class="pre">total_ordering</span></span><a class="headerlink" href="#functools.total_ordering" title="Permalink to this definition">¶</a></dt>
<dd><p>Given a class defining one or more rich comparison ordering methods, this class decorator supplies the rest.</p></dd></dl>
</section></body></html>
"""


def test_a_decorators_fragment_finds_its_entry():
    markdown = convert_document(PAGE.encode(), ".html", "functools.html").markdown
    for name, opening in (("functools.lru_cache", "@functools.lru_cache(user_function)"),
                          ("functools.total_ordering", "@functools.total_ordering")):
        at = heading_offset(markdown, name)
        assert at is not None and markdown[at:].lstrip().startswith(opening), name
    assert heading_offset(markdown, "functools.partial") is None  # no such entry: no place


ZIPFILE_OPTIONS = """<html><head><title>zipfile</title></head><body><div class="body" role="main">
<section id="command-line-options">
<h3>Command-line options<a class="headerlink" href="#command-line-options" title="Permalink to this heading">¶</a></h3>
<p>For a list of the files in a ZIP archive, use the <a class="reference internal" href="#cmdoption-zipfile-l"><code class="xref std std-option docutils literal notranslate"><span class="pre">-l</span></code></a> option:</p>
<dl class="std cmdoption">
<dt class="sig sig-object std" id="cmdoption-zipfile-l">
<span class="sig-name descname"><span class="pre">-l</span></span><span class="sig-prename descclassname"> <span class="pre">&lt;zipfile&gt;</span></span><a class="headerlink" href="#cmdoption-zipfile-l" title="Permalink to this definition">¶</a></dt>
<dt class="sig sig-object std" id="cmdoption-zipfile-list">
<span class="sig-name descname"><span class="pre">--list</span></span><span class="sig-prename descclassname"> <span class="pre">&lt;zipfile&gt;</span></span><a class="headerlink" href="#cmdoption-zipfile-list" title="Permalink to this definition">¶</a></dt>
<dd><p>List files in a zipfile.</p></dd></dl>
</section></div></body></html>
"""


def test_a_command_line_options_fragment_finds_its_line():
    # zipfile.html's 9 option entries (`cmdoption-zipfile-list`) read from the page's top.
    markdown = convert_document(ZIPFILE_OPTIONS.encode(), ".html", "zipfile.html").markdown
    for name, opening in (("cmdoption-zipfile-l", "-l <zipfile>"), ("cmdoption-zipfile-list", "--list <zipfile>")):
        at = heading_offset(markdown, name)
        assert at is not None and markdown[at:].startswith(opening), name
    assert heading_offset(markdown, "cmdoption-zipfile-x") is None
