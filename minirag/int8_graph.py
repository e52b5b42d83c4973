"""The graph documents are embedded with: the split graph's weight products in int8.

At ingest the encoder's matrix products with weights take most of the CPU. Each
`MatMul(x, W)` with a float32 weight initializer becomes an integer product: W
quantized per output column (int8, symmetric), x per row, that is per token (its
largest |x| / 127, as uint8 around 128: ONNX Runtime's uint8 x int8 kernel is
the fast one), the int32 result scaled back per column and per row. A token's
outliers set only its own scale, so a chunk's vector does not depend on the
chunks batched with it. Two kinds of product are treated apart:

- the input of a product fed by GELU's output (the feed-forward output) is
  quantized as x + 0.17 over 0..255 (GELU is never below -0.16998): twice the
  steps of the symmetric form; 0.17 x the weights' column sums is added back;
- the attention's value projection stays float: its error goes straight into
  the output, and it alone is two thirds of the loss (docs/models.md).

Vectors stay within cosine 0.999 of the float graph's, the bound under which
an index keeps its model identity; queries keep the float graph.

Like word_table.py, the graph is rewritten on the protobuf wire format (no
`onnx` package at run time) and cached beside the split: the nodes around the
products are copied as byte spans, each product replaced by its new nodes.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

import numpy as np

from minirag.word_table import (
    _GRAPH_INITIALIZER,
    _GRAPH_NODE,
    _MODEL_GRAPH,
    _fields,
    _len_field,
    _node,
    _read_meta,
    _tensor,
    _varint_field,
    _write_atomically,
)

log = logging.getLogger(__name__)

#: Bumped when the graph written changes, so older ones are made again.
FORMAT = 1
INT8_DIR = "minirag-int8"
GELU_SHIFT = 0.17  # GELU's least value is -0.16997
_MODEL_OPSET_IMPORT = 8
_FLOAT, _UINT8, _INT8, _INT64 = 1, 2, 3, 7  # TensorProto.DataType
_ATTR_INT, _ATTR_TENSOR, _ATTR_INTS = 2, 4, 7  # AttributeProto.AttributeType
_PASS_THROUGH = {"Add", "Reshape", "Transpose"}  # from a value projection to the attention's product


def cached(split_onnx: Path, cache_dir: Path) -> Path | None:
    """The int8 graph of the split graph `split_onnx`, made in `cache_dir` on first use; None when
    the graph has no product to quantize or the cache cannot be written (the float graph serves)."""
    try:
        stat = split_onnx.stat()
    except OSError:
        return None
    key = hashlib.sha256(f"{FORMAT}\0{split_onnx.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}".encode()).hexdigest()
    folder = cache_dir / INT8_DIR / key[:32]
    meta = _read_meta(folder / "int8.json")
    if meta is None:
        try:
            model = quantize_graph(memoryview(split_onnx.read_bytes()))
            folder.mkdir(parents=True, exist_ok=True)
            if model is not None:
                _write_atomically(folder / "model.onnx", lambda f: f.write(model))
            meta = {"int8": model is not None, "source": str(split_onnx)}
            _write_atomically(folder / "int8.json", lambda f: f.write(json.dumps(meta, indent=2).encode()))
        except (OSError, ValueError, IndexError, KeyError) as exc:
            log.info("no int8 graph made of %s (%s); documents are embedded with the float graph", split_onnx, exc)
            return None
    return folder / "model.onnx" if meta.get("int8") else None


def session(split_onnx: Path, cache_dir: Path, options):
    """An ONNX Runtime session of the int8 graph of `split_onnx` (made on first use), or None."""
    import onnxruntime as ort

    path = cached(split_onnx, cache_dir)
    if path is None:
        return None
    try:
        return ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - a graph this onnxruntime cannot run: the float one serves
        log.info("the int8 graph %s does not load (%s); documents are embedded with the float graph", path, exc)
        return None


def quantize_graph(model: memoryview) -> bytes | None:
    """`model` with its weight products in int8 (as the module says); None for a graph with none,
    or of an opset before 13 (QuantizeLinear per axis, Unsqueeze's axes as an input)."""
    graph_span, opset = None, 0
    for field, _, value, _, _ in _fields(model, 0, len(model)):
        if field == _MODEL_GRAPH:
            graph_span = value
        elif field == _MODEL_OPSET_IMPORT:
            entry = {f: v for f, _, v, _, _ in _fields(model, *value)}
            if 1 not in entry or entry[1][0] == entry[1][1]:  # the default domain
                opset = int(entry.get(2, 0))
    if graph_span is None or opset < 13:
        return None
    g0, g1 = graph_span
    nodes, initializers = [], {}
    for field, _, value, start, end in _fields(model, g0, g1):
        if field == _GRAPH_NODE:
            nodes.append((_node(model, *value), (start, end)))
        elif field == _GRAPH_INITIALIZER:
            tensor = _tensor(model, *value)
            initializers[tensor["name"]] = tensor
    producers = {out: node for node, _ in nodes for out in node["outputs"]}
    consumers: dict[str, list[tuple[dict, int]]] = {}
    for node, _ in nodes:
        for position, name in enumerate(node["inputs"]):
            consumers.setdefault(name, []).append((node, position))
    targets = {}
    for node, span in nodes:
        weight = initializers.get(node["inputs"][1]) if node["op_type"] == "MatMul" and len(node["inputs"]) == 2 else None
        if (weight is None or node["domain"] or len(weight["dims"]) != 2 or weight["data_type"] != _FLOAT
                or weight["raw"] is None or len(consumers[node["inputs"][1]]) != 1
                or _is_value_projection(node, producers, consumers)):
            continue
        targets[span] = node
    if not targets:
        return None
    writer = _Writer(opset)
    graph: list[bytes | memoryview] = []
    dropped = {node["inputs"][1] for node in targets.values()}
    for field, _, value, start, end in _fields(model, g0, g1):
        if field == _GRAPH_NODE and (start, end) in targets:
            node = targets[(start, end)]
            w = initializers[node["inputs"][1]]
            r0, r1 = w["raw"]
            weights = np.frombuffer(model[r0:r1], dtype="<f4").reshape(w["dims"])
            graph += writer.product(node, weights, _is_gelu(producers.get(node["inputs"][0]), producers))
        elif field == _GRAPH_INITIALIZER and _tensor(model, *value)["name"] in dropped:
            continue
        else:
            graph.append(model[start:end])
    graph += [_len_field(_GRAPH_INITIALIZER, t) for t in writer.initializers]
    out: list[bytes | memoryview] = []
    for field, _, _, start, end in _fields(model, 0, len(model)):
        out.append(_len_field(_MODEL_GRAPH, b"".join(graph)) if field == _MODEL_GRAPH else model[start:end])
    out.append(_len_field(_MODEL_OPSET_IMPORT, _len_field(1, b"com.microsoft") + _varint_field(2, 1)))
    return b"".join(out)


def _is_value_projection(node: dict, producers: dict, consumers: dict) -> bool:
    """Whether `node`'s output reaches, through bias adds, reshapes and transposes, the second input
    of a product whose first input is a Softmax's output (attention probabilities x values)."""
    name = node["outputs"][0]
    for _ in range(8):
        users = consumers.get(name, [])
        if len(users) != 1:
            return False
        user, position = users[0]
        if user["op_type"] == "MatMul" and position == 1:
            first = producers.get(user["inputs"][0])
            return first is not None and first["op_type"] == "Softmax"
        if user["op_type"] not in _PASS_THROUGH:
            return False
        name = user["outputs"][0]
    return False


def _is_gelu(node: dict | None, producers: dict, depth: int = 0) -> bool:
    """Whether `node` ends an exact GELU: x * (1 + Erf(...)), times 0.5 before or after (Mul nodes,
    in any order), or the fused com.microsoft Gelu."""
    if node is None:
        return False
    if node["op_type"] == "Gelu" and node["domain"] == "com.microsoft":
        return True
    if node["op_type"] != "Mul" or node["domain"]:
        return False
    for name in node["inputs"]:
        source = producers.get(name)
        if source is None:
            continue
        if source["op_type"] == "Add" and any(
                (p := producers.get(i)) is not None and p["op_type"] == "Erf" for i in source["inputs"]):
            return True
        if depth == 0 and _is_gelu(source, producers, 1):
            return True
    return False


class _Writer:
    """Nodes and initializers of the integer products, as protobuf bytes."""

    def __init__(self, opset: int):
        self.opset = opset
        self.initializers: list[bytes] = []
        self._quantized: dict[tuple[str, bool], tuple[str, str, str]] = {}
        self._constant("i8_eps", np.array(1e-8, np.float32))
        self._constant("i8_inv127", np.array(1 / 127, np.float32))
        self._constant("i8_inv255", np.array(1 / 255, np.float32))
        self._constant("i8_shift", np.array(GELU_SHIFT, np.float32))
        self._constant("i8_one", np.array(1, np.float32))
        self._constant("i8_axis1", np.array([1], np.int64))
        self._constant("i8_start", np.array([0], np.int64))
        self._constant("i8_last", np.array([-1], np.int64))

    def _constant(self, name: str, value: np.ndarray) -> str:
        self.initializers.append(_tensor_bytes(name, value))
        return name

    def _rows(self, x: str, k: int, shifted: bool) -> tuple[list[bytes], str, str, str]:
        """Nodes quantizing `x` [..., k] per row, once per input: (nodes, uint8 rows, row scales, x's shape)."""
        if (x, shifted) in self._quantized:
            return [], *self._quantized[(x, shifted)]
        p = f"{x}_i8{'u' if shifted else 's'}"
        shape2 = self._constant(f"{p}_shape2", np.array([-1, k], np.int64))
        axes: dict[str, Any] = {"axes": [1]} if self.opset < 18 else {}
        axes_input = [] if self.opset < 18 else [self._constant(f"{p}_axes", np.array([1], np.int64))]
        if shifted:
            nodes = [_node_bytes("Add", [x, "i8_shift"], [f"{p}_pos"]),
                     _node_bytes("Reshape", [f"{p}_pos", shape2], [f"{p}_2d"]),
                     _node_bytes("ReduceMax", [f"{p}_2d", *axes_input], [f"{p}_max"], keepdims=0, **axes)]
        else:
            nodes = [_node_bytes("Reshape", [x, shape2], [f"{p}_2d"]),
                     _node_bytes("Abs", [f"{p}_2d"], [f"{p}_abs"]),
                     _node_bytes("ReduceMax", [f"{p}_abs", *axes_input], [f"{p}_max"], keepdims=0, **axes)]
        zero = np.array([0 if shifted else 128], np.uint8)
        nodes += [_node_bytes("Max", [f"{p}_max", "i8_eps"], [f"{p}_max1"]),
                  _node_bytes("Mul", [f"{p}_max1", "i8_inv255" if shifted else "i8_inv127"], [f"{p}_scale"]),
                  _node_bytes("Shape", [f"{p}_scale"], [f"{p}_rows"]),
                  _node_bytes("ConstantOfShape", [f"{p}_rows"], [f"{p}_zero"], value=zero),
                  _node_bytes("QuantizeLinear", [f"{p}_2d", f"{p}_scale", f"{p}_zero"], [f"{p}_q"], axis=0),
                  _node_bytes("Unsqueeze", [f"{p}_scale", "i8_axis1"], [f"{p}_rowscale"]),
                  _node_bytes("Shape", [x], [f"{p}_shape"])]
        self._quantized[(x, shifted)] = (f"{p}_q", f"{p}_rowscale", f"{p}_shape")
        return nodes, *self._quantized[(x, shifted)]

    def product(self, node: dict, weights: np.ndarray, shifted: bool) -> list[bytes]:
        """The nodes (as GraphProto.node fields) computing `node`'s MatMul output in integers."""
        (x, w), y = node["inputs"], node["outputs"][0]
        k, n = weights.shape
        nodes, xq, row_scale, x_shape = self._rows(x, k, shifted)
        column_scale = np.maximum(np.abs(weights).max(axis=0), 1e-12).astype(np.float32) / np.float32(127)
        quantized = np.clip(np.round(weights / column_scale), -127, 127).astype(np.int8)
        self._constant(f"{w}_i8", quantized)
        self._constant(f"{w}_i8scale", column_scale)
        self._constant(f"{w}_i8zero", np.array(0 if shifted else 128, np.uint8))
        self._constant(f"{y}_i8n", np.array([n], np.int64))
        product = [xq, f"{w}_i8", "i8_one", f"{w}_i8scale", f"{w}_i8zero"]
        nodes += [_node_bytes("MatMulIntegerToFloat", product, [f"{y}_i8w"], domain="com.microsoft"),
                  _node_bytes("Mul", [f"{y}_i8w", row_scale], [f"{y}_i8x"])]
        result = f"{y}_i8x"
        if shifted:
            offset = -np.float32(GELU_SHIFT) * (quantized.astype(np.float32) * column_scale).sum(axis=0)
            self._constant(f"{w}_i8offset", offset.astype(np.float32))
            nodes.append(_node_bytes("Add", [result, f"{w}_i8offset"], [f"{y}_i8o"]))
            result = f"{y}_i8o"
        nodes += [_node_bytes("Slice", [x_shape, "i8_start", "i8_last"], [f"{y}_i8lead"]),
                  _node_bytes("Concat", [f"{y}_i8lead", f"{y}_i8n"], [f"{y}_i8shape"], axis=0),
                  _node_bytes("Reshape", [result, f"{y}_i8shape"], [y])]
        return [_len_field(_GRAPH_NODE, b) for b in nodes]


def _node_bytes(op_type: str, inputs: list[str], outputs: list[str], *, domain: str = "", **attributes) -> bytes:
    """NodeProto: input 1, output 2, name 3, op_type 4, attribute 5, domain 7."""
    out = b"".join(_len_field(1, i.encode()) for i in inputs) + b"".join(_len_field(2, o.encode()) for o in outputs)
    out += _len_field(3, f"{outputs[0]}_node".encode()) + _len_field(4, op_type.encode())
    for name, value in attributes.items():
        # AttributeProto: name 1, i 3, t 5, ints 8, type 20.
        if isinstance(value, np.ndarray):
            body = _len_field(5, _tensor_bytes("", value)) + _varint_field(20, _ATTR_TENSOR)
        elif isinstance(value, list):
            body = b"".join(_varint_field(8, _int64(v)) for v in value) + _varint_field(20, _ATTR_INTS)
        else:
            body = _varint_field(3, _int64(value)) + _varint_field(20, _ATTR_INT)
        out += _len_field(5, _len_field(1, name.encode()) + body)
    return out + (_len_field(7, domain.encode()) if domain else b"")


def _tensor_bytes(name: str, value: np.ndarray) -> bytes:
    """TensorProto: dims 1, data_type 2, name 8, raw_data 9 (little-endian)."""
    data_type = {np.dtype(np.float32): _FLOAT, np.dtype(np.uint8): _UINT8, np.dtype(np.int8): _INT8,
                 np.dtype(np.int64): _INT64}[value.dtype]
    raw = value.astype(value.dtype.newbyteorder("<")).tobytes()
    out = b"".join(_varint_field(1, d) for d in value.shape) + _varint_field(2, data_type)
    return out + (_len_field(8, name.encode()) if name else b"") + _len_field(9, raw)


def _int64(value: int) -> int:
    """An int64 as protobuf writes it in a varint (a negative one as its two's complement)."""
    return value & 0xFFFFFFFFFFFFFFFF

