"""Red team 77: a batch of changes to many names of one file. The watcher looked up the other names
of each changed document and added them all (Watcher._scopes), so a batch that made N hard links (or
symlinks) to one file, as a deduplicating tool does, built a list of N² paths: 8,000 links 32 million
entries, 283 MB and 2.2 s of CPU before the sync began; 30,000 would take gigabytes. Each group of
names is now taken once a batch."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers.growth import grows_linearly

from minirag.ingest.watch import Watcher, _Pending


def many_names(folder: Path, count: int, kind: str) -> dict[str, _Pending]:
    """`count` new names of `folder/a.md` (hard links or symlinks), as one batch of the watcher's."""
    folder.mkdir()
    target = folder / "a.md"
    target.write_text("# A\n\nThe same note under many names.\n")
    batch = {str(target): _Pending(0.0, 0.0, None, False)}
    for n in range(count):
        name = folder / f"link{n}.md"
        if kind == "hard":
            os.link(target, name)
        else:
            name.symlink_to(target)
        batch[str(name)] = _Pending(0.0, 0.0, None, True)
    return batch


@pytest.mark.parametrize("kind", ["hard", "symbolic"])
def test_a_batch_of_many_names_of_one_file_costs_in_proportion_to_them(tmp_path, kind):
    batches = {n: many_names(tmp_path / f"d{n}", n, kind) for n in (1_000, 8_000)}

    def scopes(n: str) -> list[str]:
        watcher = Watcher([tmp_path], tmp_path / "index.db", lambda paths, progress: None)
        found = watcher._scopes(batches[int(n)])
        assert sorted(found) == sorted(batches[int(n)])  # every name, once
        return found

    assert grows_linearly(scopes, str)
