"""The streams of a Compound File Binary file ([MS-CFB]: what Office 97-2003 saved .doc, .xls and
.ppt files as), read from the file's bytes.

A compound file is a small file system in sectors: a header, a file allocation table (FAT)
chaining each stream's sectors, a directory of named entries, and a mini stream of 64-byte sectors
(chained by the mini FAT) holding the streams under 4,096 bytes. Every chain is followed at most
once around: a chain that loops, points outside the file or is shorter than its stream is damage,
and so is a header that lies about its sizes. Nothing is read past the file's own bytes. Damage
to the mini stream or its FAT costs only the small streams kept there.
"""

from __future__ import annotations

import struct
import sys
from array import array
from dataclasses import dataclass

SIGNATURE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_LAST_REGULAR = 0xFFFFFFFA  # sector numbers at or past it mark a chain's end or a FAT's own sectors
_HEADER_DIFAT = 109
_ENTRY = 128
_STORAGE, _STREAM, _ROOT = 1, 2, 5
MAX_DIRECTORY_ENTRIES = 100_000
_NO_ENTRY = 0xFFFFFFFF
_UINT32 = "I"  # a 4-byte unsigned C int on every platform Python builds for


class CompoundFileError(ValueError):
    """The bytes are no compound file, or a damaged one: the message says which part."""


@dataclass(frozen=True)
class Entry:
    name: str
    kind: int
    start: int
    size: int
    left: int  # the directory's red-black tree of a storage's children: siblings, then the first child
    right: int
    child: int

    @property
    def is_storage(self) -> bool:
        return self.kind in (_STORAGE, _ROOT)


class CompoundFile:
    def __init__(self, data: bytes) -> None:
        if not data.startswith(SIGNATURE) or len(data) < 512:
            raise CompoundFileError("not a compound file")
        self.data = data
        major, = struct.unpack_from("<H", data, 0x1A)
        shift, mini_shift = struct.unpack_from("<HH", data, 0x1E)
        if (major, shift) not in ((3, 9), (4, 12)) or mini_shift != 6:
            raise CompoundFileError(f"unknown sector sizes (version {major}, 2^{shift})")
        self.sector_size = 1 << shift
        self.sectors = max(0, len(data) // self.sector_size - 1)
        (fat_sectors, self.first_directory, _, self.mini_cutoff, first_mini_fat, mini_fat_sectors,
         first_difat, difat_sectors) = struct.unpack_from("<IIIIIIII", data, 0x2C)
        self.fat = self._fat(fat_sectors, first_difat, difat_sectors)
        self.entries = self._directory()
        root = self.entries[0] if self.entries and self.entries[0].kind == _ROOT else None
        if root is None:
            raise CompoundFileError("no root entry")
        self._first_mini_fat, self._mini_fat_sectors = first_mini_fat, mini_fat_sectors
        self._mini: tuple[array, bytes] | str | None = None  # read at the first small stream

    def _mini_parts(self) -> tuple[array, bytes]:
        """The mini FAT and the mini stream, read once: damage in them is damage to the small streams
        alone (a document's own streams are often over the cutoff, outside them), and is said again
        for each small stream read without walking the chains again."""
        if self._mini is None:
            root = self.entries[0]
            try:
                self._mini = (self._numbers(self._chain_bytes(self._first_mini_fat,
                                                              self._mini_fat_sectors * self.sector_size)),
                              self._chain_bytes(root.start, root.size) if root.size else b"")
            except CompoundFileError as exc:
                self._mini = str(exc)
        if isinstance(self._mini, str):
            raise CompoundFileError(self._mini)
        return self._mini

    def _numbers(self, data: bytes) -> array:
        """The little-endian 32-bit numbers in `data`, 4 bytes each in memory: a FAT may be as large
        as the file (every sector a FAT sector), and a tuple of ints had held 10 times its bytes."""
        numbers = array(_UINT32, data[:len(data) - len(data) % 4])
        if sys.byteorder == "big":
            numbers.byteswap()
        return numbers

    def _sector(self, number: int) -> bytes:
        if number >= self.sectors:
            raise CompoundFileError(f"sector {number} is past the file's end")
        start = (number + 1) * self.sector_size
        return self.data[start:start + self.sector_size]

    def _fat(self, fat_sectors: int, first_difat: int, difat_sectors: int) -> array:
        if fat_sectors > self.sectors:
            raise CompoundFileError("more FAT sectors than the file holds")
        listed = list(struct.unpack_from(f"<{_HEADER_DIFAT}I", self.data, 0x4C))
        seen: set[int] = set()
        sector = first_difat
        while sector < _LAST_REGULAR and len(listed) < fat_sectors + _HEADER_DIFAT:
            if sector in seen or len(seen) >= difat_sectors:
                raise CompoundFileError("the DIFAT's chain loops or runs past its length")
            seen.add(sector)
            numbers = self._numbers(self._sector(sector))
            listed += numbers[:-1]
            sector = numbers[-1]
        fat = array(_UINT32)
        for number in listed[:fat_sectors]:
            if number < _LAST_REGULAR:
                fat.extend(self._numbers(self._sector(number)))
        return fat

    def _chain(self, start: int, table: array, needed: int | None = None, sectors: int | None = None) -> list[int]:
        """The sectors chained from `start`, no more than `needed` of them: a stream's bytes are
        read from the sectors its size takes, however long the chain runs on. A sector past the
        `sectors` there are (the file's, by default) ends it at once: a FAT larger than the file
        had been followed through every entry it holds before the first missing sector was read."""
        sectors = self.sectors if sectors is None else sectors
        chain: list[int] = []
        seen: set[int] = set()
        sector = start
        while sector < _LAST_REGULAR and (needed is None or len(chain) < needed):
            if sector in seen or sector >= len(table):
                raise CompoundFileError("a sector chain loops or leaves its table")
            if sector >= sectors:
                raise CompoundFileError(f"sector {sector} is past the {'file' if table is self.fat else 'mini stream'}'s end")
            seen.add(sector)
            chain.append(sector)
            sector = table[sector]
        return chain

    def _chain_bytes(self, start: int, size: int) -> bytes:
        needed = -(-size // self.sector_size)
        data = b"".join(self._sector(number) for number in self._chain(start, self.fat, needed))
        if len(data) < size:
            raise CompoundFileError("a stream is longer than its chain of sectors")
        return data[:size]

    def _directory(self) -> list[Entry]:
        data = b"".join(self._sector(number) for number in self._chain(self.first_directory, self.fat))
        entries = []
        for offset in range(0, min(len(data), MAX_DIRECTORY_ENTRIES * _ENTRY), _ENTRY):
            raw_name, name_bytes, kind = struct.unpack_from("<64sHB", data, offset)
            left, right, child = struct.unpack_from("<III", data, offset + 0x44)
            start, size = struct.unpack_from("<IQ", data, offset + 0x74)
            if self.sector_size == 512:
                size &= 0xFFFFFFFF  # a version-3 file's high half may hold anything
            name = raw_name[:max(0, min(name_bytes, 64) - 2)].decode("utf-16-le", "replace")
            entries.append(Entry(name, kind, start, size, left, right, child))
        return entries

    def children(self, storage: Entry | None = None) -> list[Entry]:
        """The entries a storage (the root by default) holds directly: its child tree walked once,
        an index met twice or out of the directory left out."""
        tree = (storage or self.entries[0]).child
        found: list[Entry] = []
        seen: set[int] = set()
        pending = [tree]
        while pending:
            index = pending.pop()
            if index >= len(self.entries) or index in seen:
                continue
            seen.add(index)
            entry = self.entries[index]
            found.append(entry)
            pending += [entry.left, entry.right]
        return found

    def directory_damage(self) -> str | None:
        """What is wrong with the directory's tree, walked whole from the root, in words to follow
        `its directory` (`leaves 12 entries in use unreached`); None where
        every entry in use is reached once, and nothing else is. A sector of it overwritten shows
        as an entry pointing past the directory, at the root or at an entry in no use, or as
        entries in use that nothing reaches (what they held is lost to the reader)."""
        seen, pending, wrong = {0}, [self.entries[0].child], None
        while pending:
            index = pending.pop()
            if index == _NO_ENTRY:
                continue
            if index >= len(self.entries) or index in seen:
                wrong = wrong or ("points past its end" if index >= len(self.entries) else "reaches an entry twice")
                continue
            seen.add(index)
            entry = self.entries[index]
            if entry.kind not in (_STORAGE, _STREAM):
                wrong = wrong or "points at an entry in no use"
                continue
            pending += [entry.left, entry.right] + ([entry.child] if entry.kind == _STORAGE else [])
        unreached = sum(1 for index, entry in enumerate(self.entries)
                        if entry.kind in (_STORAGE, _STREAM) and index not in seen)
        if unreached:
            return f"leaves {unreached:,} entries in use unreached" + (f", and {wrong}" if wrong else "")
        return wrong

    def stream(self, name: str, storage: Entry | None = None) -> bytes | None:
        """The stream named `name` (compared without case, as the format does) directly in
        `storage` (the root by default), not in a storage inside it (an embedded object's); None
        if none is."""
        wanted = name.casefold()
        entry = next((e for e in self.children(storage) if e.kind == _STREAM and e.name.casefold() == wanted), None)
        if entry is None:
            return None
        return self.read(entry)

    def read(self, entry: Entry) -> bytes:
        """A stream entry's bytes."""
        if entry.size >= self.mini_cutoff:
            return self._chain_bytes(entry.start, entry.size)
        mini_fat, mini_stream = self._mini_parts()
        chain = self._chain(entry.start, mini_fat, -(-entry.size // 64), sectors=-(-len(mini_stream) // 64))
        data = b"".join(mini_stream[number * 64:(number + 1) * 64] for number in chain)
        if len(data) < entry.size:
            raise CompoundFileError(f"stream {entry.name!r} is longer than the mini stream holds")
        return data[:entry.size]
