"""agent80: a collection's `lastSync` says when its root was last brought in sync, and nothing once a
sync dropped its files.

A full sync of a configuration without a root deletes that root's files from the index (counted as
`deletedOutsideRoots`), yet the root's lastSync stayed in the index: put back in the configuration,
`minirag collections` and list_collections showed it synced an hour ago, with no file indexed, and an
agent took the empty collection for an empty folder."""

from __future__ import annotations

import json

from conftest import write


def test_a_root_dropped_by_a_full_sync_has_no_last_sync_when_it_comes_back(make_app, tmp_path):
    kept, dropped = tmp_path / "kept", tmp_path / "dropped"
    write(kept / "a.md", "# A\n\nKept.\n")
    write(dropped / "b.md", "# B\n\nDropped, then back.\n")
    both = {"BASE_DIRS": json.dumps({"kept": str(kept), "dropped": str(dropped)})}
    make_app(both, base_dirs=None).sync()
    without = make_app({"BASE_DIRS": json.dumps({"kept": str(kept)})}, base_dirs=None)
    assert without.sync().outside_roots == 1
    back = {c.name: c for c in make_app(both, base_dirs=None).list_collections().collections}
    assert back["dropped"].file_count == 0 and back["dropped"].last_sync is None
    assert back["kept"].file_count == 1 and back["kept"].last_sync is not None


def test_a_root_left_out_only_of_a_sync_of_one_path_keeps_its_last_sync(make_app, tmp_path):
    """A sync of one path deletes nothing outside it: the other roots' files and times stay."""
    one, other = tmp_path / "one", tmp_path / "other"
    write(one / "a.md", "# A\n\nOne.\n")
    write(other / "b.md", "# B\n\nOther.\n")
    both = {"BASE_DIRS": json.dumps({"one": str(one), "other": str(other)})}
    make_app(both, base_dirs=None).sync()
    make_app({"BASE_DIRS": json.dumps({"one": str(one)})}, base_dirs=None).sync(str(one))
    back = {c.name: c for c in make_app(both, base_dirs=None).list_collections().collections}
    assert back["other"].file_count == 1 and back["other"].last_sync is not None
