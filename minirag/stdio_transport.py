"""The MCP stdio transport, with the requests the SDK would drop answered.

JSON allows a lone UTF-16 surrogate escape (`"\\ud800"`) in a string, and a client
may send one (a truncated emoji, a bad paste). The SDK's parser rejects such a
line and answers nothing, so the client waits for that request forever. Here
such a line is parsed with the standard library, which accepts it, every lone
surrogate becomes U+FFFD, and the request goes on. Every other line reaches the
SDK untouched.
"""

from __future__ import annotations

import io
import json
import os
import re

import anyio
from mcp.server.stdio import stdio_server

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # json.loads joins valid pairs: what is left is alone


def repair(line: str) -> str:
    """`line` with each lone surrogate in its JSON strings replaced by U+FFFD."""
    if not _SURROGATE_ESCAPE.search(line):
        return line
    try:
        message = json.loads(line)
    except ValueError:
        return line  # not JSON at all: the SDK says so as before
    return json.dumps(_replace_lone(message), ensure_ascii=False) + "\n"


def _replace_lone(value):
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_replace_lone(v) for v in value]
    if isinstance(value, dict):
        return {_replace_lone(k): _replace_lone(v) for k, v in value.items()}
    return value


class _RepairedLines:
    """What the SDK's stdin reader iterates: the lines of `lines`, repaired."""

    def __init__(self, lines):
        self._lines = lines

    async def __aiter__(self):
        async for line in self._lines:
            yield repair(line)


async def serve_stdio(server) -> None:
    """Serve `server` (an MCPServer) on stdin and stdout until stdin closes.

    Handing the SDK its stdin means it no longer points fd 0 at the null device
    while serving, so that is done here: a converter's child process reading stdin
    must get EOF, not the client's next request.
    """
    reading = os.dup(0)
    saved = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        with io.TextIOWrapper(os.fdopen(reading, "rb"), encoding="utf-8", errors="replace") as text:
            async with stdio_server(stdin=_RepairedLines(anyio.wrap_file(text))) as (read, write):
                lowlevel = server._lowlevel_server  # what MCPServer.run_stdio_async runs, with this stdin
                await lowlevel.run(read, write, lowlevel.create_initialization_options())
    finally:
        os.dup2(saved, 0)
        os.close(saved)
