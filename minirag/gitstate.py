"""The git commit each root was at when it was last fully synced (App stores it in the index).

Best effort: a root that is not a git work tree simply has no entry.

A root may be an unpacked archive or a shared folder, so its `.git` is the
attacker's: git reading its config would run the programs it names
(`core.fsmonitor`, hooks, clean filters, a promisor remote's transport). So
the commit is read from `.git/HEAD` and the refs directly, and git itself runs
only for `dirty`, with every config-driven program switched off (gitsafe.py).
Every file under `.git` is opened without blocking and read only when it is a
regular file: a FIFO planted as `HEAD` cannot hang the sync. A file of the git
dir is read only where it really lies inside it: a link there is followed as git
follows one (HEAD written as a link to its branch), but not out of the git dir
(a `HEAD`, a ref, `packed-refs` or a folder of refs linked to a file outside that
holds only hex had its text reported as the commit). `.git` itself is taken as
git takes it: a folder, a link to one, or a file naming the git dir (`gitdir:`,
a linked worktree's, a submodule's, a separate git dir's).
"""

from __future__ import annotations

import json
import logging
import os
import re
import stat
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from minirag import json_text
from minirag.gitsafe import safe_git
from minirag.security import is_under, open_below

log = logging.getLogger(__name__)

MAX_REF_DEPTH = 5  # symbolic refs followed (git's own limit is 5 too)
MAX_SMALL_FILE = 64 * 1024  # HEAD, a loose ref, a gitdir or commondir file
MAX_PACKED_REFS = 64 * 1024 * 1024
_OID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")  # SHA-1 or SHA-256
# The names each root's state is stored under in the index's meta table: existing indexes hold them.
_STORED = {"root": "root", "commit": "commit", "dirty": "dirty", "synced_at": "syncedAt"}


@dataclass(frozen=True, slots=True)
class GitState:
    """The commit a root (a git work tree) was at. `dirty` None: git could not say (not installed,
    too old to be run safely, refused); `synced_at` (ISO time) once stamped by a full sync."""

    root: str
    commit: str
    dirty: bool | None
    synced_at: str | None = None


def read_regular_file(path: Path | str, limit: int = MAX_SMALL_FILE, *, below: Path | None = None) -> str | None:
    """The text of a regular file of at most `limit` bytes (not a FIFO, device or folder, which
    could block or never end), or None; None for a symlink too. `below`: a real folder; `path`
    is read where it really lies, only when that is inside `below`, and opened there with no link
    followed on the way (security.open_below), so a link swapped in meanwhile leads nowhere."""
    try:
        if below is not None:
            real = os.path.realpath(path)
            if not is_under(real, str(below), os.sep) or real == str(below):
                return None
            fd = open_below(below, Path(real).relative_to(below).as_posix())
        else:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
                         | getattr(os, "O_NOFOLLOW", 0))
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        with os.fdopen(os.dup(fd), "rb") as f:
            return f.read(limit).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def is_own(path: Path | str) -> bool:
    """Whether `path` (not followed) belongs to the user minirag runs as. Git (2.35.2+, safe.directory)
    takes no repository whose folder or `.git` another user owns: anyone who may write a folder above
    a root (/tmp, a shared folder) could plant one there. Always so where files have no owner (Windows)."""
    if not hasattr(os, "geteuid"):
        return True
    try:
        return os.lstat(path).st_uid == os.geteuid()
    except OSError:
        return False


def find_git_dir(root: Path) -> tuple[Path, Path, Path] | None:
    """(work tree top, git dir, common dir) of the repository holding `root` (a real path), or None;
    None too for the nearest `.git` when another user owns it or its folder (is_own)."""
    for top in (root, *root.parents):
        dot_git = top / ".git"
        git_dir: Path | None
        try:
            kind = os.lstat(dot_git).st_mode
        except OSError:
            continue
        if not (is_own(top) and is_own(dot_git)):
            return None
        if stat.S_ISLNK(kind) and os.path.isdir(dot_git):
            git_dir = Path(os.path.realpath(dot_git))  # git follows a `.git` linked to its folder
        elif stat.S_ISDIR(kind):
            git_dir = dot_git
        elif stat.S_ISREG(kind):  # a linked worktree, a submodule, a separate git dir: "gitdir: <path>"
            text = read_regular_file(dot_git, below=top)
            if text is None or not text.startswith("gitdir:"):
                return None
            git_dir = _real(top / text[len("gitdir:"):].strip())
        else:
            return None  # a FIFO, a socket, a dangling link or one to a file: not a `.git` to read
        if git_dir is None or not is_own(git_dir):
            return None
        common = read_regular_file(git_dir / "commondir", below=git_dir)
        common_dir = _real(git_dir / common.strip()) if common and common.strip() else git_dir
        return (top, git_dir, common_dir) if common_dir is not None else None
    return None


def _real(path: Path) -> Path | None:
    """`path` resolved, or None where no path can be: a NUL byte (ValueError), a loop of links
    (RuntimeError from Path.resolve before Python 3.13, OSError after)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError, ValueError):
        return None


def _valid_ref(name: str) -> bool:
    parts = name.split("/")
    return (name.startswith("refs/") and "\x00" not in name and "\\" not in name
            and all(p and p not in (".", "..") for p in parts))


def _packed(common_dir: Path, name: str) -> str | None:
    text = read_regular_file(common_dir / "packed-refs", MAX_PACKED_REFS, below=common_dir)
    for line in (text or "").splitlines():
        oid, _, ref = line.partition(" ")
        if ref == name and _OID.fullmatch(oid):
            return oid
    return None


def read_head(git_dir: Path, common_dir: Path) -> str | None:
    """The commit HEAD names (following symbolic refs, loose then packed), or None (unborn, unreadable)."""
    text = read_regular_file(git_dir / "HEAD", below=git_dir)
    for _ in range(MAX_REF_DEPTH):
        if text is None:
            return None
        text = text.strip()
        if _OID.fullmatch(text):
            return text
        if not text.startswith("ref:"):
            return None
        name = text[len("ref:"):].strip()
        if not _valid_ref(name):
            return None
        # Per-worktree refs sit in the worktree's git dir; branches and tags in the common one.
        text = read_regular_file(git_dir / name, below=git_dir) if git_dir != common_dir else None
        if text is None:
            text = read_regular_file(common_dir / name, below=common_dir)
        if text is None:
            return _packed(common_dir, name)
    return None


def _dirty(root: Path, top: Path, git_dir: Path, db_path: Path) -> bool | None:
    # -z: each path as it is, where the line format quotes one holding a non-ASCII letter, a quote or a tab.
    status = safe_git(root, git_dir, top, "status", "--porcelain", "-z", "--untracked-files=all",
                      "--ignore-submodules=all", "--no-renames", "--", ".")
    if status is None:
        return None
    from minirag.store.home import index_files  # not at the top: store.home reads the configuration

    # The index file and its WAL/lock siblings may live inside the root; they are not changes.
    ours = {str(path) for path in index_files(db_path)}
    return any(str(top / entry[3:]) not in ours for entry in status.split("\0") if entry)


def root_state(root: Path, db_path: Path) -> GitState | None:
    """The state of a root inside a git work tree with a commit, else None."""
    found = find_git_dir(root)
    if found is None:
        return None
    top, git_dir, common_dir = found
    commit = read_head(git_dir, common_dir)
    if commit is None:
        return None
    return GitState(str(root), commit, _dirty(root, top, git_dir, db_path))


def root_states(roots: list[Path], db_path: Path) -> list[GitState]:
    """The git state of every root that is a work tree, stamped now; taken after a full sync."""
    synced_at = datetime.now(UTC).isoformat(timespec="seconds")
    return [replace(state, synced_at=synced_at) for root in roots
            if (state := root_state(root, db_path)) is not None]


def stored_states(states: list[GitState]) -> str:
    """`states` as the index's meta table keeps them (JSON)."""
    return json.dumps([{_STORED[name]: getattr(state, name) for name in _STORED} for state in states])


def parse_states(raw: str | None) -> tuple[GitState, ...]:
    """What stored_states wrote, or () when nothing (readable) was. An index file is data (shared,
    downloaded): a row of another shape than stored_states writes is left out, not served."""
    try:
        rows = json_text.loads(raw) if raw else []
        states = [GitState(**{name: row.get(key) for name, key in _STORED.items()}) for row in rows]
    except (ValueError, TypeError, AttributeError):
        log.warning("ignoring an unreadable git state in the index meta table")
        return ()
    kept = tuple(state for state in states if _well_formed(state))
    if len(kept) < len(states):
        log.warning("ignoring %d unreadable git state(s) in the index meta table", len(states) - len(kept))
    return kept


def _well_formed(state: GitState) -> bool:
    return (isinstance(state.root, str) and isinstance(state.commit, str) and _OID.fullmatch(state.commit) is not None
            and isinstance(state.dirty, (bool, type(None))) and isinstance(state.synced_at, (str, type(None))))
