"""Red team 82: the model's derived files on a disk that fills. The first use of a model writes its
split graph, word table and int8 graph into CACHE_DIR, each under a temporary name renamed into place.
A write that failed (a full disk, a file size limit) left its half-written temporary file behind, under
a name of the process's id, and every later command (each query, on a disk still full) tried again and
left one more: the tiny test model left a 1 MiB `table.npy.<pid>.partial` per command under a 1 MiB
limit, MiniLM's table is 23 MB a try. A failed write now removes its partial, and one a killed writer
left is removed by the next write of that file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

_LIMITED_QUERY = textwrap.dedent("""
    import resource, sys
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))  # Python ignores SIGXFSZ: writes fail
    from minirag import cli
    sys.exit(cli.main(["query", "otters"]))
""")


def test_redteam82_a_model_prepared_on_a_full_disk_leaves_no_partial_files(run_cli, cli_env, tmp_path):
    assert run_cli("sync", env={"CACHE_DIR": str(tmp_path / "first-cache")}).returncode == 0
    cache = tmp_path / "full-cache"
    env = {**os.environ, "CACHE_DIR": str(cache)}
    for _ in range(2):  # each command tries the split again
        done = subprocess.run([sys.executable, "-c", _LIMITED_QUERY], env=env, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0 and "otters" in done.stdout.lower(), done.stderr  # the plain model serves
        assert sorted(str(p.relative_to(cache)) for p in cache.rglob("*.partial")) == []


_KILLED_WRITER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from minirag.store.partials import write_atomically

    def write(f):
        f.write(b"half of it")
        f.flush()
        print("writing", flush=True)
        time.sleep(60)

    write_atomically(Path(sys.argv[1]), write)
""")


def test_redteam82_a_partial_a_killed_writer_left_is_removed_by_the_next_write(tmp_path):
    from minirag.store.partials import write_atomically

    target = tmp_path / "table.npy"
    writer = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(target)], stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == "writing"
        partials = list(tmp_path.glob("*.partial"))
        write_atomically(target, lambda f: f.write(b"whole"))  # a live writer's partial is left alone
        assert list(tmp_path.glob("*.partial")) == partials and len(partials) == 1
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait(30)
    write_atomically(target, lambda f: f.write(b"whole again"))
    assert list(tmp_path.glob("*.partial")) == [] and target.read_bytes() == b"whole again"

