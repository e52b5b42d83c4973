"""Compound files ([MS-CFB], version 3) written from a tree of streams and storages, for tests
that need a file no Office program writes: entries shared between storages, many attachments.

Every stream is written in regular sectors (the header's mini-stream cutoff is 0), so no mini
stream is needed. A node placed under several storages is written once: each of them points at
the same directory entry, as a forged file may.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

_SECTOR = 512
_END, _FREE, _FAT_SECTOR, _NONE = 0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFD, 0xFFFFFFFF
_STORAGE, _STREAM, _ROOT = 1, 2, 5


@dataclass(eq=False)
class Node:
    name: str
    data: bytes | None = None  # a stream's bytes; None for a storage
    children: list[Node] = field(default_factory=list)


def compound_file(children: list[Node]) -> bytes:
    root = Node("Root Entry", None, children)
    order: list[Node] = []
    index: dict[int, int] = {}

    def place(node: Node) -> None:
        if id(node) not in index:
            index[id(node)] = len(order)
            order.append(node)
            for child in node.children:
                place(child)

    place(root)
    links: dict[int, tuple[int, int]] = {}  # entry -> (right sibling, first child)
    for node in order:
        for position, child in enumerate(node.children):
            following = node.children[position + 1] if position + 1 < len(node.children) else None
            right = index[id(following)] if following is not None else _NONE
            links.setdefault(index[id(child)], (right, _NONE))
    sectors: list[bytes] = []
    starts: dict[int, int] = {}
    chains: list[int] = []  # FAT entries of the stream and directory sectors
    for number, node in enumerate(order):
        if node.data:
            starts[number] = len(sectors)
            count = -(-len(node.data) // _SECTOR)
            for offset in range(count):
                sectors.append(node.data[offset * _SECTOR:(offset + 1) * _SECTOR].ljust(_SECTOR, b"\0"))
                chains.append(len(sectors) if offset + 1 < count else _END)
    directory = b"".join(_entry(node, number, index, links, starts) for number, node in enumerate(order))
    directory = directory.ljust(-(-len(directory) // _SECTOR) * _SECTOR, b"\0")
    first_directory = len(sectors)
    for offset in range(0, len(directory), _SECTOR):
        sectors.append(directory[offset:offset + _SECTOR])
        chains.append(len(sectors) if offset + _SECTOR < len(directory) else _END)
    per_fat = _SECTOR // 4
    fat_count = 1
    while (len(sectors) + fat_count) > fat_count * per_fat:
        fat_count += 1
    fat_start = len(sectors)
    fat = chains + [_FAT_SECTOR] * fat_count
    fat += [_FREE] * (fat_count * per_fat - len(fat))
    assert fat_count <= 109, "a file this large needs a DIFAT chain"
    header = bytearray(_SECTOR)
    header[0:8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
    struct.pack_into("<HHHHH", header, 0x18, 0x3E, 3, 0xFFFE, 9, 6)
    struct.pack_into("<IIIIIIII", header, 0x2C, fat_count, first_directory, 0, 0, _END, 0, _END, 0)
    difat = [fat_start + n for n in range(fat_count)] + [_FREE] * (109 - fat_count)
    struct.pack_into("<109I", header, 0x4C, *difat)
    return bytes(header) + b"".join(sectors) + struct.pack(f"<{len(fat)}I", *fat)


def _entry(node: Node, number: int, index: dict[int, int], links: dict[int, tuple[int, int]],
           starts: dict[int, int]) -> bytes:
    name = node.name.encode("utf-16-le")[:62]
    kind = _ROOT if number == 0 else (_STREAM if node.data is not None else _STORAGE)
    right = links.get(number, (_NONE, _NONE))[0]
    child = index[id(node.children[0])] if node.children else _NONE
    entry = bytearray(128)
    entry[0:len(name)] = name
    struct.pack_into("<HBB", entry, 0x40, len(name) + 2, kind, 1)
    struct.pack_into("<III", entry, 0x44, _NONE, right, child)
    struct.pack_into("<IQ", entry, 0x74, starts.get(number, _END), len(node.data or b""))
    return bytes(entry)


def all_fat(fat_sectors: int, next_of) -> bytes:
    """A compound file (version 3) of nothing but a root entry, its DIFAT and `fat_sectors` FAT
    sectors: as large a FAT as a file of its size can claim. FAT entry i holds `next_of(i)`;
    entry 0 is the directory's one sector."""
    per = _SECTOR // 4 - 1  # FAT sectors a DIFAT sector lists; its last number chains the next
    difat_sectors = max(0, -(-(fat_sectors - 109) // per))
    fats = list(range(1 + difat_sectors, 1 + difat_sectors + fat_sectors))
    header = bytearray(_SECTOR)
    header[:8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
    struct.pack_into("<HHHHH", header, 0x18, 0x3E, 3, 0xFFFE, 9, 6)
    struct.pack_into("<IIIIIIII", header, 0x2C, fat_sectors, 0, 0, 4096, _END, 0,
                     1 if difat_sectors else _END, difat_sectors)
    struct.pack_into("<109I", header, 0x4C, *(fats[:109] + [_FREE] * (109 - len(fats[:109]))))
    directory = bytearray(_SECTOR)
    name = "Root Entry".encode("utf-16-le") + b"\0\0"
    directory[:len(name)] = name
    struct.pack_into("<HB", directory, 64, len(name), _ROOT)
    struct.pack_into("<IIIIQ", directory, 0x44, _NONE, _NONE, _NONE, 0, 0)
    struct.pack_into("<IQ", directory, 0x74, _END, 0)
    difat = bytearray()
    for number in range(difat_sectors):
        listed = fats[109 + number * per:109 + (number + 1) * per]
        difat += struct.pack(f"<{per + 1}I", *listed, *[_FREE] * (per - len(listed)),
                             2 + number if number + 1 < difat_sectors else _END)
    entries = fat_sectors * _SECTOR // 4
    fat = struct.pack(f"<{entries}I", *(next_of(i) & 0xFFFFFFFF for i in range(entries)))
    return bytes(header + directory + difat + fat)
