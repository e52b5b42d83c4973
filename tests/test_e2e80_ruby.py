"""A ruby annotation (`<ruby>吾輩<rp>（</rp><rt>わがはい</rt><rp>）</rp></ruby>`) is a reading set small
over its base text: a reader reads the base text, and a browser that shows ruby hides the `<rp>`
parentheses. The HTML reader kept both in the line, so Aozora Bunko's opening of 吾輩は猫である read
"吾輩（わがはい）は猫である" and a ruby without <rp> "東とう京きょう", the words parted by their readings
(no "東京" for a search to find). Now the reading is left out, as .docx's, .odt's and subtitles'
are, and the base text reads whole. The sentences are the novel's opening (Natsume Soseki, 1905,
public domain) as Aozora Bunko marks its readings up."""

import zipfile
from io import BytesIO

from minirag.ingest.convert import convert_document

OPENING = ("<p><ruby><rb>吾輩</rb><rp>（</rp><rt>わがはい</rt><rp>）</rp></ruby>は猫である。名前はまだ無い。<br />"
           "どこで生れたかとんと<ruby><rb>見当</rb><rp>（</rp><rt>けんとう</rt><rp>）</rp></ruby>がつかぬ。"
           "何でも<ruby>薄暗<rt>うすぐら</rt></ruby>いじめじめした所でニャーニャー泣いていた事だけは記憶している。</p>")
READ = ("吾輩は猫である。名前はまだ無い。", "どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。")


def _page(body: str) -> bytes:
    return (f'<html lang="ja"><head><meta charset="utf-8"><title>吾輩は猫である</title></head>'
            f"<body><h1>一</h1>{body}</body></html>").encode()


def test_an_html_page_reads_the_base_text_without_its_readings():
    markdown = convert_document(_page(OPENING), ".html", "neko.html").markdown
    assert all(line in markdown for line in READ), markdown
    assert "わがはい" not in markdown and "（" not in markdown


def test_each_character_with_its_own_reading_reads_as_one_word():
    markdown = convert_document(_page("<p><ruby>東<rt>とう</rt>京<rt>きょう</rt></ruby>に行く。</p>"), ".html",
                                "tokyo.html").markdown
    assert markdown.endswith("東京に行く。"), markdown


def test_a_reading_whose_end_tag_is_left_out_ends_where_the_ruby_does():
    # HTML lets <rt>'s end tag go before the next <rt> or the ruby's end: what follows the ruby is text.
    markdown = convert_document(_page("<p><ruby>漢<rt>かん</ruby>字<ruby>書<rt>しょ</ruby>を読む。</p>"), ".html",
                                "open.html").markdown
    assert markdown.endswith("漢字書を読む。"), markdown


def test_markup_too_deep_for_the_tree_leaves_the_readings_out_too():
    deep = "<div>" * 3000 + "<p><ruby>東<rt>とう</rt>京<rt>きょう</ruby>に行く。</p>" + "</div>" * 3000
    markdown = convert_document(_page(deep), ".html", "deep.html").markdown
    assert "東京に行く。" in markdown and "とう" not in markdown, markdown[-200:]


def test_an_epub_chapter_reads_the_base_text():
    chapter = ('<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml" xml:lang="ja">'
               f"<head><title>一</title></head><body><h1>一</h1>{OPENING}</body></html>")
    buffer = BytesIO()
    with zipfile.ZipFile(buffer, "w") as book:
        book.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        book.writestr("META-INF/container.xml", '<?xml version="1.0"?><container version="1.0" '
                      'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile '
                      'full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>')
        book.writestr("OEBPS/content.opf", '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" '
                      'version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
                      '<dc:identifier id="id">neko</dc:identifier><dc:title>吾輩は猫である</dc:title>'
                      '<dc:language>ja</dc:language></metadata><manifest><item id="c1" href="c1.xhtml" '
                      'media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c1"/></spine></package>')
        book.writestr("OEBPS/c1.xhtml", chapter)
    markdown = convert_document(buffer.getvalue(), ".epub", "neko.epub").markdown
    assert all(line in markdown for line in READ), markdown


def test_ruby_in_a_markdown_line_reads_as_in_an_html_block():
    # A Markdown file's HTML block went through the HTML reader already; a line's inline HTML is read
    # in place (markdown_html.py), and kept the readings ("東とう京きょう").
    source = "# 一\n\n<ruby>東<rt>とう</rt>京<rt>きょう</rt></ruby>に行く。\n\n<div><ruby>漢字<rt>かんじ</rt></ruby></div>\n"
    markdown = convert_document(source.encode(), ".md", "tokyo.md").markdown
    assert markdown == "# 一\n\n東京に行く。\n\n漢字\n", markdown
