"""A sync job held inside its run: its lock taken, nothing walked yet, until the test lets it go."""

from __future__ import annotations

import threading


def held_sync(monkeypatch) -> threading.Event:
    """Make the next sync wait, lock held, at the start of its run until the returned event is set."""
    from minirag.ingest import sync as sync_module

    go = threading.Event()
    real_run_sync = sync_module.run_sync

    def held(*args, **kwargs):
        assert go.wait(60)
        return real_run_sync(*args, **kwargs)

    monkeypatch.setattr(sync_module, "run_sync", held)
    return go
