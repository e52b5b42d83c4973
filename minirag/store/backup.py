"""`minirag backup DEST`: a consistent copy through SQLite's online backup API.

Safe while a server reads or a sync writes: the copy is made in one backup step,
inside one read transaction, so it holds one snapshot that a WAL writer never
disturbs. A copy in several steps restarts whenever another connection commits,
and under a sync committing often one of a few tens of MB never finished.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from minirag.errors import DamagedIndex, FileAccessError, IndexUnavailable, InvalidArgument
from minirag.store import connection as db
from minirag.store import health, held_files, partials, wal
from minirag.store.lock import LOCK_SUFFIX

SQLITE_HEADER = b"SQLite format 3\x00"
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")  # what SQLite keeps beside a database it writes
# Files SQLite and minirag keep beside an index: a copy renamed onto one of them is read as
# part of the index (a -wal) or breaks it.
COMPANION_SUFFIXES = (*SQLITE_SIDE_FILES, LOCK_SUFFIX)


def destination(source: Path, dest: str | Path) -> Path:
    """The file `dest` names for a backup of `source`, refused where writing it would destroy
    something: only a new name, an empty file or an earlier SQLite backup is ever replaced."""
    if not str(dest).strip():
        raise InvalidArgument("the backup destination is empty; give a file or a folder")
    target = Path(os.path.abspath(Path(dest).expanduser()))
    if target.is_dir():
        target = target / source.name
    elif str(dest).endswith(("/", os.sep)):  # a trailing separator names a folder, even one not made yet
        raise InvalidArgument(f"the backup folder {target} does not exist; create it first")
    if not target.parent.is_dir():
        raise InvalidArgument(f"the backup folder {target.parent} does not exist; create it first")
    target = target.parent.resolve() / target.name  # the folder's real path; the name itself is not followed
    index = source.resolve()
    # By device and inode, not by path: a bind mount (or a hard link) names the index's folder or
    # file by another path, and a rename there would put the copy in place of the live index.
    beside_index = os.path.samefile(target.parent, index.parent)
    if ((beside_index and target.name == index.name)
            or (os.path.isfile(target) and not target.is_symlink() and os.path.samefile(target, index))):
        raise InvalidArgument("backup destination is the index itself")
    if beside_index and target.name in {index.name + suffix for suffix in COMPANION_SUFFIXES}:
        raise InvalidArgument(f"{target} is one of the index's own files; choose another name")
    if os.path.lexists(target):
        if target.is_symlink():
            raise InvalidArgument(f"{target} is a symbolic link; name the backup file itself")
        if not target.is_file():
            raise InvalidArgument(f"{target} exists and is not a regular file; choose another name")
        # Opened without waiting nor following a link, and judged by what was opened: a pipe or a
        # link put in its place since the checks above (a folder others write) would block the read.
        with held_files.reading(target, os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)) as fd:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise InvalidArgument(f"{target} exists and is not a regular file; choose another name")
            head = os.pread(fd, len(SQLITE_HEADER), 0)
        if head and head != SQLITE_HEADER:
            raise InvalidArgument(f"{target} exists and is not an SQLite database; a backup only replaces "
                                  "an earlier backup, so choose another name")
        # A backup is written without a WAL: a -wal or -shm beside DEST means a database in use
        # (another index), whose WAL would be replayed into the copy renamed over it.
        if any(os.path.lexists(f"{target}{suffix}") for suffix in SQLITE_SIDE_FILES):
            raise InvalidArgument(f"{target} looks like a database in use (it has a -wal, -shm or -journal "
                                  "beside it), not an earlier backup; choose another name")
    return target


@dataclass(frozen=True, slots=True)
class BackupResult:
    source: str
    backup: str  # the copy's path
    bytes: int
    integrity: str  # integrity_check's answer: "ok"
    moment: Moment  # the one moment of the index the copy holds
    replaced: bool = False  # whether an earlier backup at `backup` was replaced by this one


@dataclass(frozen=True, slots=True)
class Moment:
    taken_at: str  # UTC, ISO 8601: when the copy's snapshot was read
    generation: int  # the index's write generation then (meta `generation`, docs/inspect.md)
    sources: int
    chunks: int


def backup(source: Path, dest: str | Path) -> BackupResult:
    source = Path(source)
    if not source.exists():
        raise IndexUnavailable(f"no index at {source}; run `minirag sync` first")
    wal.refuse_foreign(source, thorough=False)  # a copy read through another file's -wal copies that file
    if db.unread_wal(source) and _reads_immutable(source):  # the file alone, without those writes
        raise IndexUnavailable(
            f"{source}-wal holds writes not yet in the index file, and without its -shm on this read-only "
            "folder they cannot be read, so a backup would miss them; copy index.db and index.db-wal "
            "together to a writable folder and back up that copy, or back up where a writer runs")
    target = destination(source, dest)
    tmp, held = _partial(source, target)
    # The copy and the files SQLite keeps beside it while writing it.
    leftovers = [tmp, *(tmp.with_name(tmp.name + suffix) for suffix in SQLITE_SIDE_FILES)]
    try:
        try:
            ok, moment = _copy_whole(source, tmp, target)
        except db.DatabaseError:
            wal.refuse_foreign(source, thorough=True)  # what fails may be only the -wal beside it
            raise
        if ok != "ok":
            wal.refuse_foreign(source, thorough=True)
            # The copy is the index page for page: what fails in it fails in the index.
            raise DamagedIndex(f"the index {source} is damaged (integrity_check of its copy: {ok}); nothing was "
                               "backed up: restore an earlier backup, or delete it and run `minirag sync` to "
                               "rebuild it")
        replaced = target.exists()
        tmp.replace(target)
    except BaseException:
        for path in leftovers:
            path.unlink(missing_ok=True)  # never leave a half-written copy behind
        raise
    finally:
        os.close(held)  # after the rename or the removal: never a partial unlocked while it exists
    return BackupResult(str(source), str(target), target.stat().st_size, ok, moment, replaced)


def _partial(source: Path, target: Path) -> tuple[Path, int]:
    """A new, empty file beside `target` for the copy, of this backup alone: two backups to one DEST
    at once (cron and a hand) each write their own and the last rename wins, where one shared name
    let each delete or rename the other's half-written copy. As private as the index itself, and
    locked while this backup lives (store/partials.py), so the next backup can tell it from the
    partial of a backup that was killed, and removes only those."""
    partials.sweep(target)
    try:
        return partials.create(target, source.stat().st_mode)
    except OSError as exc:
        raise FileAccessError(f"cannot write the backup {target} ({exc.strerror or exc}); choose a writable "
                              "folder with room (nothing was left behind)") from None


_COPY_TRIES = 3


def _copy_whole(source: Path, tmp: Path, target: Path) -> tuple[str, Moment]:
    """`_copy`, made again where it read the index `immutable` (no -wal and -shm beside it, which a
    read-only open does not make) and a writer elsewhere changed the file meanwhile: SQLite read it
    as if it never changed, so the copy may mix pages of two versions."""
    for _ in range(_COPY_TRIES):
        immutable = _reads_immutable(source)
        before = db.identity(source, contents=True)
        try:
            result = _copy(source, tmp, target, immutable=immutable)
        except db.DatabaseError:
            if immutable and db.identity(source, contents=True) != before:
                continue
            raise
        if not immutable or db.identity(source, contents=True) == before:
            return result
    raise IndexUnavailable(f"the index {source} changed each of the {_COPY_TRIES} times it was copied (a writer "
                           "is busy with it); retry the backup once that writer is done (nothing was backed up)")


def _reads_immutable(source: Path) -> bool:
    """Whether the backup reads the index `immutable`: as any read-only open does (read_only_uri), but
    beside a -wal whose -shm is gone on a folder it may write, it reads the -wal's commits, making the
    -shm SQLite needs for that: a copy without them would be no backup of the index."""
    return db.opens_immutable(source) and (not os.path.exists(f"{source}-wal") or db.cannot_change(source))


def _copy(source: Path, tmp: Path, target: Path, *, immutable: bool) -> tuple[str, Moment]:
    """Copy through the backup API into `tmp`; returns the copy's integrity_check answer and what it holds."""
    src = db.connect(source, read_only=True, immutable=immutable)
    dst = None
    try:
        try:
            dst = db.sqlite3.connect(str(tmp))
            taken_at = datetime.now(UTC).isoformat(timespec="seconds")
            src.backup(dst, pages=-1)
            dst.execute("PRAGMA journal_mode = DELETE")  # the copy is one self-contained file
            answer = _integrity(dst)
            return answer, _moment(dst, taken_at) if answer == "ok" else Moment(taken_at, 0, 0, 0)
        except db.sqlite3.OperationalError as exc:
            # The index is only read here; writing is the destination's part, and these
            # are write failures (EFBIG past a file-size limit surfaces as a disk I/O error).
            text = str(exc).lower()
            if "full" in text or "no space" in text or "too large" in text:
                raise FileAccessError(f"no room to write the backup {target} ({exc}); free space on that disk "
                                      "and retry (nothing was left behind)") from None
            if "disk i/o error" in text:
                raise FileAccessError(f"cannot write the backup {target} ({exc}: is that disk full or failing?); "
                                      "nothing was left behind") from None
            if "readonly" in text or "read-only" in text or "unable to open" in text:
                raise FileAccessError(f"cannot write the backup {target} ({exc}); choose a writable "
                                      "folder (nothing was left behind)") from None
            raise
        finally:
            if dst is not None:
                dst.close()
    finally:
        src.close()


def _integrity(dst: db.Connection) -> str:
    """integrity_check's answer on the copy; a page it cannot even parse is its answer too."""
    try:
        return health.answer(dst, "integrity_check")
    except db.OperationalError:
        raise
    except db.DatabaseError as exc:
        return str(exc)


def _moment(dst: db.Connection, taken_at: str) -> Moment:
    generation, sources, chunks = dst.execute(
        "SELECT (SELECT value FROM meta WHERE key = 'generation'), (SELECT COUNT(*) FROM sources), "
        "(SELECT COUNT(*) FROM chunks)").fetchone()
    return Moment(taken_at, int(generation or 0), sources, chunks)
