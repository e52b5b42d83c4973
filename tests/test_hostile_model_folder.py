"""A model folder someone else wrote (MODEL_PATH, --model-path): its files are read before any
document is, so each must be refused in one line, never block, never eat the memory."""
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SETTINGS_FILES = ["minirag-model.json", "1_Pooling/config.json", "sentence_bert_config.json", "tokenizer_config.json"]

# Resolves the folder given as argv[1] and prints the one line a user would read.
RESOLVE = """
import sys
from pathlib import Path
from minirag.errors import ModelUnavailable
from minirag.models import resolve
try:
    files = resolve("x", Path(sys.argv[1]), Path(sys.argv[2]))
except ModelUnavailable as exc:
    print("refused:", exc)
else:
    print("resolved:", files.spec.model_id, files.spec.max_length)
"""


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def resolved(folder: Path, tmp_path: Path) -> str:
    """What resolving `folder` prints, in a child held to 2 GiB and 60 s: the old code blocked on
    a FIFO for ever, or read /dev/zero until the memory ran out."""
    try:
        done = subprocess.run([sys.executable, "-c", RESOLVE, str(folder), str(tmp_path / "cache")],
                              capture_output=True, text=True, timeout=60, preexec_fn=_limited)
    except subprocess.TimeoutExpired:
        pytest.fail(f"resolving {folder} blocked")
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


@pytest.fixture
def folder(tmp_path, tiny_model_dir) -> Path:
    made = tmp_path / "model"
    made.mkdir()
    for name in ("model.onnx", "tokenizer.json", "minirag-model.json"):
        shutil.copy(tiny_model_dir / name, made / name)
    return made


@pytest.mark.parametrize("kind", ["fifo", "device"])
@pytest.mark.parametrize("name", SETTINGS_FILES)
def test_a_settings_file_that_is_no_regular_file_never_blocks_nor_fills_the_memory(folder, tmp_path, name, kind):
    target = folder / name
    target.parent.mkdir(exist_ok=True)
    target.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")
    said = resolved(folder, tmp_path)
    if name == "minirag-model.json":  # the user's own settings: never dropped in silence
        assert said == f"refused: cannot read {target}: not a regular file"
    else:  # another tool's file only refines the defaults, as when it is absent or not JSON
        assert said.startswith("resolved: ")


def test_a_settings_file_past_its_size_is_refused_unread(folder, tmp_path):
    target = folder / "minirag-model.json"
    with open(target, "wb") as f:
        f.truncate(3 << 30)  # sparse: 3 GiB to read, none on the disk
    said = resolved(folder, tmp_path)
    assert said == f"refused: cannot read {target}: 3,221,225,472 bytes, more than a settings file's 1,048,576"
