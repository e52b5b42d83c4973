"""A minirag process keeps at most two glibc malloc arenas (minirag/__init__.py), unless the user
sets MALLOC_ARENA_MAX: every thread of ONNX Runtime's pool and a query's would get one of its own."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux" or platform.libc_ver()[0] != "glibc",
                                reason="glibc's malloc arenas")

# Eight threads allocate small blocks at the same time, then the process counts its arenas.
COUNT_ARENAS = """
import ctypes, os, sys, tempfile, threading
if sys.argv[1] == "minirag":
    import minirag
barrier = threading.Barrier(8)
def work():
    blocks = [bytearray(1000) for _ in range(200)]
    barrier.wait()
    blocks += [bytearray(1000) for _ in range(200)]
    barrier.wait()
threads = [threading.Thread(target=work) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
libc = ctypes.CDLL(None)
libc.fdopen.restype = ctypes.c_void_p
libc.fdopen.argtypes = [ctypes.c_int, ctypes.c_char_p]
libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
libc.fflush.argtypes = [ctypes.c_void_p]
with tempfile.TemporaryFile() as f:
    stream = libc.fdopen(os.dup(f.fileno()), b"w")
    libc.malloc_info(0, stream)
    libc.fflush(stream)
    f.seek(0)
    print(f.read().decode().count("<heap nr="))
"""


def arenas(*argv: str, **env: str) -> int:
    environment = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"} | env
    done = subprocess.run([sys.executable, "-c", COUNT_ARENAS, *argv], capture_output=True, text=True,
                          env=environment, check=True, timeout=60)
    return int(done.stdout)


def test_a_minirag_process_keeps_two_malloc_arenas_unless_the_user_sets_their_number():
    assert arenas("plain") > 2  # what the threads get without minirag: the test can tell
    assert arenas("minirag") == 2
    assert arenas("minirag", MALLOC_ARENA_MAX="4") == 4
