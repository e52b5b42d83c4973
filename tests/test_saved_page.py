"""Web pages saved whole, as one file: a browser's .mhtml, Word's .mht. The fixtures are written in
the layout each tool writes (Blink's MHTML serializer; Word's "Single File Web Page"): the first around
a real page of Python's documentation, the second around a page in Word's HTML in windows-1252."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from helpers.growth import grows_linearly

from minirag.errors import ConversionFailed
from minirag.ingest.convert import convert_document
from minirag.ingest.sync import run_sync

FIXTURES = Path(__file__).parent / "fixtures" / "docs"


def test_a_browsers_saved_page_reads_as_its_html_part_without_its_style_sheets_or_pictures():
    data = (FIXTURES / "mhtml_chrome_python_tomllib_en.mhtml").read_bytes()
    converted = convert_document(data, ".mhtml", "tomllib.mhtml")
    page = convert_document((FIXTURES / "html_python_tomllib_en.html").read_bytes(), ".html", "tomllib.html")
    assert converted.markdown == page.markdown
    assert converted.metadata_title == page.metadata_title and "tomllib" in converted.metadata_title
    assert "font-family" not in converted.markdown and "iVBORw0KGgo" not in converted.markdown
    assert converted.warnings == ()


def test_words_single_file_web_page_reads_in_the_charset_its_part_declares():
    data = (FIXTURES / "mht_word_single_file_page_fr.mht").read_bytes()
    converted = convert_document(data, ".mht", "Reunion.mht")
    assert "Le comité a décidé de reporter la rénovation de la bibliothèque" in converted.markdown
    assert "# Réunion du comité — compte rendu" in converted.markdown
    assert converted.metadata_title == "Réunion du comité"
    assert "MsoNormal" not in converted.markdown and "archive Web" not in converted.markdown
    assert converted.warnings == ()


def _related(parts: list[tuple[str, str, bytes]], start: str | None = None, subject: str = "") -> bytes:
    params = f'; start="{start}"' if start else ""
    out = [f'Subject: {subject}\r\nMIME-Version: 1.0\r\nContent-Type: multipart/related; boundary="B"{params}\r\n\r\n']
    for kind, cid, body in parts:
        encoded = base64.b64encode(body).decode()
        out.append(f"--B\r\nContent-Type: {kind}\r\nContent-ID: {cid}\r\nContent-Transfer-Encoding: base64\r\n\r\n{encoded}\r\n")
    out.append("--B--\r\n")
    return "".join(out).encode()


def test_the_part_that_start_names_is_the_page_not_the_first_html_part():
    data = _related([("image/png", "<pic@x>", b"\x89PNG\r\n"), ("text/html", "<frame@x>", b"<p>an ad in a frame</p>"),
                     ("text/html", "<root@x>", b"<h1>Release notes</h1><p>What changed in 2.0.</p>")], start="<root@x>")
    assert convert_document(data, ".mhtml", "notes.mhtml").markdown == "# Release notes\n\nWhat changed in 2.0."



@pytest.mark.parametrize("start", ["root@x", " <root@x> "])
def test_start_names_the_page_with_or_without_the_content_ids_angle_brackets(start):
    # RFC 2387's start is a Content-ID, brackets and all; writers drop them (or pad them) as often.
    data = _related([("text/html", "<frame@x>", b"<p>an ad in a frame</p>"),
                     ("text/html", "<root@x>", b"<p>What changed in 2.0.</p>")], start=start)
    assert convert_document(data, ".mhtml", "notes.mhtml").markdown == "What changed in 2.0."



@pytest.mark.parametrize(("charset", "codec"), [("utf-16le", "utf-16-le"), ("UTF-16BE", "utf-16-be"), ("utf-16", "utf-16-le"),
                                                ("utf-16", "utf-16")])
def test_a_utf16_page_part_reads_by_the_charset_its_part_declares_with_or_without_a_mark(charset, codec):
    # A part's charset is its bytes' label, as HTTP's is: UTF-16LE needs no byte-order mark, and a
    # UTF-16 page had been refused as binary (NUL bytes) without one.
    page = "<title>Grüße</title><p>Größere Änderungen in 2.0.</p>".encode(codec)
    converted = convert_document(_related([(f"text/html; charset={charset}", "<root@x>", page)]), ".mhtml", "p.mhtml")
    assert (converted.markdown, converted.metadata_title, converted.warnings) == (
        "Größere Änderungen in 2.0.", "Grüße", ())


def test_a_page_without_a_title_of_its_own_takes_the_subject_the_browser_wrote():
    data = _related([("text/html", "<root@x>", b"<p>Body text.</p>")], subject="=?utf-8?Q?Caf=C3=A9_menu?=")
    converted = convert_document(data, ".mhtml", "menu.mhtml")
    assert converted.metadata_title == "Café menu" and converted.markdown == "Body text."


@pytest.mark.parametrize(("data", "said"), [
    (b"just some text, no MIME at all\n", "not a saved web page (no HTML part in it)"),
    (_related([("image/png", "<pic@x>", b"\x89PNG\r\n")]), "not a saved web page (no HTML part in it)"),
    (b"", "empty file"),
])
def test_a_file_with_no_html_part_is_refused_in_one_line(data, said):
    with pytest.raises(ConversionFailed) as refused:
        convert_document(data, ".mhtml", "odd.mhtml")
    assert str(refused.value) == f"odd.mhtml: {said}"


def test_a_sync_indexes_saved_pages_and_reads_them_back(app, docs):
    for fixture in ("mhtml_chrome_python_tomllib_en.mhtml", "mht_word_single_file_page_fr.mht"):
        (docs / fixture).write_bytes((FIXTURES / fixture).read_bytes())
    result = run_sync(app.pipeline, list(app.config.roots))
    assert (result.done, result.failed, dict(result.other_types)) == (2, 0, {}), result.warnings
    page = app.read(str(docs / "mht_word_single_file_page_fr.mht"))
    assert "Prochaine réunion : jeudi 14 janvier" in page.text


def test_a_frameset_page_reads_as_the_frames_it_names_in_order():
    # Old Javadoc and many manuals are framesets: the page itself shows nothing but its frames, and
    # had been indexed empty. Frames are found by cid: (Blink) or by Content-Location (Internet
    # Explorer, Word), a nested frameset in its place; a part no frame names (an ad) is not read.
    frames = (b'<html><head><title>Java API</title></head><frameset cols="20%,80%"><frame src="cid:frame-1@mhtml.blink">'
              b"<FRAME name=main SRC='cid:frame-2@mhtml.blink'></frameset></html>")
    data = _related([("text/html", "<root@x>", frames), ("text/html", "<frame-1@mhtml.blink>", b"<ul><li>Class List</li></ul>"),
                     ("text/html", "<frame-2@mhtml.blink>", b'<frameset rows="50%,50%"><frame src="cid:frame-3@mhtml.blink">'
                                                            b'<frame src="cid:frame-1@mhtml.blink"></frameset>'),
                     ("text/html", "<frame-3@mhtml.blink>", b"<p>String holds text.</p>"),
                     ("text/html", "<ad@x>", b"<p>Buy now</p>")])
    converted = convert_document(data, ".mhtml", "api.mhtml")
    assert (converted.markdown, converted.metadata_title) == ("- Class List\n\nString holds text.", "Java API")

    located = (b"MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=\"B\"\r\n\r\n"
               b"--B\r\nContent-Type: text/html\r\nContent-Location: http://example.org/docs/index.html\r\n\r\n"
               b"<frameset><frame src=\"nav.html\"><frame src='main/intro.html'></frameset>\r\n"
               b"--B\r\nContent-Type: text/html\r\nContent-Location: http://example.org/docs/main/intro.html\r\n\r\n"
               b"<p>Welcome to the manual.</p>\r\n"
               b"--B\r\nContent-Type: text/html\r\nContent-Location: http://example.org/docs/nav.html\r\n\r\n"
               b"<p>Contents</p>\r\n--B--\r\n")
    assert convert_document(located, ".mht", "manual.mht").markdown == "Contents\n\nWelcome to the manual."


@pytest.mark.parametrize(("codec", "charset"), [("utf-16-le", "utf-16le"), ("utf-16-be", "utf-16be"), ("utf-8", "utf-8")])
def test_frames_are_found_in_a_utf16_part_and_a_frames_source_is_read_with_its_entities(codec, charset):
    # Frames had been searched for in a part's raw bytes: a UTF-16 page (its charset declared, no
    # mark) showed no frame. A frameset's src is an attribute like an iframe's: `&amp;` is `&`, and
    # `a.html?x=1&amp;y=2` had missed the part saved as a.html?x=1&y=2.
    located = ("MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=\"B\"\r\n\r\n"
               f"--B\r\nContent-Type: text/html; charset={charset}\r\nContent-Location: http://example.org/index.html\r\n"
               "Content-Transfer-Encoding: base64\r\n\r\n").encode()
    frameset = '<frameset><frame src="nav.html?x=1&amp;y=2"><frame src="main.html"></frameset>'.encode(codec)
    page = '<p>Before the frame.</p><iframe src="post.html?a=1&amp;b=2"></iframe><p>After it.</p>'.encode(codec)
    tail = (b"\r\n--B\r\nContent-Type: text/html\r\nContent-Location: http://example.org/nav.html?x=1&y=2\r\n\r\n"
            b"<p>Contents</p>\r\n--B\r\nContent-Type: text/html\r\nContent-Location: http://example.org/main.html\r\n\r\n"
            b"<p>Welcome.</p>\r\n--B\r\nContent-Type: text/html\r\nContent-Location: http://example.org/post.html?a=1&b=2\r\n\r\n"
            b"<p>Inside the frame.</p>\r\n--B--\r\n")
    converted = convert_document(located + base64.b64encode(frameset) + tail, ".mht", "manual.mht")
    assert (converted.markdown, converted.warnings) == ("Contents\n\nWelcome.", ())
    converted = convert_document(located + base64.b64encode(page) + tail, ".mht", "page.mht")
    assert (converted.markdown, converted.warnings) == ("Before the frame.\n\nInside the frame.\n\nAfter it.", ())


def test_frames_are_found_in_time_in_proportion_to_the_page_and_a_chain_of_framesets_is_bounded():
    assert grows_linearly(lambda html: convert_document(_related([("text/html", "<r@x>", html.encode())]), ".mhtml", "x.mhtml"),
                          lambda n: "<frameset>" + '<frame name="a" title="b c d e f g"' * (8 * n))
    chain = [("text/html", f"<f{n}@x>", f'<frameset><frame src="cid:f{n + 1}@x"></frameset>'.encode()) for n in range(3000)]
    data = _related([*chain, ("text/html", "<f3000@x>", b"<p>the end</p>")])
    assert convert_document(data, ".mhtml", "deep.mhtml").markdown == ""  # no frame shows text within the bound


def test_an_ordinary_pages_inline_frames_read_in_their_place():
    # Chrome saves each frame of a page as a part of its own (cid:frame-...@mhtml.blink); an inline
    # frame's words (an embedded post, a document viewer) had not been read. A hidden or zero-size
    # frame (a tracker's), an advertisement's, one naming no part, one in the page's chrome, and a
    # part read already, are not read.
    page = (b'<html><head><title>Release notes</title></head><body><nav><iframe src="cid:frame-N@mhtml.blink"></iframe></nav>'
            b'<p>Before the frame.</p><iframe src="cid:frame-A@mhtml.blink" title="Embedded post"></iframe>'
            b'<iframe src="cid:frame-H@mhtml.blink" style="display: none;"></iframe>'
            b'<iframe src="cid:frame-Z@mhtml.blink" width="0" height="0"></iframe>'
            b'<iframe src="cid:frame-D@mhtml.blink" title="Advertisement" aria-label="Advertisement"></iframe>'
            b'<IFRAME SRC="cid:frame-missing@mhtml.blink">fallback</IFRAME><iframe src="cid:frame-A@mhtml.blink"></iframe>'
            b"<p>After the frame.</p></body></html>")
    post = (b"<html><head><title>Post</title><style>p { color: red }</style></head><body><p>Inside the frame.</p>"
            b"<iframe src='cid:frame-C@mhtml.blink'></iframe></body></html>")
    data = _related([("text/html", "<root@x>", page), ("text/html", "<frame-A@mhtml.blink>", post),
                     ("text/html; charset=utf-16le", "<frame-C@mhtml.blink>", "<p>Nested wörds.</p>".encode("utf-16-le")),
                     ("text/html", "<frame-H@mhtml.blink>", b"<p>Tracking pixel</p>"),
                     ("text/html", "<frame-Z@mhtml.blink>", b"<p>Zero size</p>"),
                     ("text/html", "<frame-D@mhtml.blink>", b"<p>Buy now</p>"),
                     ("text/html", "<frame-N@mhtml.blink>", b"<p>Menu</p>")])
    converted = convert_document(data, ".mhtml", "notes.mhtml")
    assert (converted.markdown, converted.metadata_title, converted.warnings) == (
        "Before the frame.\n\nInside the frame.\n\nNested wörds.\n\nAfter the frame.", "Release notes", ())

    located = (b"MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=\"B\"\r\n\r\n"
               b"--B\r\nContent-Type: text/html\r\nContent-Location: http://example.org/docs/index.html\r\n\r\n"
               b"<table><tr><td>Cell <iframe src='embed/viewer.html'></iframe></td></tr></table>\r\n"
               b"--B\r\nContent-Type: text/html\r\nContent-Location: http://example.org/docs/embed/viewer.html\r\n\r\n"
               b"<h2>Viewer</h2><p>Page one.</p>\r\n--B--\r\n")
    assert "Cell Viewer Page one." in convert_document(located, ".mht", "manual.mht").markdown


def test_an_inline_frame_of_a_real_chrome_saved_page_reads_in_its_place():
    # The real page, with an inline frame and its part as Blink writes them (quoted-printable, a
    # cid:frame-...@mhtml.blink Content-ID and the frame's Content-Location).
    data = (FIXTURES / "mhtml_chrome_python_tomllib_en.mhtml").read_bytes()
    boundary = b"------MultipartBoundary--rQ0Wz3kS7f1bD2mYxVnC8uLpT4gHaEoJ6iK9sNqF5R----"
    at = data.index(b"<h1")
    data = data[:at] + b'<iframe src=3D"cid:frame-0123ABCD@mhtml.blink" title=3D"Embedded"></iframe>' + data[at:]
    frame = (boundary + b"\r\nContent-Type: text/html\r\nContent-ID: <frame-0123ABCD@mhtml.blink>\r\n"
             b"Content-Transfer-Encoding: quoted-printable\r\nContent-Location: https://example.org/embed.html\r\n\r\n"
             b'<html><head><meta http-equiv=3D"Content-Type" content=3D"text/html; charset=3DUTF-8"></head>'
             b"<body><p>Embedded viewer text caf=C3=A9.</p></body></html>\r\n\r\n")
    end = data.rindex(boundary + b"--")
    converted = convert_document(data[:end] + frame + data[end:], ".mhtml", "tomllib.mhtml")
    assert converted.markdown.startswith("Embedded viewer text café.\n\n# [`tomllib`](#module-tomllib)")
    assert converted.warnings == ()


def test_inline_frames_are_found_in_time_in_proportion_to_the_page_and_bounded_in_number_and_depth():
    assert grows_linearly(lambda html: convert_document(_related([("text/html", "<r@x>", html.encode())]), ".mhtml", "x.mhtml"),
                          lambda n: "<p>words</p>" + '<iframe title="b c d e f g" src=x' * (8 * n))
    chain = [("text/html", f"<f{n}@x>", f'<p>level {n}</p><iframe src="cid:f{n + 1}@x"></iframe>'.encode()) for n in range(3000)]
    deep = convert_document(_related(chain), ".mhtml", "deep.mhtml").markdown
    assert deep == "\n\n".join(f"level {n}" for n in range(9))  # the page and 8 frames within it
    many = [("text/html", "<r@x>", b"".join(b'<iframe src="cid:f%d@x"></iframe>' % n for n in range(100)))]
    wide = convert_document(_related([*many, *((("text/html", f"<f{n}@x>", f"<p>frame {n}</p>".encode())) for n in range(100))]),
                            ".mhtml", "wide.mhtml").markdown
    assert wide == "\n\n".join(f"frame {n}" for n in range(32))


@pytest.mark.parametrize("page, frame, expected", [
    (b"<p>Page.</p>", b"<p>Frame MiniragInlineFrame0Here MiniragInlineFrame0Here</p>",
     "Page.\n\nFrame MiniragInlineFrame0Here MiniragInlineFrame0Here"),
    (b"<p>&#77;iniragInlineFrame0Here</p><p>Page.</p>", b"<p>Frame.</p>", "MiniragInlineFrame0Here\n\nPage.\n\nFrame."),
    (b"<p>MiniragInlineFrame0Here</p><p>Page.</p>", b"<p>Frame.</p>", "MiniragInlineFrame0Here\n\nPage.\n\nFrame."),
], ids=["words-in-the-frame", "words-spelled-in-the-page", "words-in-the-page"])
def test_a_frames_words_go_to_its_place_once_whatever_words_the_page_or_frame_holds(page, frame, expected):
    # Whatever words a page or a frame holds, plainly or spelled as character references, are its
    # words: a frame's text goes to its own place once. (A draft marked places by fixed words: a frame
    # holding k of them was copied into each, 13 KB read as 3.8 MB; a page holding them read no frame.)
    data = _related([("text/html", "<r@x>", page + b'<iframe src="cid:a@x"></iframe>'), ("text/html", "<a@x>", frame)])
    assert convert_document(data, ".mhtml", "x.mhtml").markdown == expected


def test_an_inline_frame_whose_part_is_no_text_costs_that_frame_not_the_page():
    """A frame's part that decode_text refuses (binary bytes typed text/html: a viewer's data a
    browser saved as the frame) failed the whole saved page, its own text and every other frame
    with it. The frame is left out with a warning, as an attachment that cannot be read is."""
    page = (b"<html><head><title>Notes</title></head><body><p>Before the frame.</p>"
            b'<iframe src="cid:frame-B@mhtml.blink" title="Viewer"></iframe><p>After the frame.</p></body></html>')
    data = _related([("text/html", "<root@x>", page),
                     ("text/html", "<frame-B@mhtml.blink>", b"\x00\x01\x02PDF viewer state\x00" * 64)])
    converted = convert_document(data, ".mhtml", "notes.mhtml")
    assert converted.markdown == "Before the frame.\n\nAfter the frame.", converted.markdown
    assert len(converted.warnings) == 1 and "binary" in converted.warnings[0], converted.warnings
    assert "\n" not in converted.warnings[0]


def test_a_frames_source_is_its_src_attribute_not_src_written_inside_another_ones_value():
    """A frameset's frame tags were searched for `\\ssrc=` by a pattern of their own, which found it
    inside another attribute's value (`title="see src=..."`) and followed that; an inline frame's
    tag was already read by its attributes (tag_attributes). Both are now."""
    frames = (b'<html><head><title>Manual</title></head><frameset>'
              b'<frame title="its src=nav.html is below" src="cid:frame-1@mhtml.blink"></frameset></html>')
    data = _related([("text/html", "<root@x>", frames), ("text/html", "<frame-1@mhtml.blink>", b"<p>The real frame.</p>"),
                     ("text/html", "<nav.html>", b"<p>Not this one.</p>")])
    assert convert_document(data, ".mhtml", "manual.mhtml").markdown == "The real frame."
