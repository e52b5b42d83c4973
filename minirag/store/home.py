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

META_HOME = "home"


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


def foreign(index: Index, config: Config) -> Foreign | None:
    """Why `index`, in minirag's own place, came with its folder; None when it is this folder's."""
    home = index.meta(META_HOME)
    if not in_own_place(config) or home == os.path.realpath(index.path):
        return None
    db, folder = config.db_path, config.db_path.parent
    if home is not None:
        return Foreign(f"the index {db} was made at {home} and came here with its folder (copied, moved or cloned), "
                       "so minirag does not take it as this folder's",
                       f"delete {folder} and `minirag sync` indexes the folder anew; or, if it is yours, name it "
                       f"once (--db-path {db})")
    if index.holds_sources_other_than_files():
        held = "sources no file here stands for (data or URL)"
    elif any(containing_root(Path(source), config.roots) is None for source in index.stored_states("file")):
        held = "files outside the folders it is used with"
    else:
        return None
    return Foreign(f"the index {db} does not say where it was made (an earlier minirag's, or it came with its "
                   f"folder) and holds {held}",
                   f"if it is yours, name it once (--db-path {db}); else delete {folder} and run `minirag sync`")


def settle_home(index: Index, config: Config) -> None:
    """Refuse an index in minirag's own place that came with its folder; else record where it is."""
    if (reason := foreign(index, config)) is not None:
        raise IndexUnavailable(str(reason))
    here = os.path.realpath(index.path)
    if not index.read_only and index.meta(META_HOME) != here:
        index.set_meta(META_HOME, here)
