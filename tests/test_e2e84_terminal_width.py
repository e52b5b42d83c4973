"""`minirag query` in an 80-column terminal: a hit's heading, snippet and `also in` line are wrapped
at word breaks under their indent, not left to the terminal, which broke a 300-character snippet
mid-word at column 80 and went on at column 0, under the rank numbers. Piped, each stays one line
(for grep and cut). The command runs on a real pseudo-terminal of 80 columns."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios

from conftest import ROOT, write

from minirag.display import display_width

PARAGRAPH = ("Sea otters hold hands while they sleep so that they do not drift apart on the open water, "
             "and a raft of them can number in the hundreds along the kelp forests of the northern Pacific "
             "coast, where 海獺 rest wrapped in long fronds of giant kelp anchored to the rocky sea floor.")


def query_on_a_terminal(columns: int) -> str:
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    process = subprocess.Popen([sys.executable, "-m", "minirag", "query", "otters kelp", "--top-k", "1"],
                               cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=follower,
                               stderr=subprocess.PIPE)
    os.close(follower)
    out = b""
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the follower's last holder went: all is read
            break
        if not data:
            break
        out += data
    os.close(leader)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    return out.decode().replace("\r\n", "\n")


def test_e2e84_a_hit_fits_an_80_column_terminal_wrapped_at_words_under_its_indent(cli_env, docs, run_cli):
    write(docs / "a.md", f"# Otters\n\n{PARAGRAPH}\n")
    assert run_cli("sync").returncode == 0
    shown = query_on_a_terminal(80).rstrip("\n").split("\n")
    source = f"1. {docs / 'a.md'} #0"
    if display_width(source) + len("  (score 1.0000, distance 0.589)") > 80:  # a long temporary folder
        assert shown[0] == source and shown[1].startswith("   (score "), shown
        shown = shown[1:]  # the path alone is not broken
    assert shown[0].startswith(("1. ", "   (score ")) and shown[1] == "   Otters", shown
    assert all(display_width(line) <= 80 for line in shown), shown
    body = shown[2:]
    assert len(body) > 2 and all(line.startswith("   ") and line[3] != " " for line in body), body
    words = " ".join(line.strip() for line in body).split()
    assert words == PARAGRAPH.split(), words  # no word cut, none lost
    piped = run_cli("query", "otters kelp", "--top-k", "1").stdout.rstrip("\n").split("\n")
    assert piped[2] == f"   {PARAGRAPH}", piped
