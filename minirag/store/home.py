"""Where an index was made. minirag's own index lives in the folder it indexes (`.minirag/index.db`
in the first root), so it can come with that folder: a clone whose author force-added it, a copied or
unpacked folder. What such an index holds was written elsewhere, by someone else, and is not taken as
this folder's: its text could be what no document says, under a source no sync removes.

Each index records the real path it was made at (`meta.home`). In minirag's own place, an index
recorded elsewhere is refused until the user names it (DB_PATH), which makes it theirs; one that
records nothing (made by an earlier minirag, or stripped of it) is kept only when it holds nothing
but files of the roots, which each sync checks against them, and then records where it is.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from minirag.config import INDEX_DIRNAME, INDEX_FILENAME, Config
from minirag.errors import IndexUnavailable
from minirag.security import containing_root
from minirag.store.index import Index
from minirag.store.schema import META_HOME


def index_files(db: Path) -> tuple[Path, ...]:
    """The index file and each file SQLite or the sync lock keeps beside it."""
    from minirag.store.backup import COMPANION_SUFFIXES

    return (db, *(db.with_name(db.name + suffix) for suffix in COMPANION_SUFFIXES))


def link_in_own_place(db: Path) -> str | None:
    """Why minirag will not write its own index `db` (in its own place), or None: its folder, the
    file or a file SQLite or the sync lock keeps beside it is a symbolic link.

    The folder may have come with the root (a cloned repository), or been replaced since (git takes
    an ignored folder as its own to replace): `.minirag/index.db` or its -wal made a link to
    `~/.ssh/authorized_keys` would have SQLite write the index there, and its pages hold the
    documents' text verbatim, so a document's line becomes a line of that file. A link that DB_PATH
    names is the user's own and is followed."""
    for path in (db.parent, *index_files(db)):
        if path.is_symlink():
            return (f"{path} is a symbolic link, which minirag does not write through inside a document root (it "
                    "may have come with the folder): remove it, or set DB_PATH to keep the index elsewhere")
    return None


def refuse_links(config: Config) -> None:
    """IndexUnavailable where minirag's own index place holds a link (link_in_own_place): checked
    again on each open and sync, since a long-running server keeps the configuration it started with."""
    if in_own_place(config) and (linked := link_in_own_place(config.db_path)) is not None:
        raise IndexUnavailable(linked)


def in_own_place(config: Config) -> bool:
    """The index is minirag's own, inside the first root, not one the user named."""
    return not config.db_path_named and config.db_path == config.roots[0] / INDEX_DIRNAME / INDEX_FILENAME


@dataclass(frozen=True)
class Foreign:
    """Why an index in minirag's own place is not taken as this folder's, and what to do."""

    problem: str
    fix: str

    def __str__(self) -> str:
        return f"{self.problem}: {self.fix}"


# How a user makes an index theirs: named, it is used where it is; a run that writes records it.
_NAME_IT = "if it is yours, name it (--db-path {db}; a run that writes then records it as this folder's)"


def foreign(index: Index, config: Config) -> Foreign | None:
    """Why `index`, in minirag's own place, came with its folder; None when it is this folder's."""
    home = index.meta(META_HOME)
    if not in_own_place(config) or home == os.path.realpath(index.path) or _same_file(home, index.path):
        return None
    db, folder = config.db_path, config.db_path.parent
    if home is not None:
        return Foreign(f"the index {db} was made at {home} and came here with its folder (copied, moved or cloned), "
                       "so minirag does not take it as this folder's",
                       f"delete {folder} and `minirag sync` indexes the folder anew; or, {_NAME_IT.format(db=db)}")
    files = index.stored_states("file")
    if index.holds_sources_other_than_files():
        held = "sources no file here stands for (data or URL)"
    elif any(containing_root(Path(source), config.roots) is None for source in files):
        held = "files outside the folders it is used with"
    elif not files:  # one minirag makes records its home as it makes it (schema.migrate)
        held = "no source, only settings"  # nothing to keep, and settings (its model...) of someone's choosing
    else:
        return None
    return Foreign(f"the index {db} does not say where it was made (an earlier minirag's, or it came with its "
                   f"folder) and holds {held}", f"{_NAME_IT.format(db=db)}; else delete {folder} and run `minirag sync`")


def _same_file(home: str | None, path: Path) -> bool:
    """`home` names this very file under another spelling (a case-insensitive disk, a bind mount)."""
    try:
        return home is not None and os.path.samefile(home, path)
    except OSError:
        return False


def settle_home(index: Index, config: Config) -> None:
    """Refuse an index in minirag's own place that came with its folder; else record where it is
    (when nothing else is writing: a later open records it otherwise)."""
    if (reason := foreign(index, config)) is not None:
        raise IndexUnavailable(str(reason))
    here = os.path.realpath(index.path)
    if not index.read_only and index.meta(META_HOME) != here:
        index.set_meta_unless_busy(META_HOME, here)
