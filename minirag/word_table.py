"""The word-embedding table kept out of the ONNX graph: a memory-mapped array looked up in numpy.

A BERT / XLM-R export starts with `Gather(word_embeddings, input_ids)`; for
multilingual-e5-small that table is 250,037 x 384 float32, 384 MB of the
470 MB model, and ONNX Runtime holds all of it in memory while a query reads
a few dozen rows. `split` cuts that Gather out once: the rest of the graph is
saved as a smaller model whose new input is the Gather's output, the table as
a float16 `.npy` beside it; `Encoder` then looks rows up in the table (only the
rows touched are read) and feeds the vectors in. A graph whose table is stored
int8 and dequantized inside it (`Gather(Mul(Cast(int8 table), scale), input_ids)`,
as all-MiniLM-L6-v2's) loses the three nodes: the int8 table is kept as it is,
its scales beside it, and each looked-up row is dequantized as the graph did
(the same float32 products). A graph of another shape is left alone (None: the
plain model is used).

The surgery works on the protobuf wire format directly (no `onnx` package at
run time): the graph's fields are copied as byte spans, less the Gather node,
its table and any value_info of its output, plus one new input.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from minirag import onnx_proto as proto
from minirag.onnx_proto import FLOAT, INT8, len_field, tensor_info
from minirag.store.partials import open_made, write_atomically

log = logging.getLogger(__name__)

#: Bumped when the files written change shape, so older splits are made again.
FORMAT = 3
SPLIT_DIR = "minirag-split"
TOKEN_IDS = "input_ids"  # the input Encoder feeds token ids to: the table is looked up with them


@dataclass(frozen=True)
class SplitModel:
    """The graph without its word-embedding Gather, and the table to look rows up in."""

    onnx_path: Path
    table_path: Path
    embeds_input: str  # the graph input that takes the looked-up rows, [batch, sequence, width] float32
    keeps_input_ids: bool  # the graph still reads input_ids (e.g. its shape, or padding-aware positions)
    scale_path: Path | None = None  # an int8 table's scales, [rows or 1, width or 1] float32

    def table(self) -> TableRows:
        return TableRows(self.table_path, self.scale_path)


class TableRows:
    """The table's rows, read from the file on demand: `rows[ids]` is `table[ids]` for an int array
    of any shape.

    Read with pread, not through a memory map: the pages a map touches (each row drags in its
    neighbours' page, and readahead more) stay in the process's resident set, and a long-serving
    process ends up holding most of the table; read rows leave the pages in the shared page
    cache only (docs/models.md#what-a-loaded-model-costs-and-the-cache-beside-it)."""

    def __init__(self, path: Path, scale_path: Path | None = None):
        self._fd = -1
        with open_made(path) as file:  # the header: shape, dtype, where the data starts
            shape, fortran, dtype = _npy_header(file)
            self._start = file.tell()
            if len(shape) != 2 or fortran or dtype.hasobject:
                raise ValueError(f"{path}: a word table is two dimensions of numbers in rows, not {shape} {dtype}")
            self._fd = os.dup(file.fileno())
        self.shape: tuple[int, int] = (int(shape[0]), int(shape[1]))
        self.dtype = dtype
        self._row_bytes = self.shape[1] * self.dtype.itemsize
        self.scale: np.ndarray | None = None
        if scale_path is not None:
            with open_made(scale_path) as file:
                scale = np.load(file)
            if (scale.ndim != 2 or scale.dtype != np.float32 or scale.shape[0] not in (1, self.shape[0])
                    or scale.shape[1] not in (1, self.shape[1])):
                raise ValueError(f"{scale_path}: scales of shape {scale.shape} do not fit a {self.shape} table")
            self.scale = scale

    def floats(self, ids: np.ndarray) -> np.ndarray:
        """`table[ids]` as float32, the values the graph's own lookup gave: float16 rows widened, int8
        rows times their scales (the graph's Cast and Mul, in float32 per looked-up row)."""
        rows = self[ids].astype(np.float32)
        if self.scale is None:
            return rows
        return rows * (self.scale[np.asarray(ids)] if self.scale.shape[0] > 1 else self.scale[0])

    def __getitem__(self, ids: np.ndarray) -> np.ndarray:
        ids = np.asarray(ids)
        unique, inverse = np.unique(ids, return_inverse=True)
        if unique.size and (unique[0] < 0 or unique[-1] >= self.shape[0]):
            raise IndexError(f"token id out of the table's {self.shape[0]} rows")
        rows = np.empty((unique.size, self.shape[1]), dtype=self.dtype)
        for i, row in enumerate(unique.tolist()):
            data = os.pread(self._fd, self._row_bytes, self._start + row * self._row_bytes)
            if len(data) != self._row_bytes:
                raise ValueError("the word table file is shorter than its header says")
            rows[i] = np.frombuffer(data, dtype=self.dtype)
        return rows[inverse.reshape(-1)].reshape(*ids.shape, self.shape[1])

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __del__(self) -> None:
        self.close()


def _npy_header(file) -> tuple[tuple[int, ...], bool, np.dtype]:
    """The shape, Fortran order and dtype an .npy file's header gives; the file left where its data starts."""
    version = np.lib.format.read_magic(file)
    read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
    return read(file)


def cached(source: Path, cache_dir: Path) -> SplitModel | None:
    """The split of `source` in `cache_dir`, made on first use; None when the graph has no
    such Gather or the cache cannot be written (the plain model serves then)."""
    try:
        stat = source.stat()
    except OSError:
        return None
    # The source's identity without reading its 470 MB on every start: path, size, mtime.
    key = hashlib.sha256(f"{FORMAT}\0{source.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}".encode()).hexdigest()
    folder = cache_dir / SPLIT_DIR / key[:32]
    meta_path = folder / "split.json"
    meta = read_meta(meta_path)
    if meta is None:
        # Reading a 470 MB graph and writing its parts takes seconds, a minute on a busy machine:
        # said on a terminal, so a first query or sync is not silent meanwhile (elsewhere, with -v).
        say = log.warning if _on_terminal() else log.info
        say("preparing the model %s for its first use (once, into %s)", source, cache_dir)
        try:
            meta = _make(source, folder)
        except (OSError, ValueError, IndexError) as exc:  # a read-only cache, a full disk, a foreign file
            log.info("word table not split out of %s (%s); using the plain model", source, exc)
            return None
        _drop_older(folder, source)
    if not meta.get("split"):
        return None
    return SplitModel(folder / "model.onnx", folder / "table.npy", meta["embeds_input"], meta["keeps_input_ids"],
                      folder / "scale.npy" if meta.get("scaled") else None)


def _on_terminal() -> bool:
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stderr
        return False


def read_meta(path: Path) -> dict | None:
    try:
        with open_made(path) as file:
            return json.loads(file.read().decode("utf-8"))
    except (OSError, ValueError):
        return None


def _make(source: Path, folder: Path) -> dict:
    """Split `source` into `folder`; every file written under a temporary name and renamed, the
    metadata last, so a reader sees a complete split or none (two processes may race: same bytes)."""
    data = memoryview(source.read_bytes())
    cut = split_graph(data)
    folder.mkdir(parents=True, exist_ok=True)
    meta: dict[str, object]
    if cut is None:
        meta = {"split": False, "source": str(source)}
    else:
        write_atomically(folder / "model.onnx", lambda f: f.write(cut.model))
        write_atomically(folder / "table.npy", lambda f: np.save(f, cut.table))
        if (scale := cut.scale) is not None:
            write_atomically(folder / "scale.npy", lambda f: np.save(f, scale))
        meta = {"split": True, "embeds_input": cut.embeds_input, "keeps_input_ids": cut.keeps_input_ids,
                "scaled": cut.scale is not None, "source": str(source), "rows": cut.table.shape[0],
                "width": cut.table.shape[1], "dtype": str(cut.table.dtype)}
    write_atomically(folder / "split.json", lambda f: f.write(json.dumps(meta, indent=2).encode()))
    return meta


def _drop_older(folder: Path, source: Path) -> None:
    """Remove the splits no path can reach again: the other splits of the same source file (those
    of an older FORMAT or of the file before it changed; e5-small's is 280 MB), and those whose
    source file is gone (a model unpacked into a temporary folder, or deleted): a split is found by
    its source's path, so they would stay forever. A process still reading one keeps its open files."""
    try:
        siblings = [other for other in folder.parent.iterdir() if other != folder and other.is_dir()]
    except OSError:
        return
    for other in siblings:
        meta = read_meta(other / "split.json")
        if meta is None or not isinstance(meta.get("source"), str):
            continue  # being made by another process, or not ours
        older = Path(meta["source"])
        if _gone(older) or older.resolve() == source.resolve():
            shutil.rmtree(other, ignore_errors=True)


def _gone(path: Path) -> bool:
    """Whether nothing is at `path`. A path this process may not look at (another user's folder:
    EACCES, which Path.exists raises) or cannot reach now is not known to be gone."""
    try:
        path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return True
    except (OSError, ValueError):
        return False
    return False


@dataclass(frozen=True)
class Cut:
    """What `split_graph` makes of a graph."""

    model: bytes  # the graph without the word lookup, with the looked-up rows as a new input
    table: np.ndarray  # float16 (float32 if float16 overflows), or the graph's own int8
    scale: np.ndarray | None  # an int8 table's float32 scales, [rows or 1, width or 1]
    embeds_input: str
    keeps_input_ids: bool  # input_ids stays an input


@dataclass(frozen=True)
class _Source:
    """Where a Gather's table comes from: the nodes, initializers and values that go with the Gather."""

    nodes: tuple[tuple[int, int], ...]  # spans of the nodes that made the table
    initializers: tuple[str, ...]
    values: tuple[str, ...]  # outputs of those nodes (their value_info goes too)
    table: np.ndarray
    scale: np.ndarray | None


def split_graph(model: memoryview) -> Cut | None:
    """The graph without its word lookup, for a graph whose word embeddings are gathered by the
    input_ids input itself from a float32 initializer, or from an int8 initializer dequantized in
    the graph (`Mul(Cast(int8, to=float), float32 scale)`); None for any other graph."""
    graph_span = None
    for field, _, value, _, _ in proto.fields(model, 0, len(model)):
        if field == proto.MODEL_GRAPH:
            graph_span = value
    if graph_span is None:
        return None
    g0, g1 = graph_span
    parts = proto.read_graph(model, g0, g1)
    nodes, initializers, inputs = parts.nodes, parts.initializers, parts.inputs
    used: dict[str, int] = {}
    producers: dict[str, tuple[dict, tuple[int, int]]] = {}
    for node, span in nodes:
        for name in node["inputs"]:
            used[name] = used.get(name, 0) + 1
        for name in node["outputs"]:
            producers[name] = (node, span)
    candidates = [
        (node, span, source) for node, span in nodes
        if node["op_type"] == "Gather" and node["domain"] == "" and node["ints"].get("axis", 0) == 0
        and len(node["inputs"]) == 2 and node["inputs"][1] == TOKEN_IDS and TOKEN_IDS in inputs
        and len(node["outputs"]) == 1 and used[node["inputs"][0]] == 1
        and (source := _table_source(model, node["inputs"][0], initializers, producers, used)) is not None
    ]
    if len(candidates) != 1:
        return None
    (gather, gather_span, source), = candidates
    ids_name = gather["inputs"][1]
    embeds = gather["outputs"][0]
    width = source.table.shape[1]
    keeps_ids = used[ids_name] > 1
    spans = {gather_span, *source.nodes}
    values = {embeds, *source.values}
    kept: list[bytes | memoryview] = []
    for field, _, value, start, end in proto.fields(model, g0, g1):
        if (start, end) in spans or field == proto.GRAPH_INITIALIZER and proto.read_tensor(model, *value)["name"] in source.initializers:
            continue
        if field == proto.GRAPH_VALUE_INFO and proto.name_of(model, *value) in values:
            continue
        if field == proto.GRAPH_INPUT and not keeps_ids and proto.name_of(model, *value) == ids_name:
            continue
        kept.append(model[start:end])
    kept.append(len_field(proto.GRAPH_INPUT, _float_input(embeds, width)))
    graph = b"".join(kept)
    out = []
    for field, _, _, start, end in proto.fields(model, 0, len(model)):
        out.append(len_field(proto.MODEL_GRAPH, graph) if field == proto.MODEL_GRAPH else bytes(model[start:end]))
    return Cut(b"".join(out), source.table, source.scale, embeds, keeps_ids)


def _table_source(model: memoryview, name: str, initializers: dict, producers: dict, used: dict) -> _Source | None:
    """The word table behind the value `name`: a float32 initializer itself, or an int8 one dequantized
    by a Cast to float and a Mul with a float32 scale per row, per column or for the whole table,
    each used only on the way to the lookup."""
    tensor = initializers.get(name)
    if tensor is not None:
        table32 = _raw_array(model, tensor, FLOAT, "<f4")
        if table32 is None or table32.ndim != 2:
            return None
        table = table32.astype(np.float16)
        if not np.isfinite(table).all():
            table = table32.copy()
        return _Source((), (name,), (), table, None)
    mul, mul_span = producers.get(name, ({}, (0, 0)))
    if mul.get("op_type") != "Mul" or mul["domain"] != "" or len(mul["inputs"]) != 2:
        return None
    for cast_out, scale_name in (mul["inputs"], mul["inputs"][::-1]):
        cast, cast_span = producers.get(cast_out, ({}, (0, 0)))
        if (cast.get("op_type") != "Cast" or cast["domain"] != "" or cast["ints"].get("to") != FLOAT
                or len(cast["inputs"]) != 1 or used.get(cast_out) != 1 or used.get(scale_name) != 1
                or used.get(cast["inputs"][0]) != 1):
            continue
        quantized = initializers.get(cast["inputs"][0])
        scale_tensor = initializers.get(scale_name)
        if quantized is None or scale_tensor is None:
            return None
        quantized_table = _raw_array(model, quantized, INT8, "i1")
        scale = _raw_array(model, scale_tensor, FLOAT, "<f4")
        if quantized_table is None or scale is None or quantized_table.ndim != 2 or scale.ndim > 2:
            return None
        scale = scale.reshape((1,) * (2 - scale.ndim) + scale.shape)  # [] / [w] broadcast as [1, 1] / [1, w]
        rows, width = quantized_table.shape
        if scale.shape[0] not in (1, rows) or scale.shape[1] not in (1, width):
            return None
        return _Source((mul_span, cast_span), (cast["inputs"][0], scale_name), (cast_out,),
                       quantized_table.copy(), scale.astype(np.float32))
    return None


def _raw_array(model: memoryview, tensor: dict, data_type: int, dtype: str) -> np.ndarray | None:
    """An initializer's values from its raw bytes; None for another type or values stored otherwise."""
    if tensor["data_type"] != data_type or tensor["raw"] is None:
        return None
    r0, r1 = tensor["raw"]
    count = int(np.prod(tensor["dims"], dtype=np.int64))
    if r1 - r0 != count * np.dtype(dtype).itemsize:
        return None
    return np.frombuffer(model[r0:r1], dtype=dtype).reshape(tensor["dims"])


def _float_input(name: str, width: int) -> bytes:
    """ValueInfoProto of a float tensor [batch, sequence, width]."""
    return tensor_info(name, FLOAT, ["batch", "sequence", width])
