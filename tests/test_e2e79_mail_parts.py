"""What a mail client shows of a saved message, from pieces of real ones: a message that is all a
forwarded message (GroupWise forwards so: CPython's `Lib/test/test_email/data/msg_46.txt`), an
inline text part beside the body a client shows after it (a WatchGuard firewall's notice, mail-parser
4.8.0's `tests/mails/mail_test_3`), the attachments of a signed message, and subjects labelled with
a charset their words are not all of (GB2312 for GBK words: mail-parser's `mail_test_9`)."""

import base64

from minirag.ingest.convert import convert_document

GROUPWISE = b"""Date: Mon, 01 Feb 2010 12:21:16 +0100
From: "Sender" <sender@example.net>
To: <someone@example.com>
Subject: GroupwiseForwardingTest
Mime-Version: 1.0
Content-Type: message/rfc822

Return-path: <sender@example.net>
Message-ID: <4B66B890.4070408@teconcept.de>
Date: Mon, 01 Feb 2010 12:18:40 +0100
From: "Dr. Sender" <sender@example.net>
MIME-Version: 1.0
To: "Recipient" <recipient@example.com>
Subject: GroupwiseForwardingTest
Content-Type: text/plain; charset=ISO-8859-15
Content-Transfer-Encoding: 7bit

Testing email forwarding with Groupwise 1.2.2010
"""


def test_a_message_that_is_a_forwarded_message_reads_that_message():
    markdown = convert_document(GROUPWISE, ".eml", "groupwise.eml").markdown
    assert markdown == (
        "# GroupwiseForwardingTest\n\nFrom: Sender <sender@example.net>\nTo: someone@example.com\n"
        "Date: Mon, 01 Feb 2010 12:21:16 +0100\n\nAttachments: GroupwiseForwardingTest\n\n"
        "## Attached: GroupwiseForwardingTest\n\nFrom: \"Dr. Sender\" <sender@example.net>\n"
        "To: Recipient <recipient@example.com>\nDate: Mon, 01 Feb 2010 12:18:40 +0100\n\n"
        "Testing email forwarding with Groupwise 1.2.2010")


WATCHGUARD = b"""From: "Ava Oneil" <Oneil.844@randtelekom.com.tr>
To: <kalinokyra@thismail.it>
Subject: Hi there
Date: Mon, 22 Aug 2016 16:56:09 +0300
MIME-Version: 1.0
Content-Type: multipart/mixed;
\tboundary="----=_NextPart_000_0010_01D1FC96.14E54A00"

------=_NextPart_000_0010_01D1FC96.14E54A00
Content-Type: multipart/alternative;
\tboundary="----=_NextPart_001_0011_01D1FC96.14E54A00"

------=_NextPart_001_0011_01D1FC96.14E54A00
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: 7bit

I am sending you the bills of the goods we delivered to you in the attachment
------=_NextPart_001_0011_01D1FC96.14E54A00
Content-Type: text/html; charset=utf-8
Content-Transfer-Encoding: 7bit

<HTML><BODY>I am sending you the bills of the goods we delivered to you in the attachment</BODY></HTML>
------=_NextPart_001_0011_01D1FC96.14E54A00--

------=_NextPart_000_0010_01D1FC96.14E54A00
Content-Type: text/plain; name="message.txt"; charset="iso-8859-1"
Content-Transfer-Encoding: quoted-printable
Content-Disposition: inline


The WatchGuard Firebox that protects your network has detected a message =
that may not be safe.

Cause : The file type may not be safe.
Content type : application/x-compressed
File name    : export_pdf_ 65acf801~.js
Status       : File Name violation
Action       : The Firebox deleted export_pdf_ 65acf801~.js.

------=_NextPart_000_0010_01D1FC96.14E54A00--
"""


def test_an_inline_text_part_after_an_alternative_body_is_read_not_lost():
    # The standard library takes the first text/plain part of a multipart/mixed message for a body
    # candidate even where the body is the multipart/alternative before it: the notice was dropped.
    markdown = convert_document(WATCHGUARD, ".eml", "m.eml").markdown
    assert markdown.count("I am sending you the bills") == 1
    assert "Attachments: message.txt\n\n## Attached: message.txt\n\n" in markdown
    assert "detected a message that may not be safe." in markdown
    assert markdown.endswith("Action       : The Firebox deleted export_pdf_ 65acf801~.js.")


def test_a_signed_messages_attachments_are_read_inside_its_signed_part():
    signed = (b'From: a@example.org\nSubject: Minutes\nMIME-Version: 1.0\n'
              b'Content-Type: multipart/signed; micalg=pgp-sha256; protocol="application/pgp-signature"; boundary="S"\n\n'
              b'--S\nContent-Type: multipart/mixed; boundary="M"\n\n--M\nContent-Type: text/plain\n\nMinutes attached.\n'
              b'--M\nContent-Type: text/plain; charset=utf-8\nContent-Disposition: attachment; filename="minutes.txt"\n\n'
              b'The mirror moves to rack 7 on Tuesday.\n--M--\n\n'
              b'--S\nContent-Type: application/pgp-signature; name="signature.asc"\n\n'
              b'-----BEGIN PGP SIGNATURE-----\n\niQEzBAEBCAAdFiEE\n-----END PGP SIGNATURE-----\n--S--\n')
    markdown = convert_document(signed, ".eml", "m.eml").markdown
    assert "Minutes attached.\n\nAttachments: minutes.txt, signature.asc\n\n## Attached: minutes.txt\n\n" in markdown
    assert "The mirror moves to rack 7 on Tuesday." in markdown


def test_a_subject_in_a_charset_its_label_undersells_reads_as_a_mail_client_shows_it():
    # GB2312 has no 镕 (GBK has): clients read a GB2312 label as GBK, and ISO-8859-1 as windows-1252
    # (the curly quote), as they read a body so labelled; the standard library left U+FFFD and a C1 control.
    gbk = base64.b64encode("朱镕基总理的讲话".encode("gbk")).decode()
    latin = "=?iso-8859-1?Q?Don=92t_forget_the_=80_10_fee?="
    message = (f"From: =?gb2312?B?{base64.b64encode('张先生'.encode('gb2312')).decode()}?= <zhang@example.cn>\n"
               f"To: b@example.org\nSubject: =?gb2312?B?{gbk}?=\nMIME-Version: 1.0\nContent-Type: text/plain\n\nbody\n")
    markdown = convert_document(message.encode(), ".eml", "m.eml").markdown
    assert markdown.startswith("# 朱镕基总理的讲话\n\nFrom: 张先生 <zhang@example.cn>\n")
    message = f"From: a@example.org\nSubject: {latin}\nContent-Type: text/plain\n\nbody\n"
    assert convert_document(message.encode(), ".eml", "m.eml").markdown.startswith("# Don’t forget the € 10 fee\n")
