"""Red team 79: a thousand roots (collections).

Every folder and file a walk met was checked against every root, several times over (which root
holds it, the innermost, its ignore rules' root, the roots under it not walked yet, the drive
folders): 1,000 collections of one small file each made a sync with nothing to do take 20 s and
`minirag list` 22 s, where 100 took 2 s, and the cost grew with roots x files. security.py now finds
the roots holding a path from the path's own folders; these tests check it answers exactly as the
plain comparison (is_under) against every root did, and that a walk's cost grows linearly with the
number of roots."""

from __future__ import annotations

import gc
import itertools
import os
import time
from pathlib import Path

import pytest

from minirag.ingest.mounts import drive_folders, left_by_a_drive
from minirag.security import containing_root, innermost_root, is_under

ROOTS = tuple(Path(p) for p in ("/", "/a", "/a/b", "/a-b", "/a/b/c", "/ab", "/x/y", "/a/b"))
PATHS = ("/", "/a", "/a/", "/a/b", "/a/b/", "/a/bc", "/a-b/z", "/a/b/c/d", "/a//b/c", "/a/./b", "/a/../x/y/z",
         "/ab", "/abc", "/x", "/x/y", "/x/yz", "/q/r", "a/b", "", "/a/b/c/../d")


def _first(path: str, roots) -> Path | None:
    return next((root for root in roots if is_under(path, str(root), os.sep)), None)


def _deepest(path: str, roots) -> Path | None:
    return max((root for root in roots if is_under(path, str(root), os.sep)), key=lambda r: len(str(r)), default=None)


def test_root_lookups_answer_as_comparing_with_every_root_does():
    from minirag.security import outer_roots_of, roots_under

    for count in range(1, len(ROOTS) + 1):
        for roots in itertools.permutations(ROOTS, count) if count <= 3 else [ROOTS[:count], ROOTS[:count][::-1]]:
            for container in (tuple(roots), list(roots)):
                for path in PATHS:
                    assert containing_root(path, container) == _first(path, roots), (path, roots)  # type: ignore[arg-type]
                    assert innermost_root(path, container) == _deepest(path, roots), (path, roots)
                    assert outer_roots_of(path, container) == sorted(
                        {r for r in roots if str(r) != path and is_under(path, str(r), os.sep)},
                        key=list(roots).index), (path, roots)
                    if path.startswith(os.sep):
                        assert roots_under(path, container) == sorted(
                            {r for r in roots if is_under(str(r), path, os.sep)}, key=list(roots).index), (path, roots)


def _cpu(call) -> float:
    gc.collect()
    gc.disable()
    try:
        started = time.process_time()
        call()
        return time.process_time() - started
    finally:
        gc.enable()


def _roots(base: Path, count: int) -> list[str]:
    made = []
    for n in range(count):
        folder = base / f"r{n:05d}"
        (folder / "sub").mkdir(parents=True)
        (folder / "sub" / "note.md").write_text(f"# Note {n}\n\nA note about topic {n}.\n")
        made.append(str(folder))
    return made


@pytest.mark.slow  # 900 roots made on disk, and ratios of CPU times
def test_listing_many_roots_costs_in_proportion_to_them(make_app, tmp_path):
    """`list` of 100 roots and of 800, each holding a folder with one file: 8x the roots may cost
    about 8x, never the ~64x a scan of every root per file does (a ratio of CPU times, not a bound)."""
    few = make_app(base_dirs=_roots(tmp_path / "few", 100), db_path=str(tmp_path / "few.db"))
    many = make_app(base_dirs=_roots(tmp_path / "many", 800), db_path=str(tmp_path / "many.db"))
    for app in (few, many):
        app.ingest_data("a seed, so that the index exists", "seed")
    assert len(many.list_files().files) == 801  # and the imports are done
    large = _cpu(many.list_files)
    small = min(_cpu(few.list_files) for _ in range(3))
    assert large < 24 * max(small, 0.002) or _cpu(many.list_files) < 24 * max(small, 0.002), (large, small)


@pytest.mark.slow
def test_the_drive_checks_of_many_roots_cost_in_proportion_to_them(tmp_path):
    def check(count: int):
        roots = [Path(p) for p in _roots(tmp_path / str(count), count)]
        recorded = {str(root): os.stat(root).st_dev for root in roots}
        sources = [str(root / "sub" / "note.md") for root in roots]
        return lambda: (left_by_a_drive(roots, recorded), drive_folders(sources, roots))

    few, many = check(100), check(800)
    large = _cpu(many)
    small = min(_cpu(few) for _ in range(3))
    assert large < 24 * max(small, 0.002) or _cpu(many) < 24 * max(small, 0.002), (large, small)


def test_an_error_naming_the_roots_stays_one_short_line_with_many_roots(make_app, tmp_path):
    """Each refusal of a path outside the roots named every root: with 1,000 collections one error
    line was 24 KB (about 8,000 tokens of a client's context per refused call)."""
    from minirag.errors import InvalidArgument, PathOutsideRoots

    roots = _roots(tmp_path / "roots", 300)
    app = make_app(base_dirs=roots)
    app.ingest_data("a seed, so that the index exists", "seed")
    outside = tmp_path / "outside.md"
    outside.write_text("# Out\n\nNot in any root.\n")
    for call, error in ((lambda: app.query("note", scope=str(tmp_path / "elsewhere")), InvalidArgument),
                        (lambda: app.ingest_file(str(outside)), PathOutsideRoots)):
        with pytest.raises(error) as caught:
            call()
        said = str(caught.value)
        assert "\n" not in said and len(said) < 1_000, (len(said), said[:300])
        assert roots[0] in said and "300 roots" in said, said
