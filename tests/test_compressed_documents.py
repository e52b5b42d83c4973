"""Compressed single documents (`README.md.gz`, `notes.txt.bz2`, `data.csv.xz`): read as the document
inside, everywhere a plain one is; archives (`.tar.gz`) still left out; bombs and damage one line."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
import tarfile
import tracemalloc
import zlib

import pytest
from conftest import FIXTURES
from helpers.growth import grows_linearly

from minirag.errors import ConversionFailed
from minirag.ingest.compressed import inflated
from minirag.ingest.convert import convert_document, convert_fetched, convert_file
from minirag.ingest.sync import run_sync

COMPRESS = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}

README = """# Heron tracking

Grey herons return to the same colony every spring.

## Ringing

Each chick gets a numbered ring on its left leg.
"""
CHANGELOG = "Version 2.3\n\n* Fixed the kingfisher counter overflowing at dawn.\n"
GUIDE = "<html><head><title>Egret guide</title></head><body><h1>Egrets</h1><p>Little egrets wade in " \
        "shallow lagoons.</p></body></html>"
DATA = "species,count\nspoonbill,42\nbittern,7\n"


def tar_gz(name: str, text: str) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        data = text.encode()
        info = tarfile.TarInfo(name)
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


@pytest.fixture
def compressed_folder(docs):
    (docs / "README.md.gz").write_bytes(gzip.compress(README.encode()))
    (docs / "changelog.txt.bz2").write_bytes(bz2.compress(CHANGELOG.encode()))
    (docs / "guide.html.xz").write_bytes(lzma.compress(GUIDE.encode()))
    (docs / "data.csv.gz").write_bytes(gzip.compress(DATA.encode()))
    (docs / "bundle.tar.gz").write_bytes(tar_gz("inside.md", "# Inside\n\nNever indexed.\n"))
    (docs / "bundle.tgz").write_bytes(tar_gz("inside.md", "# Inside\n\nNever indexed.\n"))
    (docs / "blob.gz").write_bytes(gzip.compress(b"# No name\n\nNot a document by its name.\n"))
    (docs / "twice.md.gz.gz").write_bytes(gzip.compress(gzip.compress(b"# Twice\n\nUnwrapped once only.\n")))
    return docs


def test_compressed_documents_are_synced_listed_read_and_found_as_the_document_inside(
        run_cli, cli_env, compressed_folder):
    docs = compressed_folder
    done = run_cli("sync", "--json")
    assert done.returncode == 0, done.stderr
    synced = json.loads(done.stdout)
    assert synced["ingested"] == 5  # a.md and the four compressed documents
    listing = run_cli("list")
    assert listing.returncode == 0, listing.stderr
    for name in ("README.md.gz", "changelog.txt.bz2", "guide.html.xz", "data.csv.gz"):
        assert str(docs / name) in listing.stdout
    # archives, a stream with no inner type, one compressed twice: left out, counted by type
    assert "1 .tar.gz" in listing.stdout and "1 .tgz" in listing.stdout and "2 .gz" in listing.stdout, listing.stdout
    read = json.loads(run_cli("read", "--json", docs / "README.md.gz").stdout)
    assert read["title"] == "Heron tracking"
    assert "## Ringing" in read["text"] and "numbered ring on its left leg" in read["text"]
    assert "kingfisher counter" in run_cli("read", docs / "changelog.txt.bz2").stdout
    assert "Little egrets wade" in run_cli("read", docs / "guide.html.xz").stdout
    assert "spoonbill" in run_cli("read", docs / "data.csv.gz").stdout
    found = run_cli("query", "--json", "numbered ring left leg chick")
    assert json.loads(found.stdout)["results"][0]["source"] == str(docs / "README.md.gz")

    # changed: synced again as any document is
    (docs / "README.md.gz").write_bytes(gzip.compress(README.replace("left leg", "right leg").encode()))
    os.utime(docs / "README.md.gz", ns=(1, 1))
    assert run_cli("sync").returncode == 0
    assert "right leg" in run_cli("read", docs / "README.md.gz").stdout


def test_a_compressed_document_named_on_its_own_is_ingested_and_an_archive_is_refused_in_one_line(
        app, compressed_folder):
    result = app.ingest_file(str(compressed_folder / "changelog.txt.bz2"))
    assert result.chunk_count >= 1
    for name, said in (("bundle.tar.gz", "unsupported file type .tar.gz"), ("blob.gz", "unsupported file type .gz"),
                       ("twice.md.gz.gz", "unsupported file type .gz")):
        with pytest.raises(Exception, match=said) as refused:
            app.ingest_file(str(compressed_folder / name))
        assert "\n" not in str(refused.value)


def test_a_compressed_pdf_reads_as_the_pdf():
    pdf = (FIXTURES / "docs" / "pdf_multipage_pdflatex_outline.pdf").read_bytes()
    plain = convert_document(pdf, ".pdf", "x.pdf")
    assert convert_document(gzip.compress(pdf), ".pdf.gz", "x.pdf.gz").markdown == plain.markdown


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz"])
def test_a_decompression_bomb_stops_at_max_file_size_in_one_line(suffix):
    bomb = COMPRESS[suffix](b"\0" * (64 * 2**20))  # 64 MiB of zeros: 64 kB to 10 kB compressed
    assert len(bomb) < 2**20
    with pytest.raises(ConversionFailed) as refused:
        convert_document(bomb, f".txt{suffix}", f"bomb.txt{suffix}", max_bytes=8 * 2**20)
    assert str(refused.value) == (f"bomb.txt{suffix}: refused: it inflates past 8 MiB (MAX_FILE_SIZE, the most a "
                                  "file may hold, holds for what a compressed one inflates to)")


def test_many_concatenated_members_are_bounded_by_what_they_inflate_to_together():
    member = gzip.compress(b"a" * 2**20)
    with pytest.raises(ConversionFailed, match="inflates past 8 MiB"):
        inflated(member * 20, ".gz", "many.txt.gz", 8 * 2**20)
    assert len(inflated(member * 4, ".gz", "four.txt.gz", 8 * 2**20).data) == 4 * 2**20


def test_a_bomb_in_a_synced_folder_fails_alone_at_the_configured_size(make_app, docs):
    (docs / "bomb.md.gz").write_bytes(gzip.compress(b"x" * (4 * 2**20)))
    (docs / "fine.md.gz").write_bytes(gzip.compress(README.encode()))
    app = make_app(env={"MAX_FILE_SIZE": str(2**20)})
    progress = run_sync(app.pipeline, list(app.config.roots))
    assert (progress.done, progress.failed) == (1, 1)
    assert any("bomb.md.gz: refused: it inflates past 1 MiB" in w for w in progress.warnings), progress.warnings



@pytest.mark.parametrize("cut", [False, True])
def test_the_inflated_bytes_are_held_once_not_twice(cut):
    text = b"line of text\n" * (2 * 2**20)  # 26 MiB inflated
    stream = gzip.compress(text, 1)
    if cut:
        stream = stream[: len(stream) * 3 // 4]
    tracemalloc.start()
    try:
        out = inflated(stream, ".gz", "log.txt.gz", 2**30).data
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(out) > 2**20
    # Pieces kept in a list and joined at the end held the whole twice (peak 2x).
    assert peak < 1.5 * len(out), (peak, len(out))

@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz"])
def test_inflating_takes_time_in_proportion_to_the_members(suffix):
    member = COMPRESS[suffix](b"line of text\n" * 10)

    def inflate(text: str) -> object:
        return inflated(text.encode("latin-1"), suffix, f"many.txt{suffix}", 2**30)

    assert grows_linearly(inflate, lambda n: (member * n).decode("latin-1"))


def test_a_cut_stream_keeps_what_inflated_with_a_warning_and_a_stream_of_nothing_is_one_line():
    text = "".join(f"Line {n} of a long changelog about wading birds.\n" for n in range(20_000))
    whole = gzip.compress(text.encode())
    cut = convert_document(whole[:len(whole) // 2], ".txt.gz", "cut.txt.gz")
    assert cut.markdown.startswith("Line 0 of a long changelog") and len(cut.markdown) < len(text)
    assert len(cut.warnings) == 1 and cut.warnings[0].startswith("cut.txt.gz: its gzip stream is damaged or cut "
                                                                  "short after ")
    for suffix in (".gz", ".bz2", ".xz"):
        with pytest.raises(ConversionFailed) as refused:
            convert_document(b"plain text, never compressed\n", f".md{suffix}", f"plain.md{suffix}")
        assert str(refused.value).startswith(f"plain.md{suffix}: cannot read the ")
        assert "\n" not in str(refused.value)


def test_a_fetched_gzip_body_reads_as_the_document_its_url_names_and_a_tarball_is_refused():
    url = "https://example.org/docs/README.md.gz"
    converted = convert_fetched(gzip.compress(README.encode()), mimetype="application/gzip", charset=None, url=url)
    assert "## Ringing" in converted.markdown
    with pytest.raises(ConversionFailed, match="a tar archive, not a document"):
        convert_fetched(tar_gz("a.md", "# A\n"), mimetype="application/gzip", charset=None,
                        url="https://example.org/a.tar.gz")


def test_convert_file_reads_a_compressed_file_by_its_inner_name(tmp_path):
    path = tmp_path / "notes.rst.xz"
    path.write_bytes(lzma.compress(b"Title\n=====\n\nSome *notes* on avocets.\n"))
    assert "avocets" in convert_file(path).markdown


def xz_asking_for(dict_byte: int, text: bytes) -> bytes:
    """An xz stream whose block header names another dictionary size (its LZMA2 property byte; 40 is
    4 GiB), its header's checksum made again: the decoder allocates what the header names."""
    data = bytearray(lzma.compress(text, filters=[{"id": lzma.FILTER_LZMA2, "dict_size": 1 << 20}]))
    size = (data[12] + 1) * 4
    header = data[12:12 + size]
    at = header.index(b"\x21\x01") + 2  # the LZMA2 filter's id, its properties' size, then the byte
    header[at] = dict_byte
    header[-4:] = zlib.crc32(bytes(header[:-4])).to_bytes(4, "little")
    data[12:12 + size] = header
    return bytes(data)


def test_an_xz_stream_asking_for_a_4_gib_dictionary_is_refused_in_one_line():
    with pytest.raises(ConversionFailed) as refused:
        convert_document(xz_asking_for(40, b"hello\n"), ".txt.xz", "huge.txt.xz")
    assert str(refused.value) == ("huge.txt.xz: refused: its xz stream asks for more than 256 MiB of memory to "
                                  "inflate (its dictionary's size)")


def test_xz_streams_one_after_another_are_read_as_one_and_a_cut_one_keeps_what_inflated():
    two = lzma.compress(b"first stream\n") + b"\0" * 8 + lzma.compress(b"second stream\n")
    assert convert_document(two, ".txt.xz", "two.txt.xz").markdown == "first stream\nsecond stream\n"
    text = "".join(f"Line {n} of notes on plovers.\n" for n in range(50_000)).encode()
    whole = lzma.compress(text)
    cut = convert_document(whole[:len(whole) // 2], ".txt.xz", "cut.txt.xz")
    assert cut.markdown.startswith("Line 0 of notes on plovers.") and cut.warnings[0].startswith(
        "cut.txt.xz: its xz stream is damaged or cut short after ")


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz"])
def test_a_pages_head_is_read_past_empty_streams_before_it(suffix):
    # `: | gzip > p.1.gz; gzip -c page >> p.1.gz`: gzip -d, man and convert read the page; the
    # walk's look at the head had inflated the first (empty) stream alone and left the page out.
    from minirag.ingest.compressed import inflated_head
    compress = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}[suffix]
    page = b".TH X 1\n.SH NAME\nx \\- y\n"
    assert inflated_head(compress(b"") * 3 + compress(page), suffix, 512) == page
    assert inflated_head(compress(b"") * 100_000, suffix, 512) == b""  # nothing but empty streams


def test_what_a_messages_compressed_attachments_inflate_to_is_bounded_together():
    """Each `.txt.gz` attachment was held to MAX_FILE_SIZE alone: a message of many small gzip
    streams (90 kB each, 90 MiB inflated: a 100 MiB message holds 800) inflated to
    hundreds of times MAX_FILE_SIZE before its CPU limit stopped it. Together now, as one file's."""
    from email.message import EmailMessage

    message = EmailMessage()
    message["Subject"] = "Logs"
    message.set_content("The logs are attached.\n")
    # A quarter of MiB of blank lines each (no text: the message's text budget never ends it), under a
    # MAX_FILE_SIZE of 2 MiB: the proportions of 1 MiB each under 8 MiB, for a quarter of the inflating.
    # Lines of 1,023 spaces: a line of one newline each made the text readers' per-line passes most of
    # the test's CPU, 1,024 times as many lines for the same bytes.
    for number in range(12):
        message.add_attachment(gzip.compress((b" " * 1023 + b"\n") * 2**8), maintype="application",
                               subtype="gzip", filename=f"log{number}.txt.gz")
    data = message.as_bytes()
    assert len(data) < 2**20
    read = convert_document(data, ".eml", "logs.eml", max_bytes=2 * 2**20)
    refused = [warning for warning in read.warnings if "inflates past" in warning]
    assert [warning.split(":")[0] for warning in refused] == [f"logs.eml › log{n}.txt.gz" for n in range(8, 12)], refused
    assert refused[0].endswith("refused: with the document's other compressed streams it inflates past 2 MiB "
                               "(MAX_FILE_SIZE holds for what they inflate to together)"), refused[0]
    assert "The logs are attached." in read.markdown  # the message itself is read
    assert not convert_document(data, ".eml", "logs.eml", max_bytes=4 * 2**20).warnings
