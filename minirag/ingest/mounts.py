"""Roots left behind by an unmounted drive: an empty folder, the mount point, on another filesystem
than the one their documents were last synced from.

A sync reading such a root would find no documents and delete every one it held, and the drive
mounted again would have each of them converted and embedded anew. Each full sync records the
filesystem (st_dev) each root it read was on; a root found empty on another one is not read, and
what it held stays indexed, said once a pass. A folder emptied on its own filesystem is read as
it is: its documents are gone.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from minirag import json_text
from minirag.display import printable
from minirag.store.index import Index

META_ROOT_DEVICES = "root_devices"  # {root: st_dev} of each root when a full sync last read it


def recorded_devices(index: Index) -> dict[str, int]:
    try:
        value = json_text.loads(index.meta(META_ROOT_DEVICES) or "{}")
    except ValueError:  # json_text: one nested too deeply too (a RecursionError from json.loads)
        return {}
    if not isinstance(value, dict):
        return {}
    return {str(root): dev for root, dev in value.items() if isinstance(dev, int)}


def _device(root: Path) -> int | None:
    try:
        return os.stat(root).st_dev
    except OSError:
        return None


def _empty(root: Path) -> bool:
    try:
        with os.scandir(root) as entries:
            return next(entries, None) is None
    except OSError:
        return False


def left_by_a_drive(roots: Sequence[Path], recorded: dict[str, int]) -> list[str]:
    """The roots that are an empty folder on another filesystem than when last synced."""
    return [str(root) for root in roots
            if str(root) in recorded and _device(root) not in (None, recorded[str(root)]) and _empty(root)]


def record_devices(index: Index, roots: Iterable[Path], recorded: dict[str, int]) -> None:
    """Record the filesystem of each of `roots` (those a full sync read) where it changed."""
    now = {str(root): dev for root in roots if (dev := _device(root)) is not None}
    if any(recorded.get(root) != dev for root, dev in now.items()):
        index.set_meta(META_ROOT_DEVICES, json.dumps(recorded | now))


def unmounted_warning(root: str) -> str:
    return (f"{printable(root)}: an empty folder on another filesystem than at the last sync (a drive unmounted?); "
            "what it held stays indexed until the drive is back (to drop it, remove the root from the "
            "configuration and sync)")
