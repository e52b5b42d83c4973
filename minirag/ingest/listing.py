"""`list`: every supported file under the roots with its ingestion state, plus data/url sources."""

from __future__ import annotations

import os

from minirag.chunking import SCHEME_VERSION
from minirag.ingest.scan import walk_roots
from minirag.search.scope import Scope

# indexed: the index matches the disk; stale: changed on disk since indexing;
# stale_scheme: unchanged but cut by an older chunking scheme; not_indexed;
# too_large: over MAX_FILE_SIZE, never indexed; unreadable: no read permission.


def _disk_state(found, stored, max_size: int) -> str:
    if found.size > max_size:
        return "too_large"
    if not os.access(found.real, os.R_OK):
        return "unreadable"
    if stored is None:
        return "not_indexed"
    if (stored["size"], stored["mtimeNs"]) != (found.size, found.mtime_ns):
        return "stale"
    return "indexed" if stored["scheme"] == SCHEME_VERSION else "stale_scheme"


def list_entries(index, config, scope: Scope | None) -> list[dict]:
    indexed = {
        row["source"]: row for row in index.list_sources() if scope is None or scope.matches(row["source"])
    }
    out = []
    for found in walk_roots(config.roots):
        if scope is not None and not scope.matches(found.source):
            continue
        stored = indexed.pop(found.source, None)
        out.append({
            "source": found.source, "sourceType": "file", "title": stored["title"] if stored else None,
            "state": _disk_state(found, stored, config.max_file_size), "size": found.size,
            "chunkCount": stored["chunkCount"] if stored else 0,
            **({"lifecycle": stored["lifecycle"]} if stored and stored["lifecycle"] != "active" else {}),
        })
    for source, stored in indexed.items():  # data/url items, and files no longer on disk
        state = "indexed" if stored["scheme"] == SCHEME_VERSION else "stale_scheme"
        if stored["kind"] == "file":
            state = "missing"
        out.append({"source": source, "sourceType": stored["kind"], "title": stored["title"], "state": state,
                    "size": stored["size"], "chunkCount": stored["chunkCount"]})
    return out
