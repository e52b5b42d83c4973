"""A FIFO put in CACHE_DIR in place of one of the files minirag makes there once (the tokenizer's
tables, the split graph's record and word table, the int8 graph and its record) by whoever may write
that folder (a cache shared by a team, a folder others write): the model still loads and embeds, the
file made again where it can be. Each of those files was opened with a plain open(), which waits for a
writer to the pipe: every query, sync and server start stopped there for ever (found by redteam84).
The real tiny encoder, in a thread; a thread still waiting is let go by opening the pipe's other end."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import numpy as np
import pytest

from minirag.encoder import Encoder
from minirag.models import resolve

WAIT_S = 30
# Read before what they describe: one that cannot be read is made again, the FIFO replaced. (A word
# table or int8 graph that cannot be read is left as it is: the graph before it serves.)
MADE_AGAIN = ("tokenizer tables", "split.json", "int8 record")


def made_cache(model_dir: Path, cache: Path) -> dict[str, Path]:
    """The cache files a first load makes, by kind."""
    Encoder(resolve("unused", model_dir, cache), cache_dir=cache)
    files = {path.name: path for path in cache.rglob("*") if path.is_file()}
    kinds = {"split.json": "split.json", "table.npy": "table.npy"}
    found = {kind: files[name] for kind, name in kinds.items()}
    found["int8 graph"] = next(p for n, p in files.items() if n.startswith("int8-") and n.endswith(".onnx"))
    found["int8 record"] = next(p for n, p in files.items() if n.startswith("int8-") and n.endswith(".json"))
    found["tokenizer tables"] = next(p for n, p in files.items() if n.endswith(".bin"))
    return found


def load_in_thread(model_dir: Path, cache: Path) -> tuple[threading.Thread, dict]:
    outcome: dict = {}

    def load() -> None:
        try:
            encoder = Encoder(resolve("unused", model_dir, cache), cache_dir=cache)
            outcome["vector"] = encoder.embed_queries(["the moon raises the tides"])[0]
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            outcome["error"] = exc

    thread = threading.Thread(target=load, daemon=True)
    thread.start()
    return thread, outcome


@pytest.mark.parametrize("kind", ["tokenizer tables", "split.json", "table.npy", "int8 graph", "int8 record"])
def test_redteam84_a_fifo_in_place_of_a_cache_file_is_not_waited_on(tiny_model_dir, tmp_path, kind):
    cache = tmp_path / "cache"
    target = made_cache(tiny_model_dir, cache)[kind]
    target.unlink()
    os.mkfifo(target)
    thread, outcome = load_in_thread(tiny_model_dir, cache)
    thread.join(WAIT_S)
    if thread.is_alive():
        fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK)  # the reader gets its end of file and goes on
        os.close(fd)
        thread.join(WAIT_S)
        pytest.fail(f"loading the model waited on a FIFO in place of the {kind} in CACHE_DIR")
    assert "error" not in outcome, outcome.get("error")
    vector = outcome["vector"]
    assert vector.shape == (384,) and np.isfinite(vector).all()
    if kind in MADE_AGAIN:
        assert stat.S_ISREG(os.lstat(target).st_mode)
