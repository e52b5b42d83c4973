"""Mailboxes (.mbox): each message read as a saved message is, one after another. The mailboxes here
are written by the standard library's `mailbox` module, a real mbox writer (it quotes body lines
opening with `From ` as Thunderbird does)."""

import email.message
import email.policy
import mailbox

import pytest
from conftest import FIXTURES
from helpers.growth import grows_linearly

from minirag.errors import ConversionFailed
from minirag.ingest import convert
from minirag.ingest.convert import SUPPORTED_EXTENSIONS, convert_document
from minirag.results import payload

DOCS = FIXTURES / "docs"


def _message(subject: str | None, body: str) -> email.message.EmailMessage:
    message = email.message.EmailMessage(policy=email.policy.default)
    if subject is not None:
        message["Subject"] = subject
    message["From"], message["To"] = "Ana <ana@example.org>", "ops@example.org"
    message.set_content(body)
    return message


def _mailbox(tmp_path, *messages: email.message.EmailMessage) -> bytes:
    box = mailbox.mbox(tmp_path / "written.mbox")
    for message in messages:
        box.add(message)
    box.flush()
    box.close()
    return (tmp_path / "written.mbox").read_bytes()


def test_each_message_of_a_mailbox_is_a_section_under_its_subject_its_attachments_read(tmp_path):
    report = _message("Quarterly report", "The report is attached.")
    report.add_attachment((DOCS / "docx_headings_table.docx").read_bytes(), maintype="application",
                          subtype="vnd.openxmlformats-officedocument.wordprocessingml.document", filename="tomllib.docx")
    data = _mailbox(tmp_path, report, _message("Lunch", "Menu\n\nFrom the canteen: soup on Friday.\n"),
                    _message(None, "A note with no subject."))
    assert b"\n>From the canteen" in data  # as the writer quoted it

    converted = convert_document(data, ".mbox", "mail/Inbox.mbox")
    markdown = converted.markdown
    assert converted.metadata_title == "Inbox" and not converted.warnings and not converted.note
    headings = [line for line in markdown.splitlines() if line.startswith("# ")]
    assert headings == ["# Quarterly report", "# Lunch", "# (no subject)"]
    assert "## Attached: tomllib.docx" in markdown and "tomllib" in markdown.split("## Attached: tomllib.docx")[1]
    assert "\nFrom the canteen: soup on Friday." in markdown  # its `>` taken off again
    assert "From: Ana <ana@example.org>" in markdown and "A note with no subject." in markdown


def test_a_body_line_opening_with_from_unquoted_stays_in_its_message():
    """An old writer leaves such a line as it is; only a `From ` line after an empty one (or at the
    start) opens a message, as every writer leaves an empty line between messages."""
    data = (b"From ana@example.org Mon Jan  1 00:00:00 2024\nSubject: Minutes\n\nThe meeting opened.\n"
            b"From here on we voted.\n\nFrom - Tue Jan  2 00:00:00 2024\nSubject: Second\n\n>>From a quote.\n")
    markdown = convert_document(data, ".mbox", "box.mbox").markdown
    assert [line for line in markdown.splitlines() if line.startswith("# ")] == ["# Minutes", "# Second"]
    assert "The meeting opened.\nFrom here on we voted." in markdown
    assert "\n>From a quote." in markdown  # a writer that quotes `>From ` lines too put one `>` more


def test_a_crlf_mailbox_splits_as_a_plain_one():
    data = (b"From a@example.org Mon Jan  1 00:00:00 2024\r\nSubject: One\r\n\r\nfirst\r\n\r\n"
            b"From b@example.org Mon Jan  1 00:00:00 2024\r\nSubject: Two\r\n\r\nsecond\r\n")
    markdown = convert_document(data, ".mbox", "box.mbox").markdown
    assert [line for line in markdown.splitlines() if line.startswith("# ")] == ["# One", "# Two"]


def test_a_file_that_is_no_mailbox_and_a_mailbox_of_nothing_readable_are_one_line_each():
    with pytest.raises(ConversionFailed, match=r"^box.mbox: not an mbox mailbox \(it does not open with a `From ` line\)$"):
        convert_document(b"Subject: hi\n\nbody\n", ".mbox", "box.mbox")
    with pytest.raises(ConversionFailed, match=r"^box.mbox: no message in the mailbox could be read; the first: "
                                               r"box.mbox › message 1: not an e-mail message"):
        convert_document(b"From x\n\x00\x01binary\n", ".mbox", "box.mbox")


def test_a_broken_message_is_named_and_the_others_read(tmp_path):
    data = _mailbox(tmp_path, _message("Kept", "kept body")) + b"From y\n\x00\x00\n\nFrom z\nSubject: Also\n\nyes\n"
    converted = convert_document(data, ".mbox", "box.mbox")
    assert "kept body" in converted.markdown and "# Also" in converted.markdown
    assert converted.warnings == ("box.mbox › message 2: not an e-mail message (a binary file: NUL bytes)",)


def test_messages_past_one_documents_text_are_left_and_the_note_says_how_many(tmp_path, monkeypatch):
    monkeypatch.setattr(convert, "MAX_TEXT_CHARS", 1_000)
    data = _mailbox(tmp_path, *(_message(f"Day {day}", "word " * 60) for day in range(10)))
    converted = convert_document(data, ".mbox", "box.mbox")
    kept = [line for line in converted.markdown.splitlines() if line.startswith("# ")]
    assert 1 < len(kept) < 10 and kept[0] == "# Day 0"
    assert converted.note == (f"the last {10 - len(kept)} of 10 messages were left, past the 1,000 characters "
                              "one document may give")


def test_a_mailbox_of_more_messages_than_are_read_says_how_many_were_left_and_warns_twenty_times(monkeypatch):
    monkeypatch.setattr(convert, "MAX_MAILBOX_MESSAGES", 50)
    data = b"From x\n\n" * 30 + b"From y\nSubject: Kept\n\nyes\n\n" * 40
    converted = convert_document(data, ".mbox", "box.mbox")
    assert converted.markdown.count("# Kept") == 20
    assert converted.note == "the last 20 of 70 messages were left, past 50 messages"
    assert converted.warnings[0] == "box.mbox › message 1: not an e-mail message (no headers or body found)"
    assert len(converted.warnings) == 21 and converted.warnings[-1] == "... and 10 more warnings like these"


@pytest.mark.parametrize(("head", "run"), [("From x\nSubject: s\n\n", "\nFrom \n>From "),
                                         ("", "From x\nSubject: s\n\nb\n\n")])
def test_splitting_a_mailbox_costs_time_linear_in_its_size(head, run):
    def convert_text(text: str) -> object:
        return convert_document(text.encode(), ".mbox", "box.mbox")

    assert grows_linearly(convert_text, lambda repeats: head + run * repeats)


def test_a_mailbox_in_a_folder_is_indexed_and_its_messages_found(app, docs, tmp_path):
    assert ".mbox" in SUPPORTED_EXTENSIONS
    (docs / "Archive.mbox").write_bytes(_mailbox(tmp_path, _message("Boiler service", "The boiler was serviced."),
                                                 _message("Garden", "Plant the tulip bulbs in October.")))
    app.sync()
    top = payload(app.query("when to plant tulip bulbs", top_k=3))["results"][0]
    assert top["source"] == str(docs / "Archive.mbox") and "tulip" in top["text"]


def test_a_mailbox_opening_with_a_byte_order_mark_or_blank_lines_is_read():
    data = b"From a@example.org Mon Jan  1 00:00:00 2024\nSubject: One\n\nfirst\n\nFrom b\nSubject: Two\n\nsecond\n"
    for opening in (b"\xef\xbb\xbf", b"\n", b"\r\n\r\n"):
        markdown = convert_document(opening + data, ".mbox", "box.mbox").markdown
        assert [line for line in markdown.splitlines() if line.startswith("# ")] == ["# One", "# Two"]


def test_the_budget_counts_the_mailbox_as_it_is_joined_so_it_is_cut_not_refused(monkeypatch):
    """Headings given to messages without a subject and the breaks between messages were not counted:
    the mailbox passed the limit and was refused whole."""
    monkeypatch.setattr(convert, "MAX_TEXT_CHARS", 1_000)
    data = b"".join(b"From x\nFrom: a@example.org\n\nshort note %d\n\n" % n for n in range(40))
    converted = convert_document(data, ".mbox", "box.mbox")
    assert len(converted.markdown) <= 1_000 and converted.note.startswith("the last ")


def test_a_mailbox_attached_to_a_message_says_in_a_warning_how_many_of_its_messages_were_left(monkeypatch):
    monkeypatch.setattr(convert, "MAX_MAILBOX_MESSAGES", 5)
    message = _message("Archive", "The old thread is attached.")
    message.add_attachment(b"From y\nSubject: Kept\n\nyes\n\n" * 8, maintype="application", subtype="mbox",
                           filename="thread.mbox")
    converted = convert_document(message.as_bytes(), ".eml", "archive.eml")
    assert converted.markdown.count("Kept") == 5
    assert "archive.eml › thread.mbox: the last 3 of 8 messages were left, past 5 messages" in converted.warnings
