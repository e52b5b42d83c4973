"""Outlook's compressed RTF ([MS-OXRTFCP]): the body of a message saved with formatting, which
msg_text.py reads when a message holds no plain-text or HTML body.

A 16-byte header (sizes, the kind: "LZFu" compressed or "MELA" stored as is, a CRC), then LZ77
runs over a 4,096-byte ring buffer primed with a fixed RTF preamble: each control byte says,
bit by bit, whether a literal byte or a 2-byte reference (12-bit position, 4-bit length less 2)
follows; a reference to the current write position ends the stream. The output is at most
MAX_OUTPUT bytes, whatever the header claims.
"""

from __future__ import annotations

import struct

MAX_OUTPUT = 32 * 1024 * 1024
_COMPRESSED, _STORED = 0x75465A4C, 0x414C454D
_PRIMER = (b"{\\rtf1\\ansi\\mac\\deff0\\deftab720{\\fonttbl;}{\\f0\\fnil \\froman \\fswiss \\fmodern \\fscript "
           b"\\fdecor MS Sans SerifSymbolArialTimes New RomanCourier{\\colortbl\\red0\\green0\\blue0\r\n\\par "
           b"\\pard\\plain\\f0\\fs20\\b\\i\\u\\tab\\tx")


def decompressed(data: bytes) -> bytes:
    """The RTF a compressed-RTF stream holds; ValueError for a stream that is neither kind."""
    if len(data) < 16:
        raise ValueError("a compressed RTF header is 16 bytes")
    _, raw_size, kind, _ = struct.unpack_from("<IIII", data)
    if kind == _STORED:
        return data[16:16 + min(raw_size, MAX_OUTPUT)]
    if kind != _COMPRESSED:
        raise ValueError("not compressed RTF")
    ring = bytearray(4096)
    ring[:len(_PRIMER)] = _PRIMER
    write = len(_PRIMER)
    out = bytearray()
    at, end = 16, len(data)
    while at < end and len(out) < MAX_OUTPUT:
        control = data[at]
        at += 1
        for bit in range(8):
            if at >= end:
                break
            if not control >> bit & 1:
                ring[write] = data[at]
                out.append(data[at])
                write = (write + 1) & 0xFFF
                at += 1
                continue
            if at + 2 > end:
                return bytes(out)
            reference = data[at] << 8 | data[at + 1]
            at += 2
            offset, length = reference >> 4, (reference & 0xF) + 2
            if offset == write:
                return bytes(out)
            for step in range(length):
                byte = ring[(offset + step) & 0xFFF]
                ring[write] = byte
                out.append(byte)
                write = (write + 1) & 0xFFF
    return bytes(out[:MAX_OUTPUT])
