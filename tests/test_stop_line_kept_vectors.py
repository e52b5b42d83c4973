"""The line a Ctrl-C inside a large file leaves says that the chunks embedded so far are kept for the
next run (store/pending.py): it said only that no file was indexed, as if the embedding were lost."""

from __future__ import annotations

import re

from conftest import write


def test_ctrl_c_inside_a_large_file_says_its_embedded_chunks_are_kept(docs, cli_env, run_cli, monkeypatch):
    from minirag.cli_output import ProgressLine

    write(docs / "big.md", "\n\n".join(f"## Part {n}\n\n" + " ".join(f"word{n}x{i}" for i in range(120))
                                       for n in range(120)))

    def ctrl_c_once_chunks_are_embedded(self, progress):
        if progress.chunks_to_embed > 50 and 0 < progress.chunks_embedded < progress.chunks_to_embed:
            raise KeyboardInterrupt  # inside the large file's embedding

    with monkeypatch.context() as patch:
        patch.setattr(ProgressLine, "__call__", ctrl_c_once_chunks_are_embedded)
        result = run_cli("sync")
    assert result.returncode == 130
    said = re.fullmatch(r"minirag: interrupted; (?:no file was|1 file) indexed before the stop(?: stays indexed)?: run "
                        r"`minirag sync` again for the rest; the (\d+) chunks? embedded for files not finished "
                        r"(?:is|are) kept, not embedded again",
                        result.stderr.splitlines()[-1])
    assert said is not None, result.stderr
    again = run_cli("sync", "--json")
    assert again.returncode == 0
    assert f'"chunksReused": {said.group(1)}' in again.stdout
