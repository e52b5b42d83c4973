"""Red team 79: `minirag ingest-data` read the whole of standard input before weighing it against
MAX_FILE_SIZE. 400 MB piped in peaked at 1.27 GB of memory to be refused; an input that never ends
(`yes | minirag ingest-data --source x`, a stuck producer) was held until memory ran out. It now
reads at most MAX_FILE_SIZE + 1 bytes and refuses at once."""

from __future__ import annotations

import io
import sys

from minirag import cli

LIMIT = 1_000_000
TOO_FAR = 8 * LIMIT  # this test's own stop: a reader past it would read on for ever


class _Endless(io.RawIOBase):
    """A stream of `a`s that never ends, counting what was read of it."""

    def __init__(self) -> None:
        self.given = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self.given > TOO_FAR:
            raise AssertionError(f"read {self.given:,} bytes of an endless standard input")
        view = memoryview(buffer).cast("B")
        view[:] = b"a" * len(view)
        self.given += len(view)
        return len(view)




def test_an_endless_standard_input_is_refused_after_max_file_size(cli_env, monkeypatch, capsys):
    endless = _Endless()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(endless), encoding="utf-8"))
    monkeypatch.setenv("MAX_FILE_SIZE", str(LIMIT))
    code = cli.main(["ingest-data", "--source", "notes/endless"])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "MAX_FILE_SIZE" in err and "Traceback" not in err, err
    assert endless.given <= LIMIT + 1 + io.DEFAULT_BUFFER_SIZE
