"""Connection: the SQLite driver, sqlite-vec loading, pragmas, and what SQLite errors mean to a user.

Driver choice: `sqlean.py` first. It bundles SQLite 3.50 with FTS5 and extension
loading on Linux, macOS and Windows wheels, so every install runs the same SQL
engine; many Python builds (pyenv, python.org macOS, this machine's) ship a
`sqlite3` without `enable_load_extension`, which cannot load sqlite-vec at all.
The standard library driver is the fallback when sqlean is not importable.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import logging
import os
import re
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from minirag import json_text
from minirag.errors import DamagedIndex, FileAccessError, IndexUnavailable
from minirag.store import held_files
from minirag.store.planted import planted_object

try:  # see the module docstring for why sqlean comes first
    import sqlean as sqlite3
except ImportError:  # pragma: no cover - exercised only where sqlean is absent
    import sqlite3

log = logging.getLogger(__name__)

Connection = Any  # sqlean.Connection or sqlite3.Connection: the same DB-API surface
DatabaseError = sqlite3.DatabaseError
OperationalError = sqlite3.OperationalError
IntegrityError = sqlite3.IntegrityError

BUSY_TIMEOUT_MS = 10_000
# SQLite's result codes that say what an error is (an extended code keeps its primary in the low byte):
_BUSY_CODES = (5, 6)  # SQLITE_BUSY, SQLITE_LOCKED: another connection holds a lock now
_DAMAGE_CODES = (11, 26)  # SQLITE_CORRUPT, SQLITE_NOTADB


def sqlite_version() -> str:
    return sqlite3.sqlite_version


INDEX_FOLDER_GITIGNORE = ".gitignore"  # what make_index_folder writes in a `.minirag` folder it makes
INDEX_FOLDER_GITIGNORE_TEXT = b"# minirag's index: nothing here belongs in version control\n*\n"


def make_index_folder(db_path: Path | str) -> bool:
    """The folder the index goes in, made if missing; whether it was made here. minirag's own
    `.minirag` folder, made inside a document root, gets a `.gitignore` of `*`, so git (and the tools
    that honour it) leave the index out; a folder that DB_PATH names is the user's own and is left as it is."""
    from minirag.config import INDEX_DIRNAME

    folder = Path(db_path).parent
    if folder.name == INDEX_DIRNAME:
        try:
            folder.mkdir(parents=True)  # not exist_ok: the .gitignore goes only in a folder made here
        except FileExistsError:
            pass
        else:
            with contextlib.suppress(OSError):  # only a convenience: the index works without it
                write_new_file(folder, INDEX_FOLDER_GITIGNORE, INDEX_FOLDER_GITIGNORE_TEXT)
            return True
    if folder.is_file():  # mkdir would say only "File exists"
        raise FileAccessError(f"the index's folder {folder} is a file; point DB_PATH at a path in a folder")
    try:
        folder.mkdir(parents=True)
    except FileExistsError:
        return False
    return True


def write_new_file(folder: Path, name: str, data: bytes) -> None:
    """`folder/name`, made here and written; OSError where either is a link or `name` exists. The
    root holding `folder` may be writable by others, who could put a link to a user's folder or file
    in place of either between the folder's making and this."""
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | nofollow | getattr(os, "O_CLOEXEC", 0)
    if os.open not in os.supports_dir_fd or not nofollow:  # Windows: no dir_fd, and O_EXCL makes a file of its own
        fd = os.open(folder / name, flags, 0o644)
    else:
        where = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | nofollow | getattr(os, "O_CLOEXEC", 0))
        try:
            fd = os.open(name, flags, 0o644, dir_fd=where)
        finally:
            os.close(where)
    with os.fdopen(fd, "wb") as out:
        out.write(data)


@functools.cache
def vec0_path() -> str:
    """The sqlite-vec extension shipped in the sqlite_vec package, as sqlite_vec.loadable_path() names it
    (no suffix: SQLite adds the platform's). Found without importing the package, whose __init__
    imports numpy wherever numpy is installed: a command that never compares vectors loads no numpy."""
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        raise IndexUnavailable("the sqlite-vec package is not installed; `pip install sqlite-vec`")
    return os.path.join(next(iter(spec.submodule_search_locations)), "vec0")


def connect(path: Path | str, *, read_only: bool = False, auto_checkpoint: bool = True,
            immutable: bool | None = None) -> Connection:
    """Open the index with sqlite-vec loaded and our pragmas set. Does not migrate.

    `read_only` opens it as read_only_uri says (`immutable` as there): it makes no file.

    `auto_checkpoint` False turns SQLite's own checkpoint-every-1000-pages off on
    this connection, for a file whose checkpoints Litestream runs (store/checkpoint.py).
    """
    if (odd := odd_side_file(path)) is not None:
        raise IndexUnavailable(odd)
    if read_only:
        conn = _read_only_connection(Path(path), immutable)
    else:
        make_index_folder(path)
        conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
    try:
        conn.enable_load_extension(True)
        conn.load_extension(vec0_path())
        conn.enable_load_extension(False)
    except AttributeError:
        conn.close()
        raise IndexUnavailable(
            "this Python's sqlite3 cannot load extensions and sqlean.py is not installed; "
            "`pip install sqlean.py`"
        ) from None
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    # The schema is the file's, and the file may have come with a cloned folder: what it declares
    # (a CHECK, a default, an index's expression) runs only functions without side effects.
    conn.execute("PRAGMA trusted_schema = OFF")
    if planted := planted_object(conn):
        conn.close()
        what, name = planted
        raise IndexUnavailable(
            f"{path} holds {what} minirag never makes ({name}): something other than minirag changed it, "
            f"or it came with the folder; refusing to use it: delete it, and minirag builds the index anew")
    if not read_only:
        # Checked before anything is written (even the journal mode, which is in the file's header).
        if (another := another_programs(conn, path)) is not None:
            conn.close()
            raise IndexUnavailable(f"{another}; refusing to write to it: {ANOTHER_PROGRAMS_FIX}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        if not auto_checkpoint:
            conn.execute("PRAGMA wal_autocheckpoint = 0")
    held_files.hold(path)
    return conn


def _read_only_connection(path: Path, immutable: bool | None) -> Connection:
    """A read-only connection that has read the schema, opened again where a writer overtook the open:
    read_only_uri decides by the -wal and -shm beside the file, and a writer's last connection closing
    between that and the first read removes them (SQLite then cannot open the -shm it was told to
    read through), or a writer starting makes them beside a file opened as if none would come."""
    for tries_left in reversed(range(2)):
        deciding = opens_immutable(path)
        conn = sqlite3.connect(read_only_uri(path, immutable=immutable), uri=True, check_same_thread=False,
                               isolation_level=None)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except DatabaseError:
            conn.close()
            if immutable is not None or not tries_left or opens_immutable(path) == deciding:
                raise
    raise AssertionError("unreachable")


ANOTHER_PROGRAMS_FIX = "give DB_PATH a file of its own"


def another_programs(conn: Connection, path: Path | str) -> str | None:
    """What `path` is when it is another program's SQLite database, or None."""
    if not (foreign := foreign_tables(conn)):
        return None
    return (f"{path} is an SQLite database but not a minirag index (it holds {', '.join(foreign[:3])}"
            f"{', ...' if len(foreign) > 3 else ''})")


def foreign_tables(conn: Connection) -> list[str]:
    """The tables of a database minirag never made (it has no `migrations` table): another
    program's file. Empty for a minirag index and for an empty file."""
    names = [name for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite%' ORDER BY name")]
    return [] if _minirag_made(conn, names) else names


def _minirag_made(conn: Connection, names: list[str]) -> bool:
    """minirag's first migration makes `meta` and records itself in `migrations (id, name,
    applied_at)` in one transaction; another program's `migrations` (a web framework's) differs."""
    if not {"migrations", "meta"} <= set(names):
        return False
    columns = {row[1] for row in conn.execute("PRAGMA table_info(migrations)")}
    return {"id", "name", "applied_at"} <= columns


def read_only_uri(path: Path, *, immutable: bool | None = None) -> str:
    """A `file:` URI that opens exactly `path` read-only, whatever characters its folders hold, and
    that makes no file beside it: read-only mode writes nothing (docs/operations.md).

    Every character outside the unreserved set is percent-encoded, so `?`, `#` or
    `%41` in a folder name stay part of the name. `mode=ro` alone is not enough: on a
    WAL index SQLite makes the -wal and -shm it reads through (O_CREAT) wherever the
    folder lets it, and a read-only connection cannot remove them on closing. So:

    - both beside it (a live writer's, or those of a writer killed after its commit):
      read through them, and `readonly_shm` maps the -shm without writing it. SQLite's
      read marks and locks still keep each read transaction one whole snapshot while
      the writer commits and checkpoints, and commits still in the -wal are read;
    - otherwise (`opens_immutable`): `immutable`, the file alone, with no -shm and no
      locks. SQLite then caches pages as if the file never changed, so the Index
      watches such a file's stat and reopens it once a writer elsewhere changes it,
      and a read a checkpoint overtook is read again (`identity(..., contents=True)`).

    `immutable` given: that open whatever is beside the file (wal.py's checks); False may
    then make a -shm beside a -wal that has none, which only a writer's checks may do.
    """
    absolute = Path(os.path.abspath(path)).as_posix()
    if not absolute.startswith("/"):  # a Windows drive path: file:///C:/...
        absolute = "/" + absolute
    uri = "file:" + quote(absolute, safe="/:") + "?mode=ro"
    if immutable is None:
        immutable = opens_immutable(Path(path))
    if immutable:
        return uri + "&immutable=1"
    return uri + "&readonly_shm=1" if _side_files_present(Path(path)) else uri


def _side_files_present(path: Path) -> bool:
    return all(os.path.exists(f"{os.path.abspath(path)}{suffix}") for suffix in ("-wal", "-shm"))


def opens_immutable(path: Path) -> bool:
    """Whether a read-only connection to `path` is opened `immutable` (read_only_uri): unless both its
    -wal and -shm are there to read through, any other open would make them."""
    return not _side_files_present(path)


def unread_wal(path: Path) -> bool:
    """Whether an `immutable` open of `path` leaves writes unread: a -wal beside it, not empty,
    whose -shm is gone (a copy or snapshot of a live index), which a read-only open cannot read
    without making a -shm."""
    wal = f"{os.path.abspath(path)}-wal"
    return opens_immutable(path) and os.path.exists(wal) and os.path.getsize(wal) > 0


READ_TRIES = 3


def read_whole(path: Path, read: Callable[[], Any]) -> Any:
    """`read()`, which reads `path` through read-only connections of its own, run again where it
    opened the index `immutable` and a writer elsewhere changed the file meanwhile: SQLite read
    the file as if it never changed, so a checkpoint landing mid-read may have mixed pages of two
    versions (an error, or an answer from both). IndexUnavailable where it changed every time."""
    for _ in range(READ_TRIES):
        immutable = opens_immutable(path)
        before = identity(path, contents=True)
        try:
            result = read()
        except DatabaseError:
            if immutable and identity(path, contents=True) != before:
                continue
            raise
        if not immutable or identity(path, contents=True) == before:
            return result
    raise IndexUnavailable(f"the index {path} changed each of the {READ_TRIES} times it was read (a writer is "
                           "busy with it); retry once that writer is done")


def cannot_change(path: Path) -> bool:
    folder = Path(os.path.abspath(path)).parent
    try:
        if os.statvfs(folder).f_flag & getattr(os, "ST_RDONLY", 1):
            return True
    except (AttributeError, OSError):
        pass  # no statvfs (Windows), or the folder is gone: decide by access alone
    return not os.access(folder, os.W_OK)


def identity(path: Path, *, contents: bool = False) -> tuple | None:
    """(device, inode) of the file at `path`, or None when there is none.

    `contents`: also its size and mtime and whether a -wal is beside it, which
    change with any write from anywhere (what an `immutable` reader must watch).
    """
    try:
        st = os.stat(path)
    except OSError:
        return None
    if contents:
        return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, os.path.exists(f"{os.path.abspath(path)}-wal")
    return st.st_dev, st.st_ino


def other_names(path: Path | str) -> str | None:
    """Why the index at `path` may not be written when its file has other names (hard links), with
    what to do; None when it has one, or is not there yet. Reading it through any name stays safe."""
    problem = other_names_problem(path)
    return None if problem is None else f"{problem}; refusing to write to it: {other_names_fix(path)}"


def other_names_problem(path: Path | str) -> str | None:
    """That the index's file has other names, or None. SQLite keeps a database's -wal and -shm beside
    the name it was opened by, and the sync lock is beside that name too, so two writers through two
    names share neither: each checkpoints its own -wal over pages the other wrote (a `cp -al` copy of
    the index's folder, synced beside the original, damaged both)."""
    try:
        links = os.stat(path).st_nlink
    except OSError:
        return None
    if links <= 1:
        return None
    return (f"the index {path} is one file under {links} names (hard links): SQLite keeps its journal and "
            "minirag its sync lock beside each name, so writes through two names damage it")


def other_names_fix(path: Path | str) -> str:
    return (f"remove its other names (`find / -xdev -samefile {path}` lists them), or copy it with "
            "`minirag backup`; reading it is fine")


def stored_value(key: str, raw: str, parse: Callable[[str], Any]) -> Any:
    """`parse(raw)`, a value the index keeps in its meta table. One that does not parse was changed
    outside minirag: a DatabaseError SQLite's way ("database corrupt"), which index_error turns into
    DamagedIndex with what to do, where the bare ValueError was an internal error."""
    try:
        return parse(raw)
    except (ValueError, TypeError, AttributeError):
        raise DatabaseError(f"database corrupt: its meta value {key!r} is {raw[:60]!r}") from None


Kind = type | tuple[type, ...]
TEXT: Kind = str
INT: Kind = int
INT_OR_NULL: Kind = (int, type(None))
ANY: Kind = object


def stored_row(row: Sequence[Any], kinds: Sequence[Kind], table: str) -> tuple[Any, ...]:
    """`row` as read from `table`, each value of the Python type its column holds (`kinds`). SQLite
    keeps any value in any column (a blob in a TEXT one, text in an INTEGER one); one of another
    type was written outside minirag (an index someone else made), and a read meeting it said 'internal
    error: TypeError ... please report it'. SQLite's corruption error instead, as stored_value's."""
    if all(map(isinstance, row, kinds)):  # in C: the rows of a 100,000-file `list` go through here
        return tuple(row)
    for value, kind in zip(row, kinds, strict=True):
        if not isinstance(value, kind):
            head = value[:40] if isinstance(value, str | bytes) else value  # never the repr of a whole blob
            raise DatabaseError(f"database corrupt: its {table} table holds a {type(value).__name__} "
                                f"({head!r}) where minirag writes {_kind_name(kind)}")
    return tuple(row)


def _kind_name(kind: Kind) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join("NULL" if k is type(None) else {str: "text", int: "an integer"}.get(k, k.__name__)
                       for k in kinds)


def json_object(raw: str) -> dict:
    """A meta value that holds a JSON object."""
    value = json_text.loads(raw)
    if not isinstance(value, dict):
        raise ValueError(f"not a JSON object: {raw[:60]!r}")
    return value


def json_counts(raw: str) -> dict[str, int]:
    """A meta value that holds a JSON object of counts."""
    counts = json_object(raw)
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in counts.values()):
        raise ValueError(f"not counts: {raw[:60]!r}")
    return counts


def index_error(exc: BaseException, path: Path) -> IndexUnavailable:
    """A SQLite (or file system) error on the index as the error a user sees: DamagedIndex when the
    file is corrupt, else IndexUnavailable; its message says what it means and what to do."""
    damaged = _is_damage(exc) and not _names_another_file(exc, path)
    return (DamagedIndex if damaged else IndexUnavailable)(explain(exc, path))


_SQLITE_HEADER = b"SQLite format 3\x00"


def not_sqlite(path: Path | str) -> bool:
    """Whether `path` is a file whose first bytes are not SQLite's header, or an empty one named as a
    document: another file DB_PATH names by mistake, which is no index to restore nor to delete."""
    try:
        with held_files.reading(path, os.O_NONBLOCK) as fd:  # a FIFO put in its place must not block the read
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return False
            head = os.pread(fd, len(_SQLITE_HEADER), 0)
    except OSError:
        return False
    if not head:  # SQLite makes its database in an empty file, unless the file's name says it is a document
        from minirag.ingest.scan import name_not_read

        return name_not_read(os.path.basename(path)) is None
    return not _SQLITE_HEADER.startswith(head)  # a file cut inside the header is a damaged one


NOT_SQLITE_FIX = ("point DB_PATH at the index file, or at a path with no file yet to make one there; this file "
                  "was left as it is (were it an index, its start is overwritten: restore it from a backup)")


def not_sqlite_problem(path: Path | str) -> str:
    return f"DB_PATH {path} is not a SQLite database, so no minirag index"


def not_sqlite_error(path: Path | str) -> IndexUnavailable:
    return IndexUnavailable(f"{not_sqlite_problem(path)}; {NOT_SQLITE_FIX}")


def _names_another_file(exc: BaseException, path: Path) -> bool:
    return "not a database" in str(exc).lower() and not_sqlite(path)


def _is_damage(exc: BaseException) -> bool:
    """Whether SQLite says the file is corrupt (malformed, or no database at all), or a
    write broke a constraint: minirag's own writes keep every one, so the tables were changed outside
    it (a keyword row or vector left behind by a chunk deleted by hand holds the id SQLite reuses);
    or a value or table is of a kind minirag never writes (text not UTF-8, a table without a column
    minirag makes, a keyword table in a format FTS5 does not read)."""
    lowered = str(exc).lower()
    return (isinstance(exc, IntegrityError) or "malformed" in lowered or "not a database" in lowered
            or _not_utf8(str(exc)) is not None or _FTS5_FORMAT in lowered or _OTHER_SHAPE.search(lowered) is not None
            or "database corrupt" in lowered or (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF in _DAMAGE_CODES
            # sqlite-vec's own words for a vector page it cannot read (its SQLite code says only "error")
            or ("blob" in lowered and "read error" in lowered))



# Python's words for a TEXT value whose bytes are not UTF-8: SQLite stores whatever bytes it is given.
_NOT_UTF8 = re.compile(r"Could not decode to UTF-8 column '(.*?)' with text '(.*)'", re.DOTALL)
# FTS5's words for a format version in its config table that it does not read ("- run 'rebuild'" after them).
_FTS5_FORMAT = "invalid fts5 file format"
# SQLite's words for a column minirag's SQL names that its table lacks: the SQL names only the columns
# the migrations make (a read-only open takes only the schema versions whose reads they all serve).
_OTHER_SHAPE = re.compile(r"no such column|has no column named")


def _not_utf8(text: str) -> str | None:
    """A read's decode error said as the damage it is (minirag writes only UTF-8), or None."""
    found = _NOT_UTF8.match(text)
    if found is None:
        return None
    column, head = found.groups()
    return f"database corrupt: its column {column!r} holds text that is not UTF-8 ({head[:40]!r})"


def explain(exc: BaseException, path: Path) -> str:
    """What a SQLite (or file system) error on the index means, and what to do, in one line."""
    text = str(exc)
    lowered = text.lower()
    if isinstance(exc, IntegrityError):
        text = f"its tables disagree: {text}; `minirag doctor` names how"
    text = _not_utf8(text) or text
    if _OTHER_SHAPE.search(lowered):
        text = f"its tables are not the ones minirag makes: {text}"
    if _FTS5_FORMAT in lowered:  # FTS5's own remedy is a command no minirag user runs
        text = f"its keyword table: {text.split(' - run ')[0]}"
    if _names_another_file(exc, path):
        return str(not_sqlite_error(path))
    if _is_damage(exc):
        return (f"the index {path} is damaged ({text}); restore it from a backup (`minirag backup` makes "
                "them), or delete it and run `minirag sync` to rebuild it")
    if ("disk is full" in lowered or "no space" in lowered or "file too large" in lowered
            or (("disk i/o error" in lowered or _vector_write_failed(lowered)) and _disk_is_full(path))):
        if (temp := _full_temp_folder(path)) is not None:
            folder, named_by = temp
            variable = "SQLITE_TMPDIR" if named_by.startswith("SQLITE_TMPDIR") else "TMPDIR"
            return (f"no room for SQLite's temporary files in {folder}, the folder {named_by} ({text}); the "
                    f"index's own disk has room: free space there, or point {variable} at a folder with room, "
                    "and retry (the write was rolled back; nothing half-written was kept)")
        return (f"no room to write the index {path} ({text}); free disk space and retry "
                "(the write was rolled back; nothing half-written was kept)")
    limit = _file_size_limit_reached(path)
    if limit is not None:
        # SQLite and sqlite-vec report EFBIG as "disk I/O error" or a failed blob write.
        return (f"no room to write the index {path}: it reached this process's file size limit ({limit} bytes, "
                "`ulimit -f`); raise the limit and retry (the write was rolled back; nothing half-written was kept)")
    if "readonly database" in lowered or "read-only file system" in lowered:
        return (f"the index {path} cannot be written ({text}); use --read-only (MINIRAG_READ_ONLY=1) to "
                "search it, or point DB_PATH at a writable location")
    if "unable to open" in lowered and (linked := _linked_side_file(path)) is not None:
        return (f"cannot open the index {path}: the file SQLite keeps beside it, {linked} is a symbolic link, "
                "which SQLite does not follow (nor write through); remove the link")
    if "unable to open" in lowered and (unreadable := _unreadable_side_file(path)) is not None:
        return (f"cannot open the index {path}: {unreadable}, which SQLite reads with it, cannot be read by this "
                "user (its owner or mode); give this user read access to it, or read a copy `minirag backup` made")
    if "unable to open" in lowered and _on_read_only_file_system(path):
        return (f"the index {path} is on a read-only file system, where it cannot be opened for writing; "
                "use --read-only (MINIRAG_READ_ONLY=1) to search it, or point DB_PATH at a writable location")
    if "unable to open" in lowered or isinstance(exc, OSError):
        return (f"cannot open the index {path} ({text}); check that its folder exists and that this user "
                "may read it (and write it, unless --read-only)")
    if is_busy(exc):
        return f"the index {path} is busy: another process held its write lock too long ({text}); retry"
    if "disk i/o error" in lowered:
        return (f"the disk under the index {path} failed ({text}); what was committed before is kept (in its "
                "-wal when the file could not take it); check the disk (`dmesg`), then run `minirag doctor`")
    return f"the index {path} failed: {type(exc).__name__}: {text}"


def _vector_write_failed(lowered: str) -> bool:
    """sqlite-vec's words for a vector it could not write: its SQLite code says only "error", so a
    full disk under it is told apart by the disk."""
    return ("could not write" in lowered and "vector" in lowered) or "could not insert a new vector" in lowered


def odd_side_file(path: Path | str) -> str | None:
    """Why the index, or a file SQLite keeps beside it (-wal, -shm, -journal), that is no regular file
    (a FIFO, a socket, a device, a folder) stops the index being opened, with what to do; None when
    none is. SQLite opens each as a file, and a FIFO's open or read waited for a writer inside its C
    code, where no signal reaches: every command hung, and so did a server whose index was renamed
    over by one. A side file that is a link is _linked_side_file's (SQLite refuses it)."""
    index = os.path.abspath(path)
    try:
        mode = os.stat(index).st_mode  # DB_PATH may name a link (the user's own): where it leads
    except (OSError, ValueError):
        mode = None  # none yet (or ":memory:")
    if mode is not None and not stat.S_ISREG(mode):
        return (f"the index {index} is {_file_kind(mode)} now, not a file (something other than minirag put it "
                "there); refusing to open it: put the index file back, or name another with DB_PATH")
    for suffix in ("-wal", "-shm", "-journal"):
        side = f"{index}{suffix}"
        try:
            mode = os.lstat(side).st_mode
        except OSError:
            continue
        if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
            return (f"{side} is {_file_kind(mode)}, where SQLite keeps a file of the index's (something other than "
                    "minirag put it there); refusing to open the index: move it aside, then retry")
    return None


def _file_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (a named pipe)"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device"


def _linked_side_file(path: Path | str) -> str | None:
    """A file SQLite keeps beside the index (-wal, -shm, -journal) that is a symbolic link, or None:
    SQLite opens those without following a link, and says only 'unable to open database file'."""
    for suffix in ("-wal", "-shm", "-journal"):
        side = f"{os.path.abspath(path)}{suffix}"
        if os.path.islink(side):
            return side
    return None


def _unreadable_side_file(path: Path | str) -> str | None:
    """The -wal or -shm beside the index that this user may not read, or None: a read-only open reads
    through both where both are there, and SQLite says only 'unable to open database file'."""
    for suffix in ("-wal", "-shm"):
        side = f"{os.path.abspath(path)}{suffix}"
        if os.path.exists(side) and not os.access(side, os.R_OK):
            return side
    return None


def _on_read_only_file_system(path: Path) -> bool:
    """Whether the index's folder lies on a file system mounted read-only."""
    try:
        return bool(os.statvfs(Path(os.path.abspath(path)).parent).f_flag & os.ST_RDONLY)
    except (AttributeError, OSError):  # no statvfs (Windows), or the folder is gone
        return False


def _disk_is_full(path: Path) -> bool:
    """Whether the index's disk has (all but) no room left: SQLite reports a full disk met while
    growing the -shm as a bare "disk I/O error"."""
    return _no_room(Path(os.path.abspath(path)).parent)


def _no_room(folder: Path | str) -> bool:
    try:
        disk = os.statvfs(folder)
    except (AttributeError, OSError):  # no statvfs (Windows), or the folder is gone
        return False
    return disk.f_bavail * disk.f_frsize < 1 << 20


def sqlite_temp_folder() -> tuple[str, str] | None:
    """The folder SQLite's unix VFS keeps its temporary files in (statement journals, sorts), and what
    chose it: the first of SQLITE_TMPDIR, TMPDIR, /var/tmp, /usr/tmp, /tmp and `.` that is a folder
    this process may write (os_unix.c, unixTempFileDir). None on Windows (GetTempPath decides there)."""
    if os.name == "nt":
        return None
    candidates = [(os.environ.get(name), f"{name} names") for name in ("SQLITE_TMPDIR", "TMPDIR")]
    candidates += [(folder, "SQLite takes when TMPDIR names none") for folder in ("/var/tmp", "/usr/tmp", "/tmp", ".")]
    for folder, named_by in candidates:
        if folder and os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK):
            return folder, named_by
    return None


def _full_temp_folder(path: Path) -> tuple[str, str] | None:
    """SQLite's temporary folder and what chose it, where that folder is full and the index's is not:
    a full disk met by a statement journal or a sort there reads "database or disk is full" too."""
    temp = sqlite_temp_folder()
    if temp is None or _disk_is_full(path) or not _no_room(temp[0]):
        return None
    return temp


def _file_size_limit_reached(path: Path) -> int | None:
    """RLIMIT_FSIZE when the index or its WAL or journal has grown to it, else None."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    if soft == resource.RLIM_INFINITY:
        return None
    for suffix in ("", "-wal", "-journal"):
        try:
            size = os.stat(f"{path}{suffix}").st_size
        except OSError:
            continue
        if size >= soft - 64 * 1024:  # a write stops at the limit, or one page short of it
            return soft
    return None


@contextlib.contextmanager
def as_index_errors(path: Path) -> Iterator[None]:
    """Raise the SQLite errors inside the block as `index_error`'s IndexUnavailable (or DamagedIndex)."""
    try:
        yield
    except DatabaseError as exc:
        raise index_error(exc, path) from exc


def is_busy(exc: BaseException) -> bool:
    """Whether SQLite's error says only that another connection holds a lock now (a retry may pass)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in _BUSY_CODES
    return "locked" in str(exc) or "busy" in str(exc)



def close(conn: Connection, *, checkpoint: bool = True) -> None:
    """Close; a writer's clean close folds the WAL back so the .db file alone is complete. A fold
    that fails for another reason than a lock (a disk that fails to write) is said in one warning:
    what was committed stays in the -wal, and a close is no place to raise."""
    try:
        if checkpoint:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except DatabaseError as exc:
        if not is_busy(exc):  # busy: another connection holds the WAL; it checkpoints when it closes
            log.warning("the index's -wal could not be folded into its file on closing (%s); what was "
                        "committed stays in the -wal, read with the file: check the disk, then run "
                        "`minirag doctor`", exc)
    finally:
        conn.close()


WRITE_ATTEMPTS = 8


def with_retry(fn: Callable[[], Any], *, attempts: int | None = None, patience_s: float | None = None,
               waiting: str | None = None) -> Any:
    """Run fn, retrying 'database is locked' past the busy timeout (e.g. WAL upgrades): `attempts`
    times (WRITE_ATTEMPTS), or for `patience_s` seconds when given. `waiting` is logged once, on the
    first wait."""
    attempts = WRITE_ATTEMPTS if attempts is None else attempts
    delay = 0.05
    deadline = None if patience_s is None else time.monotonic() + patience_s
    tries = 0
    while True:
        try:
            return fn()
        except OperationalError as exc:
            tries += 1
            spent = tries >= attempts if deadline is None else time.monotonic() >= deadline
            if not is_busy(exc) or spent:
                raise
            if tries == 1 and waiting:
                log.warning("%s", waiting)
            time.sleep(delay)
            delay = min(delay * 2, 1.0)


# An upgrade (a migration, a re-tokenize) holds the write lock for as long as its index takes to
# rewrite, so another process that must upgrade the same index waits in proportion to its chunks:
# long enough for a slow disk's rate (operations.md has the rate measured), never less than a
# plain write's tries.
MIN_UPGRADE_WAIT_S = 80.0
UPGRADE_WAIT_S_PER_CHUNK = 0.001


def upgrade_patience_s(conn: Connection) -> float:
    """How long an open that must upgrade its index waits for another process's write lock."""
    try:  # the largest id: a count would read the whole table
        chunks = conn.execute("SELECT COALESCE(MAX(id), 0) FROM chunks").fetchone()[0]
    except OperationalError:  # a new index: no table yet
        chunks = 0
    return max(MIN_UPGRADE_WAIT_S, chunks * UPGRADE_WAIT_S_PER_CHUNK)


def lock_wait_message(path: Path | str) -> str:
    """What a write says once it has waited a busy timeout for another connection's write lock."""
    return (f"waiting for the write lock on the index {path}, which another writer holds (a sync, or a "
            f"transaction left open in a sqlite3 shell): this write goes on once it is let go, or gives up "
            f"after about {_retry_patience_s():.0f} s")


def _retry_patience_s() -> float:
    """The time with_retry's default attempts wait in all: a busy timeout each, and its sleeps."""
    return WRITE_ATTEMPTS * BUSY_TIMEOUT_MS / 1000 + sum(min(0.05 * 2 ** n, 1.0) for n in range(WRITE_ATTEMPTS - 1))


def upgrade_wait_message(path: Path | str, patience_s: float) -> str:
    return (f"waiting for another process's write lock on the index {path}: it may be running the "
            f"same upgrade, which an index this size can take up to {patience_s:.0f} s to finish")
