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
    ("README.Debian.md", ".md", "README.Debian"), ("NEWS.old", ".txt", "NEWS.old"),
    ("copyright", ".txt", "copyright"), ("LICENSE", ".txt", "LICENSE"), ("ChangeLog.bz2", ".txt", "ChangeLog"),
    ("CONTRIBUTING", ".txt", "CONTRIBUTING"), ("README.md", ".md", "README"), ("README.txt", ".txt", "README"),
    ("Makefile", "", "Makefile"), ("README.exe", ".exe", "README"), ("notes", "", "notes"),
    # A note's own suffix (read as text where its head is text), never a file type's or a document's.
    ("README.dns", ".txt", "README.dns"), ("COPYING.LIB", ".txt", "COPYING.LIB"), ("NEWS.0", ".txt", "NEWS.0"),
    ("ChangeLog.2010", ".txt", "ChangeLog.2010"), ("README.tun.gz", ".txt", "README.tun"),
    ("Changes.old.gz", ".txt", "Changes.old"), ("changelog.Debian.old.gz", ".txt", "changelog.Debian.old"),
    ("changelog.1.gz", ".man", "changelog"), ("README.pdf", ".pdf", "README"), ("LICENSE.html", ".html", "LICENSE"),
    ("README.png", ".png", "README"), ("README.bin", ".bin", "README"), ("install.py", ".py", "install"),
    ("changelog.vim", ".vim", "changelog"), ("Install.pm", ".pm", "Install"), ("README.sh", ".sh", "README"),
    # A note's qualifier after a `-` or `_` (Rust's `LICENSE-MIT`, valgrind's `README_MISSING_SYSCALL_OR_IOCTL`),
    # and Debian's lower-case `changelog` with a part's name after it (gcc's `changelog.libstdc++.gz`).
    ("LICENSE-MIT", ".txt", "LICENSE-MIT"), ("LICENSE-APACHE", ".txt", "LICENSE-APACHE"),
    ("COPYING-2.0", ".txt", "COPYING-2.0"), ("README_MISSING_SYSCALL_OR_IOCTL.gz", ".txt", "README_MISSING_SYSCALL_OR_IOCTL"),
    ("changelog.libstdc++.gz", ".txt", "changelog.libstdc++"), ("README.gtk+", ".txt", "README.gtk+"),
    ("LICENSE-MIT.md", ".md", "LICENSE-MIT"), ("README_zh.pdf", ".pdf", "README_zh"), ("LICENSE-THIRD-PARTY", ".txt", "LICENSE-THIRD-PARTY"),
    ("install-sh", "", "install-sh"), ("license-checker", "", "license-checker"), ("changelog-generator", "", "changelog-generator"),
    ("INSTALL_check.py", ".py", "INSTALL_check"), ("changelog.config.js", ".js", "changelog.config"),
    ("changelog.lang", ".lang", "changelog"),  # gtksourceview's syntax file for changelogs
    # A project's own note named in capitals (libpng's ANNOUNCE, readline's USAGE, lsof's 00README, groff's
    # PROBLEMS.gz), or named for a note at its end (git's git-p4.README, util-linux's v2.35-ReleaseNotes.gz);
    # not a build tool's, packager's or version control's file named in capitals.
    ("ANNOUNCE", ".txt", "ANNOUNCE"), ("USAGE", ".txt", "USAGE"), ("RELEASE-NOTES", ".txt", "RELEASE-NOTES"),
    ("00README", ".txt", "00README"), ("PROBLEMS.gz", ".txt", "PROBLEMS"), ("ABOUT-NLS", ".txt", "ABOUT-NLS"),
    ("git-p4.README", ".txt", "git-p4.README"), ("libstemmer_c_README.gz", ".txt", "libstemmer_c_README"),
    ("v2.35-ReleaseNotes.gz", ".txt", "v2.35-ReleaseNotes"), ("BUILD", "", "BUILD"), ("WORKSPACE", "", "WORKSPACE"),
    ("RECORD", "", "RECORD"), ("CODEOWNERS", "", "CODEOWNERS"), ("VERSION", "", "VERSION"), ("OK", "", "OK"),
    ("X11", "", "X11"), ("ANNOUNCE.py", ".py", "ANNOUNCE"), ("Announce", "", "Announce"),
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


def test_notes_with_a_suffix_of_their_own_are_read_as_text_where_their_head_is_text(run_cli, cli_env, docs):
    """`README.dns`, `COPYING.LIB`, `NEWS.0`, a rotated `changelog.1.gz`: read as the text they are;
    `install.1.gz` that is roff stays a manual page; a `README.xyz` or a `NEWS.1` that is binary is
    left out and counted, never read and failed; `install.py` is code."""
    (docs / "README.dns").write_text("Publishing host keys in the DNS as SSHFP records of the osprey zone.\n")
    (docs / "COPYING.LIB").write_text("GNU LESSER GENERAL PUBLIC LICENSE for the gannet library\n")
    (docs / "NEWS.0").write_text("Version 0.9: the cormorant roost is counted at dusk.\n")
    (docs / "ChangeLog.2010").write_text("2010-03-01  Ann Author\n\n\t* petrel.c: count storm petrels.\n")
    (docs / "changelog.1.gz").write_bytes(gzip.compress(b"tar (1.30) unstable\n\n  * Skua archive fixes.\n"))
    (docs / "install.1.gz").write_bytes(gzip.compress(
        b'.TH INSTALL 1\n.SH NAME\ninstall \\- copy files and set attributes for the puffin\n'))
    (docs / "README.xyz").write_bytes(b"\x00\x01\x02 binary \x00" * 40)
    (docs / "NEWS.1").write_bytes(b"\x7fELF\x02\x01\x01\x00" * 40)
    (docs / "install.py").write_text("print('not a note')\n")
    synced = json.loads(run_cli("sync", "--json").stdout)
    assert synced["ingested"] == 7 and synced["failed"] == 0, synced  # a.md and six notes
    assert synced["otherTypes"] == {".xyz": 1, ".1": 1, ".py": 1}, synced
    for name, words in (("README.dns", "SSHFP records"), ("COPYING.LIB", "gannet library"),
                        ("NEWS.0", "cormorant roost"), ("ChangeLog.2010", "storm petrels"),
                        ("changelog.1.gz", "Skua archive")):
        read = json.loads(run_cli("read", "--json", docs / name).stdout)
        assert words in read["text"], (name, read)
    page = json.loads(run_cli("read", "--json", docs / "install.1.gz").stdout)
    assert "copy files and set attributes" in page["text"] and page["title"].startswith("install(1)"), page


def test_notes_named_with_a_qualifier_or_in_debians_spelling_are_read_where_their_head_is_text(run_cli, cli_env, docs):
    """Each was left out as of no supported type: cargo's `LICENSE-MIT` (rustup's share/doc), valgrind's
    `README_MISSING_SYSCALL_OR_IOCTL.gz`, gcc's `changelog.libstdc++.gz` (their first lines). One
    that is binary is still left out and counted."""
    (docs / "LICENSE-MIT").write_text("Permission is hereby granted, free of charge, to any\nperson obtaining a copy\n")
    (docs / "README_MISSING_SYSCALL_OR_IOCTL.gz").write_bytes(gzip.compress(
        b"Dealing with missing system call or ioctl wrappers in Valgrind\n" + b"~" * 62 + b"\n"))
    (docs / "changelog.libstdc++.gz").write_bytes(gzip.compress(
        b"2022-08-19  Release Manager\n\n\t* GCC 12.2.0 released.\n"))
    (docs / "LICENSE-BIN").write_bytes(b"\x00\x01\x02 binary \x00" * 40)
    synced = json.loads(run_cli("sync", "--json").stdout)
    assert synced["ingested"] == 4 and synced["failed"] == 0, synced  # a.md and three notes
    assert synced["otherTypes"] == {"": 1}, synced
    for name, words in (("LICENSE-MIT", "free of charge"), ("README_MISSING_SYSCALL_OR_IOCTL.gz", "ioctl wrappers"),
                        ("changelog.libstdc++.gz", "GCC 12.2.0 released")):
        assert words in json.loads(run_cli("read", "--json", docs / name).stdout)["text"], name


def test_notes_a_project_names_in_capitals_are_read_where_their_head_is_text(run_cli, cli_env, docs):
    """libpng's `ANNOUNCE`, libssh2's `RELEASE-NOTES`, groff's `PROBLEMS.gz`, util-linux's
    `v2.35-ReleaseNotes.gz` (their first lines) were left out as of no supported type. One that is
    binary (GNU global's `GTAGS` is not named so: a database in capitals) is left out and counted."""
    (docs / "ANNOUNCE").write_text("Libpng 1.6.39 - November 20, 2022\n\nThis is a public release of libpng.\n")
    (docs / "RELEASE-NOTES").write_text("libssh2 1.10\n\nThis release includes the following changes: agent forwarding\n")
    (docs / "PROBLEMS.gz").write_bytes(gzip.compress(b"This file describes various problems that have been "
                                                     b"encountered in compiling, installing and running groff.\n"))
    (docs / "v2.35-ReleaseNotes.gz").write_bytes(gzip.compress(b"util-linux 2.35 Release Notes\n\nfdisk: wipe signatures\n"))
    (docs / "DATABASE").write_bytes(b"\x00\x01\x02 binary \x00" * 40)
    synced = json.loads(run_cli("sync", "--json").stdout)
    assert synced["ingested"] == 5 and synced["failed"] == 0, synced  # a.md and four notes
    assert synced["otherTypes"] == {"": 1}, synced
    for name, words in (("ANNOUNCE", "public release of libpng"), ("RELEASE-NOTES", "agent forwarding"),
                        ("PROBLEMS.gz", "running groff"), ("v2.35-ReleaseNotes.gz", "wipe signatures")):
        assert words in json.loads(run_cli("read", "--json", docs / name).stdout)["text"], name


def test_a_note_named_on_its_own_that_is_not_text_is_refused_in_one_line(run_cli, cli_env, docs):
    (docs / "README.xyz").write_bytes(b"\x00\x01\x02 binary \x00" * 40)
    done = run_cli("ingest", docs / "README.xyz")
    assert done.returncode != 0 and "does not begin as text" in done.stderr, done
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_note_that_inflates_to_nothing_like_text_is_left_out_and_counted(run_cli, cli_env, docs):
    """A gzip bomb of NUL bytes, an empty file, a stream cut before its text: only a head is looked at,
    none is text. One cut after a head of text is read, and fails as the damaged stream it is."""
    (docs / "README.tun.gz").write_bytes(gzip.compress(bytes(64 << 20)))  # 64 MiB of NUL bytes
    (docs / "Changes.old.gz").write_bytes(gzip.compress(b"Changes in 1.0: the tern.\n" * 50)[:10])
    (docs / "NEWS.0").write_bytes(b"")
    (docs / "README.cut.gz").write_bytes(gzip.compress(b"Changes in 1.0: the tern.\n" * 50)[:30])
    synced = json.loads(run_cli("sync", "--json").stdout)
    assert synced["failed"] == 1 and synced["otherTypes"] == {".gz": 2, ".0": 1}, synced
    said = [line for line in synced["warnings"] if "README.cut.gz" in line]
    assert len(said) == 1 and "\n" not in said[0], synced


def test_naming_many_notes_keeps_nothing_per_distinct_suffix():
    """Whether a note's suffix is a file type (`README.png`) was cached per suffix, and each miss
    built Python's whole table of types anew: a tree of `README.<n>`-like names (a hostile or a
    generated one) kept an entry for each distinct suffix for as long as the process ran."""
    import tracemalloc

    from minirag.ingest.doc_names import named_as

    def kept(count: int, start: int) -> int:
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            for n in range(start, start + count):
                assert named_as(f"README.q{n}x").note
            return tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()

    kept(100, 0)  # the table itself, built once
    assert kept(20_000, 1_000) < 64_000 + 2 * kept(1_000, 100_000)
