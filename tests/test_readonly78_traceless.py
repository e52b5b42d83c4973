"""Read-only mode writes nothing: no -wal, no -shm, no change to the files beside the index, whatever
the folder allows, and a reader still sees every commit a writer made (a live one's, a killed one's).

Real parts throughout: a real index made by a real sync, real SQLite processes that write and are
killed, the real tiny model."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import in_this_process, write

from minirag.results import payload


def _listing(folder: Path) -> dict[str, tuple[int, int]]:
    """Each file's name, size and mtime: what `ls -l` shows of the index's folder."""
    return {entry.name: (entry.stat().st_size, entry.stat().st_mtime_ns) for entry in sorted(os.scandir(folder),
                                                                                              key=lambda e: e.name)}


@pytest.fixture
def synced(make_app, docs, tmp_path) -> Path:
    """An index written by a sync and closed cleanly (no -wal, no -shm), in a folder of its own."""
    write(docs / "otters.md", "# Otters\n\nSea otters hold hands while they sleep.\n")
    write(docs / "moles.md", "# Moles\n\nStar-nosed moles find food by touch.\n")
    (tmp_path / "idx").mkdir()
    path = tmp_path / "idx" / "index.db"
    writer = make_app(db_path=str(path))
    writer.sync()
    writer.close()
    assert sorted(p.name for p in path.parent.iterdir()) == ["index.db", "index.db.sync.lock"]
    return path


def _every_read(reader, docs: Path) -> None:
    assert payload(reader.query("otters sleep"))["results"]
    reader.read(str(docs / "otters.md"))
    reader.list_files()
    reader.list_collections()
    reader.status()
    reader.doctor()


def test_read_only_operations_leave_the_index_folder_as_they_found_it(synced, make_app, docs):
    """A read-only query made idx.db-wal (0 bytes) and idx.db-shm (32 KiB) beside the index and left them.
    Nor is the sync lock made where a copied index came without one."""
    Path(f"{synced}.sync.lock").unlink()
    before = _listing(synced.parent)
    reader = make_app({"MINIRAG_READ_ONLY": "1"}, db_path=str(synced))
    _every_read(reader, docs)
    reader.backup(str(synced.parent.parent / "copy.db"))
    reader.close()
    assert _listing(synced.parent) == before


def test_the_read_only_cli_leaves_the_index_folder_as_it_found_it(cli_env, tmp_path, run_cli):
    """The same through `minirag` processes, as a user runs them (the index made in this process)."""
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    run = [sys.executable, "-m", "minirag"]
    assert run_cli("sync").returncode == 0
    before = _listing(tmp_path)
    for command in (["query", "otters"], ["list"], ["status"], ["doctor"], ["collections"]):
        done = subprocess.run([*run, *command],
                              env={**env, "MINIRAG_READ_ONLY": "1"}, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (command, done.stderr)
        assert _listing(tmp_path) == before, command


def _commit_then_die(path: Path, key: str) -> None:
    """A writer that commits `key` into the meta table and is killed before any checkpoint: its
    commit lies only in the -wal, beside a -shm that says so."""
    code = (
        "import os, signal, sqlean as sqlite3\n"
        f"c = sqlite3.connect({str(path)!r}, isolation_level=None)\n"
        "c.execute('PRAGMA wal_autocheckpoint = 0')\n"
        f"c.execute('INSERT INTO meta (key, value) VALUES (?, ?)', ({key!r}, 'committed'))\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert Path(f"{path}-wal").stat().st_size > 0 and Path(f"{path}-shm").exists()


def test_a_killed_writers_commit_is_read_and_its_wal_and_shm_are_left_as_they_were(synced, make_app, docs):
    """Opened as before, the reader rebuilt the -shm of a writer killed after its commit (its mtime moved)."""
    _commit_then_die(synced, "killed writer's commit")
    before = _listing(synced.parent)
    reader = make_app({"MINIRAG_READ_ONLY": "1"}, db_path=str(synced))
    assert reader.index.meta("killed writer's commit") == "committed"
    _every_read(reader, docs)
    reader.close()
    assert _listing(synced.parent) == before


def test_a_wal_without_its_shm_makes_no_shm_and_is_said(synced, make_app, docs, caplog):
    """A -wal holding commits with its -shm gone (a copy of a live index): reading it needs a -shm,
    which a read-only open must not make; the reader says what it does not see."""
    import logging

    _commit_then_die(synced, "copied commit")
    os.unlink(f"{synced}-shm")
    before = _listing(synced.parent)
    with caplog.at_level(logging.WARNING, logger="minirag.store.index"):
        reader = make_app({"MINIRAG_READ_ONLY": "1"}, db_path=str(synced))
        assert payload(reader.query("otters sleep"))["results"]
        reader.close()
    assert _listing(synced.parent) == before
    assert any("-wal holds writes not yet in the index file" in r.getMessage() for r in caplog.records)


def test_a_reader_sees_each_commit_a_writer_makes_beside_it_without_a_warning(synced, make_app, caplog):
    """The reader opens the index alone (immutable), sees the writer's -wal appear, and reopens it
    through the writer's -wal and -shm: news to no one, so no warning on the server's stderr."""
    import logging

    reader = make_app({"MINIRAG_READ_ONLY": "1"}, db_path=str(synced))
    assert reader.status().stats.source_count == 2
    writer = make_app(db_path=str(synced))
    with caplog.at_level(logging.INFO, logger="minirag.app"):
        for n, words in enumerate(["zanzibar quokka", "marmalade penguin"]):
            writer.ingest_data(f"# Note {n}\n\nThe {words} appears only here.", f"note-{n}")
            assert f"note-{n}" in [h["source"] for h in payload(reader.query(words))["results"]]
            assert reader.status().stats.source_count == 3 + n
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
    assert any("written elsewhere" in r.getMessage() for r in caplog.records)


class _WritesWhileEmbedding:
    """The real encoder, with another process's commit landing (and checkpointed into the file) while
    the first query's words are embedded: after the reader has read some of the index's pages and
    before it reads the rest."""

    def __init__(self, encoder, during) -> None:
        self._encoder, self._during = encoder, during

    def __getattr__(self, name):
        return getattr(self._encoder, name)

    def embed_queries(self, texts):
        during, self._during = self._during, None
        if during is not None:
            during()
        return self._encoder.embed_queries(texts)


def test_a_read_only_query_that_a_writer_overtakes_answers_from_one_whole_index(synced, make_config, encoder,
                                                                                docs, make_app):
    """Opened `immutable`, SQLite caches pages as if the file never changed: a checkpoint landing
    mid-query mixes pages of two versions of the index (SQLite says "malformed", or worse answers
    from both). The answer must be the whole index before or after, never a mix, and never an error."""
    from minirag.app import App

    def another_process_writes() -> None:
        code = (
            "from minirag.app import App\nfrom minirag.config import load_config\n"
            f"config = load_config(env={{}}, base_dirs=[{str(docs)!r}], db_path={str(synced)!r}, "
            f"model_path={str(make_config().model_path)!r})\n"
            "app = App(config)\n"
            "for n in range(40):\n"
            "    app.ingest_data(f'# Walrus {n}\\n\\nWalruses sleep in the water, number {n}.' * 40, f'walrus-{n}')\n"
            "app.close()\n"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr

    reader = App(make_config({"MINIRAG_READ_ONLY": "1"}, db_path=str(synced)),
                 encoder=_WritesWhileEmbedding(encoder, another_process_writes))
    try:
        assert reader.status().stats.source_count == 2
        answer = payload(reader.query("walruses sleep in the water", top_k=50))
    finally:
        reader.close()
    fresh = make_app({"MINIRAG_READ_ONLY": "1"}, db_path=str(synced))
    assert answer == payload(fresh.query("walruses sleep in the water", top_k=50))


def test_a_check_that_a_writer_overtakes_is_made_again_on_the_index_as_it_is_now(synced):
    """doctor's checks (store/health.py) read the file through connections of their own; opened
    `immutable`, one that a writer's commit and checkpoint overtook had read pages of two versions."""
    from minirag.store import connection as db
    from minirag.store.health import answer

    reads, wrote, seen = [], [], []

    def check() -> str:
        conn = db.connect(synced, read_only=True)
        try:
            reads.append(conn.execute("SELECT COUNT(*) FROM chunks").fetchone())
            if not wrote:  # another process commits and folds it into the file, then closes
                wrote.append(True)
                code = (
                    "import sqlean as sqlite3\n"
                    f"c = sqlite3.connect({str(synced)!r}, isolation_level=None)\n"
                    "c.execute(\"INSERT INTO meta (key, value) VALUES ('overtaken', 'yes')\")\n"
                    "c.execute('PRAGMA wal_checkpoint(TRUNCATE)')\n"
                    "c.close()\n"
                )
                subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
            seen.append(conn.execute("SELECT value FROM meta WHERE key = 'overtaken'").fetchone())
            return answer(conn, "quick_check")
        finally:
            conn.close()

    assert db.read_whole(synced, check) == "ok"
    assert len(reads) == 2 and seen[-1] == ("yes",)  # read once more, on the index as the writer left it
    assert sorted(p.name for p in synced.parent.iterdir()) == ["index.db", "index.db.sync.lock"]


_AS_NOBODY = """
import contextlib, importlib.metadata, io, json, os, sys
from minirag import cli
commands = json.loads(sys.argv[1])
# Every module loaded first, as root: the interpreter's own library may lie where nobody cannot
# read (here, under /root). Read-only commands write nothing, so the warm-up changes nothing.
for command in commands:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        with contextlib.suppress(SystemExit):
            cli.main(command)
os.setgroups([]); os.setgid(65534); os.setuid(65534)
os.environ["CACHE_DIR"] = os.environ["NOBODY_CACHE_DIR"]
results = []
for command in commands:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(command)
        except SystemExit as exc:
            code = exc.code
    results.append([code or 0, out.getvalue(), err.getvalue()])
print(json.dumps(results))
"""


def _as_nobody(commands: list[list[str]], env: dict[str, str]) -> list[tuple[int, str, str]]:
    """Each CLI command run as the user nobody (uid 65534, no groups), in one process."""
    done = subprocess.run([sys.executable, "-c", _AS_NOBODY, json.dumps(commands)], env=env, capture_output=True,
                          text=True, timeout=300, cwd="/")
    assert done.returncode == 0, done.stderr
    return [tuple(result) for result in json.loads(done.stdout.splitlines()[-1])]


@pytest.fixture
def nobody_world(docs, model_dir, run_cli):
    """The index, its documents and a model cache in folders nobody may read but not write."""
    if os.geteuid() != 0:
        pytest.skip("needs root, to become nobody")
    for needed in (model_dir, Path(__file__).resolve().parents[1]):
        if not all(os.stat(p).st_mode & 0o005 for p in (needed, *needed.parents) if p != Path("/")):
            pytest.skip(f"{needed} is closed to other users")
    import tempfile

    world = Path(tempfile.mkdtemp(prefix="minirag-nobody-", dir="/tmp"))
    os.chmod(world, 0o755)
    write(world / "docs" / "otters.md", "# Otters\n\nSea otters hold hands while they sleep.\n")
    (world / "idx").mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": "/nonexistent", "MINIRAG_READ_ONLY": "1",
           "DB_PATH": str(world / "idx" / "index.db"), "BASE_DIR": str(world / "docs"), "MODEL_PATH": str(model_dir),
           "NOBODY_CACHE_DIR": str(world / "cache"), "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
           "PYTHONDONTWRITEBYTECODE": "1"}
    # Made in this process, by root as before: the reads under test are nobody's, in a process of their own.
    made = run_cli("sync", env=in_this_process({**env, "MINIRAG_READ_ONLY": "0"}), cwd="/")
    assert made.returncode == 0, made.stderr
    yield world / "idx" / "index.db", env
    shutil.rmtree(world)


READS = [["query", "--json", "otters"], ["read", "OTTERS"], ["list"], ["status"], ["doctor"], ["collections"]]


def _reads(index: Path) -> list[list[str]]:
    documents = index.parent.parent / "docs"
    return [[str(documents / "otters.md") if arg == "OTTERS" else arg for arg in command] for command in READS]


def test_nobody_reads_an_index_in_a_folder_it_cannot_write_and_changes_nothing(nobody_world):
    """Another user, a folder it may only read: no -wal or -shm can be made there, and none is needed."""
    index, env = nobody_world
    before = _listing(index.parent)
    results = _as_nobody(_reads(index), env)
    assert [code for code, _, _ in results] == [0] * len(READS), results
    assert json.loads(results[0][1])["results"]
    assert _listing(index.parent) == before
    assert not (index.parent.parent / "cache").exists()


def test_nobody_reads_a_killed_writers_commit_through_its_wal_and_shm_and_changes_nothing(nobody_world):
    index, env = nobody_world
    _commit_then_die(index, "killed writer's commit")
    for name in ("index.db-wal", "index.db-shm"):
        os.chmod(index.parent / name, 0o644)  # as a writer's umask of 022 makes them
    before = _listing(index.parent)
    results = _as_nobody(_reads(index), env)
    assert [code for code, _, _ in results] == [0] * len(READS), results
    assert _listing(index.parent) == before


def test_a_shm_nobody_may_not_read_is_named_in_one_line(nobody_world):
    """It said only "cannot open the index ... (unable to open database file); check that its folder
    exists and that this user may read it", and the user may read the index file and its folder."""
    index, env = nobody_world
    _commit_then_die(index, "killed writer's commit")
    os.chmod(index.parent / "index.db-wal", 0o644)
    os.chmod(index.parent / "index.db-shm", 0o600)
    (code, out, err), = _as_nobody([["query", "otters"]], env)
    assert code == 1 and err.count("\n") == 1, err
    assert f"{index}-shm" in err and "cannot be read by this user" in err, err
