"""A zip whose member names claim to be UTF-8 (general-purpose flag bit 11) but are not.

zipfile decodes such a name as UTF-8 and fails, and the whole archive with it. The flag is one
bit, damaged as easily as any other, and a member's data is checked by its own CRC: the name is
read as zipfile reads a name that claims nothing (cp437, the zip format's own code page), so the
member and every other one read. A part its package refers to by its true name is then missing,
as a damaged part is, and said to be so by the reader.
"""

from __future__ import annotations

import struct

_UTF8 = 0x800
_CENTRAL = b"PK\x01\x02"
_LOCAL = b"PK\x03\x04"
_END = b"PK\x05\x06"


def names_read_as_cp437(data: bytes) -> tuple[bytes, tuple[str, ...]]:
    """`data` with the UTF-8 flag taken off each central directory entry (and its local header)
    whose name is not UTF-8, and those names as cp437; `data` as it is where none is, or where
    its central directory cannot be walked (then zipfile says what is wrong)."""
    end = data.rfind(_END)
    if end < 0 or end + 22 > len(data):
        return data, ()
    count, size, offset = struct.unpack_from("<HII", data, end + 10)
    if offset + size > end or offset == 0xFFFFFFFF:  # (a ZIP64 directory, or a wrong offset: left to zipfile)
        return data, ()
    mended, names = bytearray(data), []
    at = offset
    for _ in range(count):
        if data[at:at + 4] != _CENTRAL or at + 46 > len(data):
            return data, ()
        flags = struct.unpack_from("<H", data, at + 8)[0]
        name_size, extra_size, comment_size = struct.unpack_from("<HHH", data, at + 28)
        local = struct.unpack_from("<I", data, at + 42)[0]
        raw = data[at + 46:at + 46 + name_size]
        if flags & _UTF8 and not _is_utf8(raw):
            struct.pack_into("<H", mended, at + 8, flags & ~_UTF8)
            if data[local:local + 4] == _LOCAL:
                local_flags = struct.unpack_from("<H", data, local + 6)[0]
                struct.pack_into("<H", mended, local + 6, local_flags & ~_UTF8)
            names.append(raw.decode("cp437"))
        at += 46 + name_size + extra_size + comment_size
    return bytes(mended), tuple(names)


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
