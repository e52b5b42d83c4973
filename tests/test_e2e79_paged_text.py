"""Plain text that form feeds part into pages (an RFC or Internet-Draft as the RFC Editor's tools
write it, an old manual) reads without the footer and header lines every page repeats: they stood
between a section's paragraphs, in the text a hit shows and an embedding reads. A piece of
draft-hardaker-dnsop-nsec3-guidance-00 (2021, IETF Trust, BSD), its pages 2 to 5."""

from minirag.ingest.convert import convert_document

FOOTER = "Hardaker & Dukhovni      Expires August 21, 2021                [Page {}]"
HEADER = "Internet-Draft                    title                    February 2021"
PAGES = [
    "   Opt-Out blocks allow large registries to only sign as many NSEC3\n   records as there are signed DS or"
    " other RRsets in the zone.\n",
    "2.3.  Iterations\n\n   Generally increasing the number of iterations offers little improved\n"
    "   protections for modern machinery.\n",
    "2.4.  Salt\n\n   Salts add yet another layer of protection against offline, stored\n   dictionary attacks.\n",
    "3.  Security Considerations\n\n   This entire document discusses security considerations with various\n"
    "   parameters selections of NSEC3 and NSEC3PARAM fields.\n",
]


# Its numbered section titles read as headings (text_headings.py, test_txt79_text_headings.py).
TITLES = {"2.3.  Iterations": "### 2.3. Iterations", "2.4.  Salt": "### 2.4. Salt",
          "3.  Security Considerations": "## 3. Security Considerations"}


def _as_headings(text: str) -> str:
    for title, heading in TITLES.items():
        text = text.replace(f"{title}\n", f"{heading}\n")
    return text


def _draft() -> str:
    return "".join(f"{HEADER}\n\n\n{body}\n\n\n\n{FOOTER.format(number)}\n\f\n"
                   for number, body in enumerate(PAGES, 2)).removeprefix(f"{HEADER}\n\n\n")


def test_the_lines_every_page_repeats_are_left_out_the_pages_kept():
    markdown = convert_document(_draft().encode(), ".txt", "draft.txt").markdown
    assert markdown.count("\f") == 4  # pages stay pages
    assert markdown.count("Expires August 21, 2021") <= 1 and markdown.count("Internet-Draft") <= 1
    assert "[Page 3]" not in markdown and "[Page 4]" not in markdown
    for body in PAGES:
        assert _as_headings(body).strip() in markdown


def test_text_without_form_feeds_or_repeated_lines_is_unchanged():
    text = _draft().replace("\f", "")
    # Its unpaged header and footer lines, at column 0, outnumber its indented body lines here: no
    # evidence of an RFC's sections, so its titles stay text.
    assert convert_document(text.encode(), ".txt", "a.txt").markdown == text
    one_page_each = "".join(f"{body}\n\f\n" for body in PAGES)
    assert convert_document(one_page_each.encode(), ".txt", "b.txt").markdown == _as_headings(one_page_each)
