"""A quoted line that a mail client wrapped when it quoted it goes on, on the next line, without the
quote's `>`: a reader sees it as the end of the quoted sentence, and so it reads, marked as the
quote's. A reply written between quoted lines, even with no blank line around it, stays the
replier's. The messages (tests/fixtures/readers81/) are written after how Gmail and Outlook quote."""

from __future__ import annotations

import shutil
from pathlib import Path

from minirag.ingest.mail_quotes import requoted

MESSAGES = Path(__file__).parent / "fixtures" / "readers81"


def test_a_wrapped_quoted_line_stays_in_its_quote(app, docs):
    for name in ("backup-window-reply.eml", "interleaved-reply.eml"):
        shutil.copy(MESSAGES / name, docs / name)
    app.sync()
    reply = app.read(str(docs / "backup-window-reply.eml")).text
    assert ("On Mon, 2 Mar 2026 at 17:40, Sam Okafor <sam@example.org> wrote:\n"
            "> We would like to move the nightly backup of the billing database from\n"
            "> 23:00 to 02:00 UTC, because the invoice run now overlaps with the\n"
            "> snapshot and slows both down.\n>\n"
            "> Could you confirm that the replica lag alert will not fire during the\n"
            "> new window?\n>\n> Thanks,\n> Sam\n\nDana") in reply
    interleaved = app.read(str(docs / "interleaved-reply.eml")).text
    assert ("Dana Whitfield wrote:\n"
            "> Moving it to 02:00 works for us; the replica lag alert can stay as\n"
            "> is.\n"
            "Great, I will change the schedule today.\n"
            "> > Could you confirm that the replica lag alert will not fire during\n"
            "> > the new window? The last time we moved a backup it paged the whole\n"
            "> > on-call rotation at night.\n"
            "> It will not: the alert waits for ten minutes of lag.\n"
            "Thanks, that settles it.\n\nSam") in interleaved


def test_text_with_no_wrapped_quote_is_returned_as_it_is():
    for text in ("> Could you confirm?\nYes.\n> And the alert?\nIt stays.\n",
                 "> We would like to move the nightly backup of the billing database from\n\nNew paragraph.\n",
                 "No quotes at all,\njust lines.\n"):
        assert requoted(text) == text


def test_a_reply_under_a_quoted_line_its_first_word_would_have_fit_on_stays_the_repliers():
    text = ("> Could we move the nightly backup window to 02:00 UTC instead\n"
            "yes, from Monday on. I will tell the team\n")
    assert requoted(text) == text
    wrapped = ("> Could we move the nightly backup window of the billing database to\n"
               "02:00 UTC instead?\n")
    assert requoted(wrapped) == wrapped.replace("\n", "\n> ", 1)
