"""Red team 75: the UTF-8 restart (cli._read_names_as_utf8) starts the same command line again. A
program Python read from stdin (`python -`, `python < prog.py`) or from a pipe (`python <(...)`)
cannot be read a second time: the new process found its stdin at its end, ran nothing and exited 0,
the command never run and nothing said. There the restart is not taken and the configuration
refuses in one line, as for any caller that cannot restart."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # each test runs minirag in a process of its own

NOT_UTF8_LOCALE = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
PROGRAM = b"from minirag.cli import main\nprint('started', flush=True)\nraise SystemExit(main())\n"


@pytest.fixture
def env(tmp_path, model_path) -> dict[str, str]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "plain.md").write_text("# Plain\n\nAn ASCII name.\n", encoding="utf-8")
    clean = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_CTYPE", "LANG", "PYTHONUTF8")}
    return clean | NOT_UTF8_LOCALE | {"MODEL_PATH": model_path, "BASE_DIR": str(docs),
                                      "DB_PATH": str(tmp_path / "index.db")}


@pytest.mark.parametrize("argv", [["-", "sync"], ["-c", "import sys; exec(sys.stdin.read())", "sync"]])
def test_a_program_read_from_stdin_is_not_started_again_on_an_empty_stdin(env, argv):
    done = subprocess.run([sys.executable, *argv], env=env, input=PROGRAM, capture_output=True, timeout=120)
    lines = done.stderr.decode().splitlines()
    assert done.stdout.decode().splitlines() == ["started"]
    assert done.returncode == 1 and len(lines) == 1 and "PYTHONUTF8=1" in lines[0], done


def test_a_program_read_from_a_file_is_started_again_and_runs(env, tmp_path):
    program = tmp_path / "prog.py"
    program.write_bytes(PROGRAM)
    done = subprocess.run([sys.executable, str(program), "sync"], env=env, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().splitlines()[:2] == ["started", "started"]  # once in each process


@pytest.mark.skipif(not os.path.isdir("/dev/fd"), reason="no /dev/fd to name a pipe by")
def test_a_program_read_from_a_pipe_is_not_started_again(env):
    read, write = os.pipe()
    os.write(write, PROGRAM)
    os.close(write)
    try:
        done = subprocess.run([sys.executable, f"/dev/fd/{read}", "sync"], env=env, pass_fds=(read,),
                              capture_output=True, timeout=120)
    finally:
        os.close(read)
    lines = done.stderr.decode().splitlines()
    assert done.stdout.decode().splitlines() == ["started"]
    assert done.returncode == 1 and len(lines) == 1 and "PYTHONUTF8=1" in lines[0], done
