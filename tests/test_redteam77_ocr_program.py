"""Red team 77: the `tesseract` minirag runs (to list its languages at start, and to read a page)
is never one that a PATH entry relative to the working folder finds (`.`, an empty entry, `bin`).
`minirag sync` is run inside the folder it indexes (the current directory is the default root), so
whoever wrote the documents could plant an executable named `tesseract` there, as with `git`
(test_redteam75_git.py). Before, `tesseract --list-langs` ran from the planted file at every sync."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import write


def fake_tesseract(folder: Path, markers: Path) -> Path:
    """A `tesseract` that leaves a marker named after its folder and lists English."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "tesseract"
    path.write_text(f"#!/bin/sh\n: > '{markers}/{folder.name}'\n"
                    "echo 'List of available languages in \"/x\" (1):'\necho eng\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def fresh_ocr_answers(request):
    """Whether image files are documents, and Tesseract's languages, are asked once a process."""
    from minirag.ingest import ocr
    from minirag.ingest.doc_names import supported_extensions

    def clear():
        supported_extensions.cache_clear()
        ocr._installed_tesseract_languages.cache_clear()

    clear()
    request.addfinalizer(clear)


@pytest.mark.skipif(os.name == "nt", reason="a shell script stands for the planted program")
@pytest.mark.parametrize("engine", ["auto", "tesseract"])
@pytest.mark.parametrize("entry", [".", "", "bin"])
def test_a_tesseract_planted_in_a_root_never_runs_through_a_relative_path_entry(
        cli_env, docs, tmp_path, run_cli, fresh_ocr_answers, entry, engine):
    markers = tmp_path / "markers"
    markers.mkdir()
    fake_tesseract(docs / "bin", markers)
    (docs / "tesseract").symlink_to("bin/tesseract")
    installed = fake_tesseract(tmp_path / "installed", markers)  # a real install, on an absolute entry
    path = os.pathsep.join([entry, str(installed.parent), os.environ["PATH"]])
    done = run_cli("sync", env={"PATH": path, "MINIRAG_OCR": engine, "MINIRAG_OCR_LANGUAGES": None}, cwd=docs)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in markers.iterdir()) == ["installed"]  # the installed one, not the planted


@pytest.mark.skipif(os.name == "nt", reason="a shell script stands for the planted program")
def test_a_tesseract_only_in_the_working_folder_is_no_tesseract(cli_env, docs, tmp_path, run_cli, fresh_ocr_answers):
    markers = tmp_path / "markers"
    markers.mkdir()
    fake_tesseract(docs / "bin", markers)
    write(docs / "b.md", "# Kettles\n\nA kettle whistles.\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    done = run_cli("sync", env={"PATH": f"{empty}{os.pathsep}bin", "MINIRAG_OCR": "tesseract"}, cwd=docs)
    assert done.returncode == 0, done.stderr
    assert list(markers.iterdir()) == []
