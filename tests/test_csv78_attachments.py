"""A spreadsheet attached to a message (.eml, .msg, .mbox) names its sheet and rows in a hit, as the
same file on disk does: the sheet is named after the attachment (`orders.csv`, `stock.xlsx › Stock`),
since the message holds more than one file."""

from __future__ import annotations

import io
from email.message import EmailMessage

import openpyxl
from helpers.compound_files import Node, compound_file

from minirag.ingest.convert import convert_document
from minirag.results import payload


def _stock_book(rows: int) -> bytes:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Stock"
    sheet.append(["Stock list"])
    sheet.append([])
    sheet.append(["Ref", "Item", "Count"])
    for n in range(rows):
        sheet.append([f"R{4 + n}", f"item{4 + n}zq", n])
    other = book.create_sheet("Depots")
    other.append(["Depot", "City"])
    other.append(["North", "depotcityzq"])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _message(subject: str, book: bytes, orders: str) -> bytes:
    message = EmailMessage()
    message["Subject"] = subject
    message["From"] = "Ann <ann@example.org>"
    message["To"] = "bob@example.org"
    message.set_content("The stock and the orders are attached.\n")
    message.add_attachment(book, maintype="application",
                           subtype="vnd.openxmlformats-officedocument.spreadsheetml.sheet", filename="stock.xlsx")
    message.add_attachment(orders.encode(), maintype="text", subtype="csv", filename="orders.csv")
    return message.as_bytes()


ORDERS = "17,Ann,42\n18,Bob,7\n\n19,order19zq,13\n"


def _rows_of(markdown: str, rows) -> dict[str, tuple[str | None, int]]:
    """Each table line holding a `zq` word, with the sheet and row it shows."""
    out = {}
    places = rows.places()
    for line, place in zip(markdown.split("\n"), places, strict=True):
        word = next((w for w in line.replace("|", " ").split() if w.endswith("zq")), None)
        if word and place is not None:
            sheet, row = divmod(place, 1 << 32)
            out[word] = (rows.sheets[sheet], row)
    return out


def test_an_eml_names_the_rows_of_its_attached_workbook_and_csv():
    converted = convert_document(_message("Stock", _stock_book(3), ORDERS), ".eml", "mail.eml")
    assert converted.rows is not None
    assert _rows_of(converted.markdown, converted.rows) == {
        "item4zq": ("stock.xlsx › Stock", 4), "item5zq": ("stock.xlsx › Stock", 5),
        "item6zq": ("stock.xlsx › Stock", 6), "depotcityzq": ("stock.xlsx › Depots", 2),
        "order19zq": ("orders.csv", 4)}


def test_a_mailbox_names_the_rows_of_each_messages_attachments():
    first = _message("One", _stock_book(2), ORDERS)
    second = _message("Two", _stock_book(3), "1,a\n2,b\n3,order19zq\n")
    mbox = b"From a@b Sat Jan  1 00:00:00 2000\n" + first + b"\n\nFrom a@b Sat Jan  1 00:00:00 2000\n" + second
    converted = convert_document(mbox, ".mbox", "box.mbox")
    assert converted.rows is not None
    places = [p for p in converted.rows.places() if p is not None]
    assert places == sorted(places)  # sheets in the order the text holds them
    lines = converted.markdown.split("\n")
    held = [(line, place) for line, place in zip(lines, converted.rows.places(), strict=True) if "order19zq" in line]
    assert [converted.rows.sheets[place >> 32] for _, place in held] == ["orders.csv", "orders.csv"]
    assert [place & 0xFFFFFFFF for _, place in held] == [4, 3]


def test_a_hit_in_an_attached_workbook_names_its_sheet_and_rows(app, docs):
    (docs / "mail.eml").write_bytes(_message("Stock", _stock_book(3_000), ORDERS))
    app.sync()
    hit = next(hit for hit in payload(app.query("item2500zq", top_k=10))["results"] if "item2500zq" in hit["text"])
    assert hit["sheet"] == "stock.xlsx › Stock"
    first, _, last = hit["rows"].partition("-")
    assert int(first) <= 2500 <= int(last or first)
    csv_hit = next(hit for hit in payload(app.query("order19zq", top_k=10))["results"] if "order19zq" in hit["text"])
    assert csv_hit["sheet"] == "orders.csv" and csv_hit["rows"] == "1-4"


def test_a_forwarded_messages_attached_csv_names_its_rows_under_both_names():
    inner = EmailMessage()
    inner["Subject"] = "Orders for May"
    inner["From"] = "ann@example.org"
    inner.set_content("See the orders.\n")
    inner.add_attachment(ORDERS.encode(), maintype="text", subtype="csv", filename="orders.csv")
    outer = EmailMessage()
    outer["Subject"] = "Fwd: orders"
    outer["From"] = "bob@example.org"
    outer.set_content("Forwarding.\n")
    outer.add_attachment(inner)  # a message/rfc822 part without a file name: named by its subject
    converted = convert_document(outer.as_bytes(), ".eml", "fwd.eml")
    assert "# Orders for May" not in converted.markdown  # (its title, the name repeated, dropped)
    assert _rows_of(converted.markdown, converted.rows) == {"order19zq": ("Orders for May › orders.csv", 4)}


def test_an_outlook_messages_attached_workbook_names_its_rows():
    """A .msg built as Outlook lays one out: an attachment storage with its long name and data."""
    def text(prop: str, value: str) -> Node:
        return Node(f"__substg1.0_{prop}001F", value.encode("utf-16-le"))

    attached = [text("3707", "stock.xlsx"), Node("__substg1.0_37010102", _stock_book(2))]
    data = compound_file([text("0037", "Numbers"), text("1000", "See attached."),
                          Node("__properties_version1.0", b"\0" * 32),
                          Node("__attach_version1.0_#00000000", None, attached)])
    converted = convert_document(data, ".msg", "numbers.msg")
    assert _rows_of(converted.markdown, converted.rows) == {
        "item4zq": ("stock.xlsx › Stock", 4), "item5zq": ("stock.xlsx › Stock", 5),
        "depotcityzq": ("stock.xlsx › Depots", 2)}
