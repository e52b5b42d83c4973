"""Files a project or a package names for what they hold, with no extension (`README`, `NEWS`,
Debian's `changelog.Debian.gz` and `copyright`): read as the plain text they are."""

from __future__ import annotations

import gzip
import json

import pytest

from minirag.ingest.doc_names import named_as, stem


@pytest.mark.parametrize(("name", "kind", "name_stem"), [
    ("README", ".txt", "README"), ("readme", ".txt", "readme"), ("NEWS.gz", ".txt", "NEWS"),
    ("changelog.Debian.gz", ".txt", "changelog.Debian"), ("README.Debian", ".txt", "README.Debian"),
    ("changelog.Debian.amd64.gz", ".txt", "changelog.Debian.amd64"), ("README.source", ".txt", "README.source"),
    ("README.Debian.md", ".md", "README.Debian"), ("NEWS.old", ".old", "NEWS"),
    ("copyright", ".txt", "copyright"), ("LICENSE", ".txt", "LICENSE"), ("ChangeLog.bz2", ".txt", "ChangeLog"),
    ("CONTRIBUTING", ".txt", "CONTRIBUTING"), ("README.md", ".md", "README"), ("README.txt", ".txt", "README"),
    ("Makefile", "", "Makefile"), ("README.exe", ".exe", "README"), ("notes", "", "notes"),
])
def test_a_documentation_files_name_without_an_extension_is_read_as_plain_text(name, kind, name_stem):
    assert named_as(name).kind == kind
    assert stem(name) == name_stem


def test_readme_news_changelog_and_license_files_are_synced_listed_read_and_found(run_cli, cli_env, docs):
    (docs / "README").write_text("Heron tracker\n=============\n\nCounts grey herons at their colony.\n")
    (docs / "NEWS.gz").write_bytes(gzip.compress(b"Version 2.3: the kingfisher counter no longer overflows.\n"))
    (docs / "changelog.Debian.gz").write_bytes(gzip.compress(
        b"herons (2.3-1) unstable; urgency=low\n\n  * New upstream release: spoonbill census.\n"))
    (docs / "copyright").write_text("Files: *\nCopyright: 2026 The Heron Project\nLicense: GPL-3+\n")
    (docs / "Makefile").write_text("all:\n\techo bittern\n")
    (docs / "LICENSE").write_bytes(b"\x00\x01\x02 not text at all \x00" * 40)  # read, and refused as binary
    done = run_cli("sync", "--json")
    synced = json.loads(done.stdout)
    assert synced["ingested"] == 5 and synced["failed"] == 1, done.stdout  # a.md and four; LICENSE failed
    assert any("LICENSE" in line and "binary" in line for line in synced["warnings"]), synced
    listing = run_cli("list").stdout
    for name in ("README", "NEWS.gz", "changelog.Debian.gz", "copyright"):
        assert str(docs / name) in listing, listing
    assert str(docs / "Makefile") not in listing
    assert "kingfisher counter" in run_cli("read", docs / "NEWS.gz").stdout
    read = json.loads(run_cli("read", "--json", docs / "README").stdout)
    # Plain text, no heading read: named by its folder too, or every package's README would be "README".
    assert read["title"] == f"README ({docs.name})" and "Counts grey herons" in read["text"]
    found = json.loads(run_cli("query", "--json", "spoonbill census").stdout)["results"]
    assert found[0]["source"] == str(docs / "changelog.Debian.gz")
