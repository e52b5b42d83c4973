"""A `format=flowed` plain body (RFC 3676) read as its sender wrote it: a line ending in a space
flows into the next line of the same quote depth only, a space-stuffed line loses its stuffing,
`DelSp=yes` takes the flowing space out, and the signature separator `-- ` never flows. The first
message is talon 1.4.4's `tests/fixtures/standard_replies/thunderbird.eml` (a Thunderbird reply
whose quoted `> Hi ` ends in a soft break), whole; the others are cut to their bodies."""

from minirag.ingest.convert import convert_document

THUNDERBIRD = b"""MIME-Version: 1.0\r
Message-Id: <4F79B73C.9030506@xxx.mailgun.org>\r
Date: Mon, 02 Apr 2012 18:27:08 +0400\r
From: bob <bob@xxx.mailgun.org>\r
User-Agent: Mozilla/5.0 (X11; U; Linux i686; en-US;\r
 rv:1.9.2.28) Gecko/20120313 Thunderbird/3.1.20\r
To: Megan One <xxx@gmail.com>\r
Subject: Re: Test\r
Sender: bob@xxx.mailgun.org\r
Content-Type: text/plain; charset="us-ascii"; format="flowed"\r
Content-Transfer-Encoding: 7bit\r
\r
On 04/02/2012 06:26 PM, Megan One wrote:\r
> Hi \r
Hello"""


def _body(data: bytes) -> str:
    return convert_document(data, ".eml", "reply.eml").markdown.split("\n\n", 2)[2]


def test_a_soft_break_before_another_quote_depth_is_a_hard_one():
    # `Hello` had been left under `> Hi `: Markdown carries an unquoted line on in the quote above it.
    assert _body(THUNDERBIRD) == "On 04/02/2012 06:26 PM, Megan One wrote:\n> Hi\n\nHello"


def _flowed(body: bytes, params: bytes = b"") -> bytes:
    return (b"From: bob <bob@example.org>\r\nSubject: Re: Test\r\nMIME-Version: 1.0\r\n"
            b"Content-Type: text/plain; charset=utf-8; format=flowed" + params + b"\r\n\r\n" + body)


def test_flowed_lines_of_one_depth_join_and_a_shallower_line_leaves_the_quote():
    body = (b"Megan wrote:\r\n>> Shall we meet \r\n>> at noon?\r\n> Yes, at the \r\n> station.\r\n"
            b"Fine by \r\nme.\r\n \r\n From here on I \r\nwrote this.\r\n-- \r\nbob\r\n")
    assert _body(_flowed(body)) == ("Megan wrote:\n> > Shall we meet at noon?\n>\n> Yes, at the station.\n\n"
                                    "Fine by me.\n\nFrom here on I wrote this.\n-- \nbob")


def test_delsp_yes_takes_the_flowing_space_out():
    body = "\u305d\u308c\u3067\u306f \r\n\u307e\u305f\u660e\u65e5\r\n".encode()
    assert _body(_flowed(body, b"; delsp=yes")) == "\u305d\u308c\u3067\u306f\u307e\u305f\u660e\u65e5"


def test_a_plain_body_that_is_not_flowed_keeps_its_lines():
    plain = _flowed(b"> Hi \r\n Hello\r\n").replace(b"; format=flowed", b"")
    assert _body(plain) == "> Hi \n Hello"
