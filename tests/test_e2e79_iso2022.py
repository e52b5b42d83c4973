"""ISO-2022-JP, the charset Japanese mail is sent in (RFC 1468) and old Unix documents are kept in,
is 7-bit: its bytes are valid UTF-8, its kanji ASCII letters between escape sequences (`ESC $ B` ...
`ESC ( B`). Read as UTF-8, a Japanese body or attachment came out as `$BEj9F(B...` with the escapes
taken out as stray controls. The words are Mailman's Japanese moderation notice, as CPython's
test_email/test_asian_codecs.py carries it ("test-ja へ投稿されたメールは司会者の承認を待っています")."""

import base64

from minirag.ingest.convert import convert_document

NOTICE = "test-ja へ投稿されたメールは司会者の承認を待っています"


def _mail(body: bytes, charset: str = "iso-2022-jp") -> bytes:
    subject = base64.b64encode(NOTICE.encode("iso-2022-jp")).decode()
    return (f"From: test-ja-bounces@example.jp\nTo: yamada@example.jp\nSubject: =?iso-2022-jp?b?{subject}?=\n"
            f"MIME-Version: 1.0\nContent-Type: text/plain; charset=\"{charset}\"\nContent-Transfer-Encoding: 7bit\n\n"
            ).encode() + body


def test_a_japanese_mail_in_iso_2022_jp_reads_as_japanese():
    body = f"{NOTICE}。\n\n理由: 承認待ちの投稿です。\n".encode("iso-2022-jp")
    markdown = convert_document(_mail(body), ".eml", "notice.eml").markdown
    assert markdown.startswith(f"# {NOTICE}\n")
    assert markdown.endswith(f"{NOTICE}。\n\n理由: 承認待ちの投稿です。")


def test_iso_2022_jp_text_without_a_label_is_known_by_its_escape_sequences():
    text = f"{NOTICE}\n半角カナ: ｱｲｳ\n"
    for codec in ("iso-2022-jp", "iso-2022-jp-ext"):
        data = text.replace("半角カナ: ｱｲｳ\n", "" if codec == "iso-2022-jp" else "半角カナ: ｱｲｳ\n").encode(codec)
        assert convert_document(data, ".txt", "README.ja.txt").markdown == data.decode(codec)


def test_ascii_with_other_escapes_stays_as_it_was():
    log = b"\x1b[32mPASS\x1b[0m test_login\n"  # a terminal's colours: no ISO-2022 designation
    assert "PASS" in convert_document(log, ".txt", "log.txt").markdown
