"""The git commit each root was at when it was last fully synced (App stores it in the index).

Best effort: a root that is not a git work tree, or a machine without git,
simply has no entry.
"""

from __future__ import annotations

import json
import logging
import subprocess
from datetime import UTC, datetime
from pathlib import Path

log = logging.getLogger(__name__)

GIT_TIMEOUT_S = 5


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                              timeout=GIT_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def _porcelain_path(line: str) -> str:
    path = line[3:].split(" -> ")[-1]
    return path[1:-1] if path.startswith('"') and path.endswith('"') else path


def root_state(root: Path, db_path: Path) -> dict | None:
    """{root, commit, dirty} for a root inside a git work tree, else None."""
    commit = _git(root, "rev-parse", "HEAD")
    top = _git(root, "rev-parse", "--show-toplevel")
    status = _git(root, "status", "--porcelain", "--untracked-files=all", "--", ".")
    if commit is None or top is None or status is None:
        return None
    # The index file and its WAL/lock siblings may live inside the root; they are not changes.
    ours = str(db_path)
    changes = [p for p in map(_porcelain_path, status.splitlines())
               if not str(Path(top.strip(), p)).startswith(ours)]
    return {"root": str(root), "commit": commit.strip(), "dirty": bool(changes)}


def root_states(roots: list[Path], db_path: Path) -> list[dict]:
    """The git state of every root that is a work tree, stamped now; taken after a full sync."""
    synced_at = datetime.now(UTC).isoformat(timespec="seconds")
    return [{**state, "syncedAt": synced_at} for root in roots if (state := root_state(root, db_path)) is not None]


def parse_states(raw: str | None) -> list[dict]:
    """What root_states stored, or [] when nothing (readable) was."""
    try:
        return json.loads(raw) if raw else []
    except ValueError:
        log.warning("ignoring an unreadable git state in the index meta table")
        return []
