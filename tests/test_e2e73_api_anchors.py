"""`read_file` of a Sphinx page's `#fragment` starts at the API entry it names, as its page shows it.

Python's library reference anchors each entry by its qualified name (`csv.html#csv.Sniffer.sniff`),
and an agent follows such a link from a passage. The entry's line was found only when it began with
that whole name; Sphinx writes `class csv.Dialect`, `exception csv.Error`, leaves the module out of a
method's line (`DictWriter.writeheader()`, argparse's `ArgumentParser.add_argument(...)`) and a
method inside its class's entry is its bare name (`  sniff(sample, ...)`): 28 of the 212 entries of
the argparse, csv, pathlib and sqlite3 pages were found, the rest read from the top.
tests/fixtures/pages/python_csv_en.html.gz is Debian's python3.11-doc `library/csv.html`.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from minirag.anchors import heading_offset
from minirag.results import payload

PAGE = Path(__file__).parent / "fixtures" / "pages" / "python_csv_en.html.gz"
HTML = gzip.decompress(PAGE.read_bytes())
ENTRIES = re.findall(rb'<dt class="sig[^"]*" id="([^"]+)"', HTML)


@pytest.fixture(scope="module")
def csv_page(tmp_path_factory, tiny_model_dir, tiny_encoder):
    from minirag.app import App
    from minirag.config import load_config

    root = tmp_path_factory.mktemp("sphinx")
    docs = root / "docs"
    docs.mkdir()
    (docs / "csv.html").write_bytes(HTML)
    app = App(load_config(env={}, base_dirs=[str(docs)], db_path=str(root / "index.db"),
                          model_path=str(tiny_model_dir)), encoder=tiny_encoder)
    app.sync()
    yield app, docs / "csv.html"
    app.close()


def test_every_entry_of_a_sphinx_page_is_found_on_its_own_line(csv_page):
    app, path = csv_page
    assert len(ENTRIES) == 37
    for entry in (name.decode() for name in ENTRIES):
        read = payload(app.read(f"{path}#{entry}", max_chars=200))
        assert read["fragmentOffset"] is not None, entry
        line = read["text"].split("\n", 1)[0]
        *owners, name = entry.split(".")
        assert re.match(rf"\s*(class |exception )?([\w.]*\.)?{re.escape(name)}\b", line), (entry, line)


def test_a_method_inside_its_class_is_the_one_under_that_class():
    text = ("class csv.Dialect\n  Describes a dialect.\n\n  delimiter\n  one character\n\n"
            "class csv.Sniffer\n  Deduces the format.\n\n  sniff(sample, delimiters=None)\n  Analyze.\n\n"
            "  has_header(sample)\n  Analyze.\n")
    assert text[heading_offset(text, "csv.Sniffer.sniff"):].startswith("  sniff(sample")
    assert text[heading_offset(text, "csv.Dialect.delimiter"):].startswith("  delimiter\n")
    assert heading_offset(text, "csv.Sniffer.delimiter") is None  # not under Sniffer
    assert heading_offset(text, "csv.analyze") is None  # prose is no entry
