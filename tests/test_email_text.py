"""Saved e-mail (.eml) and Outlook messages (.msg): real ones from Debian and PyPI packages and
ones Python's own e-mail package wrote (tests/fixtures, sources in its README)."""

import random
import time

import pytest
from conftest import FIXTURES

from minirag.errors import ConversionFailed
from minirag.ingest.cfb import CompoundFile
from minirag.ingest.convert import convert_document, convert_file, sniff_format

DOCS = FIXTURES / "docs"
OFFICE = FIXTURES / "office"


def test_a_saved_message_reads_as_a_mail_client_shows_it():
    converted = convert_file(DOCS / "eml_docbook_permission.eml")
    assert converted.metadata_title == "Re: Using examples from your book in a testdoc"
    assert converted.markdown.startswith(
        "# Re: Using examples from your book in a testdoc\n\nFrom: Bob Stayton <bobs@sagehill.net>\n"
        "To: Daniel Leidert <daniel.leidert@wgdd.de>\nDate: Tue, 18 Sep 2007 09:31:22 -0700\n\n"
        "That's ok with me.  I'm happy to help.")
    assert "X-Spam" not in converted.markdown and "Received:" not in converted.markdown  # transport headers


def test_encoded_headers_a_charset_the_plain_part_and_attachment_names():
    markdown = convert_file(OFFICE / "python_multipart_ru.eml").markdown  # koi8-r text beside an HTML part
    assert markdown == (
        "# Расписание зеркал — 同步计划\n\nFrom: Ирина Петрова <irina@example.org>\nTo: Ops <ops@example.org>\n"
        "Cc: Kenji <kenji@example.jp>\nDate: Fri, 04 Dec 2026 09:15:00 +0100\n\n"
        "Коллеги,\n\nсинхронизация зеркал переносится на 02:00 UTC.\n\n\\# Not a heading: a hash in the mail\n\n"
        "Ирина\n\nAttachments: schedule-2027.pdf")


def test_a_message_with_only_html_reads_as_its_page():
    converted = convert_file(OFFICE / "python_html_only.eml")
    assert converted.metadata_title == "Café menu"
    assert converted.markdown.endswith("# Menu\n\n- Soup of the day\n- Crêpes")


def test_an_outlook_message_reads_as_its_headers_body_and_attachments():
    converted = convert_file(OFFICE / "outlook_failure_notice_zh.msg")
    assert converted.metadata_title == "投递状态通知 (Failure Notice)"
    assert converted.markdown.startswith(
        "# 投递状态通知 (Failure Notice)\n\nFrom: Mail Delivery Subsystem <mailer-daemon@tjdpf.org.cn>\n"
        "To: yosipnps@model.com\nDate: 2017-11-27 09:44 UTC\n\nHi. This is an automatically generated")
    assert "对方服务器无法正常接收或者拒绝接收这封邮件。" in converted.markdown


def test_a_forwarded_messages_own_properties_are_never_taken_for_the_outer_ones():
    data = (OFFICE / "outlook_forwarded_attachment.msg").read_bytes()
    assert convert_document(data, ".msg", "outer.msg").markdown == (
        "# outer subject\n\nTo: outer@foo.bar\nDate: 2016-11-15 23:29 UTC\n\nOuter body\n\nAttachments: test")
    compound = CompoundFile(data)
    subject = "__substg1.0_0037001F"
    assert compound.stream(subject).decode("utf-16-le") == "outer subject"
    inner = next(entry for entry in compound.entries if entry.name == "__substg1.0_3701000D")
    assert compound.stream(subject, inner).decode("utf-16-le") == "test"  # only inside its own storage
    assert all(entry.name != "__substg1.0_3701000D" for entry in compound.children())


def test_what_else_is_named_eml_or_msg_says_so_or_is_read_as_what_it_is():
    with pytest.raises(ConversionFailed, match=r"^x.eml: not an e-mail message"):
        convert_document(b"\x00\x01\x02" * 10, ".eml", "x.eml")
    assert convert_document(b"Quest dialogue: hello, traveller.\n", ".msg", "bob.msg").markdown == \
        "Quest dialogue: hello, traveller.\n"
    word = convert_document((DOCS / "doc_word_olefile_test.doc").read_bytes(), ".msg", "w.msg")
    assert word.warnings == ("w.msg: a .doc file named .msg; read as .doc",)
    outlook = convert_document((OFFICE / "outlook_forwarded_attachment.msg").read_bytes(), ".doc", "o.doc")
    assert outlook.warnings == ("o.doc: a .msg file named .doc; read as .msg",)
    assert sniff_format((DOCS / "eml_docbook_permission.eml").read_bytes(), "message/rfc822", "https://x.org/m") == ".eml"


def test_deeply_nested_or_overly_many_mime_parts_are_refused_in_one_line():
    many = b"Content-Type: multipart/mixed; boundary=b\n\n" + b"--b\nContent-Type: text/plain\n\nx\n" * 1_500 + b"--b--\n"
    with pytest.raises(ConversionFailed, match=r"^many.eml: refused: more than 1,000 MIME parts$"):
        convert_document(many, ".eml", "many.eml")
    deep = b"".join(b"Content-Type: multipart/mixed; boundary=b%d\n\n--b%d\n" % (n, n) for n in range(3_000))
    started = time.perf_counter()
    try:
        convert_document(deep + b"\nend\n", ".eml", "deep.eml")
    except ConversionFailed as exc:
        assert "\n" not in str(exc)
    assert time.perf_counter() - started < 30


def test_randomly_damaged_outlook_messages_are_read_or_refused_in_one_line():
    data = (OFFICE / "outlook_forwarded_attachment.msg").read_bytes()
    rng = random.Random(5)
    for _ in range(300):
        damaged = bytearray(data)
        for _ in range(rng.randint(1, 12)):
            damaged[rng.randrange(min(len(damaged), 8192))] = rng.randrange(256)
        try:
            convert_document(bytes(damaged), ".msg", "bad.msg")
        except ConversionFailed as exc:
            assert "\n" not in str(exc)


@pytest.mark.parametrize("name", ["damaged_eml_group_address.eml", "damaged_eml_parser_index_error.eml",
                                  "damaged_eml_parser_string_index.eml"])
def test_messages_the_standard_librarys_parser_trips_on_are_read_or_refused_in_one_line(name):
    """Found by damaging real messages at random: an address group where a mailbox was expected
    raised AttributeError from the header registry, and two broken MIME structures IndexError from
    the parser itself."""
    try:
        convert_document((OFFICE / name).read_bytes(), ".eml", name)
    except ConversionFailed as exc:
        assert "\n" not in str(exc)


def test_an_outlook_body_kept_only_as_compressed_rtf_is_read():
    from minirag.ingest import msg_text
    from minirag.ingest.rtf_compressed import decompressed

    compound = CompoundFile((OFFICE / "outlook_failure_notice_zh.msg").read_bytes())
    rtf = decompressed(compound.stream("__substg1.0_10090102"))  # LZFu, HTML wrapped in RTF (\fromhtml1)
    assert rtf.startswith(b"{\\rtf1\\ansi\\ansicpg936\\fromhtml1")
    message = msg_text._Properties(compound, None, 32)
    for plain in ("__SUBSTG1.0_1000001F", "__SUBSTG1.0_1000001E", "__SUBSTG1.0_10130102"):
        message.streams.pop(plain, None)  # as a message saved with its formatted body only
    body = msg_text._body(message)
    assert body.startswith("Hi. This is an automatically generated Delivery Status Notification at tjdpf.org.cn")
    assert "【这是服务器 tjdpf.org.cn 自动产生的投递状态通知】" in body  # \'hh bytes in code page 936


def test_compressed_rtf_that_lies_about_its_size_or_runs_on_is_bounded(monkeypatch):
    import struct

    from minirag.ingest import rtf_compressed

    monkeypatch.setattr(rtf_compressed, "MAX_OUTPUT", 100_000)
    # Every control bit a reference copying 17 bytes from just ahead of the write position, so the
    # stream never ends itself: 2 input bytes make 17 output bytes.
    references, write = bytearray(), 207
    for index in range(8 * 2_000):
        if index % 8 == 0:
            references.append(0xFF)
        references += struct.pack(">H", ((write + 100) % 4096) << 4 | 0xF)
        write = (write + 17) % 4096
    stream = struct.pack("<IIII", 0, 2**31, 0x75465A4C, 0) + bytes(references)
    assert len(rtf_compressed.decompressed(stream)) == 100_000
    with pytest.raises(ValueError):
        rtf_compressed.decompressed(struct.pack("<IIII", 0, 10, 0x12345678, 0) + b"x" * 10)
    stored = struct.pack("<IIII", 0, 5, 0x414C454D, 0) + b"{\\rtf1 hi}"
    assert rtf_compressed.decompressed(stored) == b"{\\rtf"
