"""An attacker who can write under a root swaps a file, and a folder, between the real thing
and a symlink to a secret outside every root while minirag reads them. No byte of the
secret may ever reach the index."""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from pathlib import Path

import pytest
from conftest import write

from minirag.errors import MiniragError
from minirag.results import payload

SECRET = "OUTSIDE-SECRET-7f3a9c"
SWAP_SECONDS = 4.0


def _swap_forever(link: Path, targets: list[Path], stop: threading.Event) -> int:
    """Atomically repoint `link` (a file or folder name) at each target in turn; returns swaps made."""
    swaps, tmp = 0, link.with_name(link.name + ".swap")
    while not stop.is_set():
        for target in targets:
            if target.is_file() and target.name.endswith(".real"):
                # a regular file in place of the link: copy it, then rename over the name
                tmp.write_bytes(target.read_bytes())
            else:
                tmp.unlink(missing_ok=True)
                tmp.symlink_to(target)
            os.replace(tmp, link)
            swaps += 1
    return swaps


@pytest.fixture
def battlefield(tmp_path, docs):
    outside = tmp_path / "outside"
    write(outside / "secret.md", f"# Secret\n\n{SECRET} the payroll of every employee.\n")
    write(outside / "folder" / "page.md", f"# Folder secret\n\n{SECRET} in a folder outside.\n")
    write(docs / "swap.md.real", "# Harmless\n\nA harmless note about gardening.\n")
    write(docs / "inner" / "page.md", "# Inner page\n\nAn inner page about cooking.\n")
    write(docs / "swap.md", "# Harmless\n\nA harmless note about gardening.\n")
    (docs / "folder").symlink_to(docs / "inner")
    return docs, outside


def _secret_rows(app) -> list[str]:
    conn = app.index.conn
    rows = conn.execute("SELECT text FROM chunks UNION ALL SELECT text FROM parents "
                        "UNION ALL SELECT title FROM sources").fetchall()
    return [r[0] for r in rows if SECRET in r[0]]


@pytest.mark.slow
def test_swapping_a_file_and_a_folder_for_outside_links_never_lets_outside_bytes_in(app, battlefield):
    docs, outside = battlefield
    stop = threading.Event()
    swappers = [
        threading.Thread(target=_swap_forever, args=(docs / "swap.md", [docs / "swap.md.real", outside / "secret.md"],
                                                     stop), daemon=True),
        threading.Thread(target=_swap_forever, args=(docs / "folder", [docs / "inner", outside / "folder"], stop),
                         daemon=True),
    ]
    for thread in swappers:
        thread.start()
    ingests = syncs = refused = 0
    deadline = time.monotonic() + SWAP_SECONDS
    try:
        # The race runs for its time and for its rounds, both: on a loaded machine one round had taken
        # the whole time, and the test failed on the count of rounds it had been given no time for.
        while time.monotonic() < deadline or ingests + refused <= 20 or syncs <= 3:
            for path in (docs / "swap.md", docs / "folder" / "page.md"):
                try:
                    app.ingest_file(str(path))
                    ingests += 1
                except MiniragError:
                    refused += 1
            app.sync()
            syncs += 1
            assert not _secret_rows(app)
    finally:
        stop.set()
        for thread in swappers:
            thread.join(10)
    assert not _secret_rows(app)
    assert ingests + refused > 20 and syncs > 3  # the race was really run, many times
    hits = payload(app.query(SECRET, top_k=50))["results"]
    assert all(SECRET not in h["text"] for h in hits)


@pytest.mark.parametrize("swap_in", ["fifo", "link out"])
def test_list_rechecking_a_touched_file_reads_it_as_a_sync_would(app, docs, tmp_path, monkeypatch, swap_in):
    """list hashes a file whose mtime moved; by then the name may be a FIFO (a plain open blocks
    for ever) or a link to a file outside every root (whose bytes it must not read)."""
    import minirag.ingest.listing as listing

    note = write(docs / "note.md", "# Note\n\nA note about gardening.\n")
    app.sync()
    outside = write(tmp_path / "outside" / "same.md", note.read_text())  # same bytes: a hash oracle
    real_walk = listing.walk_roots

    def walk_then_swap(roots, unreadable=None, *args, **kwargs):
        found = list(real_walk(roots, unreadable, *args, **kwargs))
        swapped = note.with_name("swapped")
        if swap_in == "fifo":
            os.mkfifo(swapped)
        else:
            swapped.symlink_to(outside)
        os.replace(swapped, note)
        return [dataclasses.replace(f, mtime_ns=f.mtime_ns + 1) for f in found]  # looks touched

    monkeypatch.setattr(listing, "walk_roots", walk_then_swap)
    answer: dict = {}
    worker = threading.Thread(target=lambda: answer.update(listing=app.list_files()), daemon=True)
    worker.start()
    worker.join(30)
    if worker.is_alive() and swap_in == "fifo":
        with open(note, "wb"):  # release the blocked reader
            pass
    assert not worker.is_alive() and answer, "list_files blocked"
    assert {f.source: f.state for f in answer["listing"].files} == {str(note): "stale"}


_SYS_RENAMEAT2 = {"x86_64": 316, "aarch64": 276}.get(os.uname().machine)
EXCHANGES = 60_000  # at most this many swaps of the root, and for at most SWAP_SECONDS

# A process of its own swaps the root, so the swaps run while this one is inside a read, not between
# the Python bytecodes of one. It stops after EXCHANGES or when told, the root back in its place.
_SWAPPER = """
import ctypes, os, sys
a, b, count, syscall = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
libc = ctypes.CDLL(None, use_errno=True)
os.set_blocking(0, False)
done = 0
def exchange():
    if libc.syscall(syscall, -100, a, -100, b, 2) != 0:  # renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
        raise OSError(ctypes.get_errno(), "renameat2")
while done < count:
    exchange()
    done += 1
    if done % 64 == 0:
        try:
            if sys.stdin.buffer.read(1) is not None:
                break
        except BlockingIOError:
            pass
if done % 2:
    exchange()
    done += 1
print(done)
"""


@pytest.mark.slow
@pytest.mark.skipif(_SYS_RENAMEAT2 is None, reason="renameat2 is a Linux system call (x86_64, aarch64)")
def test_swapping_the_root_itself_for_a_link_outside_never_stores_or_serves_outside_text(app, docs, tmp_path):
    import subprocess
    import sys

    note = write(docs / "note.md", "# Note\n\nA harmless note about gardening.\n")
    app.sync()
    outside = tmp_path / "outside"
    write(outside / "note.md", f"# Note\n\n{SECRET} the payroll of every employee.\n")
    link = tmp_path / "docs-as-link"
    link.symlink_to(outside, target_is_directory=True)
    swapper = subprocess.Popen([sys.executable, "-c", _SWAPPER, str(docs), str(link), str(EXCHANGES),
                                str(_SYS_RENAMEAT2)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    ingests = refused = 0
    deadline = time.monotonic() + SWAP_SECONDS
    try:
        while time.monotonic() < deadline and swapper.poll() is None:
            try:
                app.ingest_file(str(note))
                ingests += 1
            except MiniragError:
                refused += 1
            assert not _secret_rows(app)
    finally:
        swaps = int(swapper.communicate("stop", timeout=30)[0])
    assert docs.is_dir() and not docs.is_symlink() and swaps > 10 and ingests + refused > 5
    print(f"{swaps} swaps, {ingests} ingests, {refused} refused")
    assert not _secret_rows(app)
    assert "gardening" in app.read(str(note)).text
    assert all(SECRET not in h["text"] for h in payload(app.query("payroll employee", top_k=50))["results"])


def _swap_folder_out(folder: Path, outside: Path) -> None:
    """Put a link to `outside` in place of `folder`, in one rename (the folder kept beside it)."""
    link = folder.with_name(folder.name + ".link")
    link.symlink_to(outside, target_is_directory=True)
    folder.rename(folder.with_name(folder.name + ".away"))
    os.replace(link, folder)


def test_a_folder_swapped_for_a_link_out_mid_walk_is_not_listed(app, docs, tmp_path, monkeypatch):
    # The walk resolved a folder, found it inside the root, then listed it by name: a folder swapped
    # for a link out in between had its outside files' names returned by list --ignored (and their
    # suffixes counted in otherTypes). The swap is made at that moment, after the folder is resolved.
    write(docs / ".minignore", "secret-*\n")
    write(docs / "sub" / "page.md", "# Page\n\nA page about cooking.\n")
    app.sync()
    outside = tmp_path / "outside"
    for name in ("secret-payroll.md", "id_rsa.key"):
        write(outside / name, "private\n")
    folder, real_realpath, swapped = docs / "sub", os.path.realpath, []

    def realpath_then_swap(path, *args, **kwargs):
        resolved = real_realpath(path, *args, **kwargs)
        if os.fspath(path) == str(folder) and not swapped:
            _swap_folder_out(folder, outside)
            swapped.append(path)
        return resolved

    monkeypatch.setattr(os.path, "realpath", realpath_then_swap)
    listing = app.list_files(ignored=True)
    monkeypatch.undo()
    assert swapped
    assert not [f.source for f in listing.files if "secret" in f.source or "id_rsa" in f.source]
    assert ".key" not in dict(listing.other_types)


def _exchange_forever(a: Path, b: Path, stop: threading.Event) -> None:
    """Swap the names `a` and `b` in one step each time (renameat2 RENAME_EXCHANGE), until `stop`;
    an even number of times, so each ends where it began."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    done = 0
    while not stop.is_set() or done % 2:
        if libc.syscall(_SYS_RENAMEAT2, -100, os.fsencode(a), -100, os.fsencode(b), 2) != 0:
            raise OSError(ctypes.get_errno(), "renameat2")
        done += 1


@pytest.mark.slow
@pytest.mark.skipif(_SYS_RENAMEAT2 is None, reason="renameat2 is a Linux system call (x86_64, aarch64)")
def test_syncing_and_listing_while_a_folder_flips_to_a_link_out_never_fails_nor_leaks(app, docs, tmp_path):
    # os.path.realpath itself raised (EINVAL from readlink) when a name stopped being a link between its
    # lstat and its readlink: the whole sync or list failed ("cannot use .../sub: Invalid argument").
    write(docs / ".minignore", "secret-*\n")
    write(docs / "sub" / "page.md", "# Page\n\nA page about cooking.\n")
    outside = tmp_path / "outside"
    write(outside / "secret-payroll.md", "private\n")
    app.sync()
    (docs / ".sub-out").symlink_to(outside, target_is_directory=True)  # a dot-folder: never walked itself
    stop = threading.Event()
    swapper = threading.Thread(target=_exchange_forever, args=(docs / "sub", docs / ".sub-out", stop), daemon=True)
    swapper.start()
    rounds, leaked = 0, []
    deadline = time.monotonic() + SWAP_SECONDS
    try:
        # The race runs for its time and for its rounds, both: on a loaded machine one round had taken
        # the whole time, and the test failed on the count of rounds it had been given no time for.
        while time.monotonic() < deadline or rounds <= 3:
            listing = app.list_files(ignored=True)
            leaked += [f.source for f in listing.files if "secret" in f.source]
            app.sync()
            rounds += 1
    finally:
        stop.set()
        swapper.join(10)
    assert rounds > 3 and not leaked
    assert not _secret_rows(app)
