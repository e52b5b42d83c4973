"""The graph documents and queries are embedded with: the split graph's weight products in int8.

The encoder's matrix products with weights take most of its CPU, at ingest and for a query. Each
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

Where the CPU's uint8 x int8 kernel adds two products in 16 bits (x86 with AVX2
and no VNNI: its pairwise multiply-add saturates past 32,767), the weights keep
7 bits (|w| <= 63), so that no pair overflows; a probe of ONNX Runtime's own
kernel decides, and the graph's file name says which weights it holds.

Vectors stay within cosine 0.999 of the float graph's, the bound under which
an index keeps its model identity: an index embedded with the float graph is
searched with int8 queries, and its new chunks mix with its old.

Like word_table.py, the graph is rewritten on the protobuf wire format (no
`onnx` package at run time) and cached in the split's folder: the nodes around the
products are copied as byte spans, each product replaced by its new nodes.
"""

from __future__ import annotations

import functools
import json
import logging
from pathlib import Path
from typing import Any

import numpy as np

from minirag import onnx_proto as proto
from minirag.ort_session import inference_session
from minirag.store.partials import open_made, write_atomically
from minirag.word_table import read_meta

log = logging.getLogger(__name__)

#: Bumped when the graph written changes, so older ones are made again.
FORMAT = 1
GELU_SHIFT = 0.17  # GELU's least value is -0.16997
_PASS_THROUGH = {"Add", "Reshape", "Transpose"}  # from a value projection to the attention's product


def cached(split_onnx: Path) -> Path | None:
    """The int8 graph of the split graph `split_onnx`, made beside it on first use (so it goes when
    the split goes); None when the graph has no product to quantize or the folder cannot be
    written (the float graph serves then)."""
    folder, limit = split_onnx.parent, weight_limit()
    stem = f"int8-{FORMAT}" if limit == 127 else f"int8-{FORMAT}-w{limit}"
    graph, meta_path = folder / f"{stem}.onnx", folder / f"{stem}.json"
    meta = read_meta(meta_path)
    if meta is None:
        try:
            with open_made(split_onnx) as file:
                model = quantize_graph(memoryview(file.read()), limit)
            if model is not None:
                write_atomically(graph, lambda f: f.write(model))
            meta = {"int8": model is not None, "format": FORMAT}
            write_atomically(meta_path, lambda f: f.write(json.dumps(meta, indent=2).encode()))
        except Exception as exc:  # noqa: BLE001 - a folder it cannot write, a graph it cannot rewrite
            log.info("no int8 graph made of %s (%s); the float graph serves", split_onnx, exc)
            return None
        for older in folder.glob("int8-*"):  # an older FORMAT's
            if older not in (graph, meta_path):
                older.unlink(missing_ok=True)
    return graph if meta.get("int8") else None


def session(split_onnx: Path, options):
    """An ONNX Runtime session of the int8 graph of `split_onnx` (made on first use), or None."""
    path = cached(split_onnx)
    if path is None:
        return None
    try:
        return inference_session(path, options)
    except Exception as exc:  # noqa: BLE001 - a graph this onnxruntime cannot run: the float one serves
        log.info("the int8 graph %s does not load (%s); the float graph serves", path, exc)
        return None


@functools.cache
def weight_limit() -> int:
    """The largest |weight| an integer product may hold on this CPU: 127, or 63 where ONNX Runtime's
    uint8 x int8 kernel saturates a sum of two products (255 x 127 x 2 > 32,767)."""

    k = 64
    model = proto.matmul_integer_model("probe", ["m", k], [k, "n"])
    try:
        run = inference_session(model).run
        # Rows and columns enough for the blocked kernels a real product takes.
        got = run(None, {"rows": np.full((32, k), 255, np.uint8), "weights": np.full((k, 32), 127, np.int8)})[0]
    except Exception as exc:  # noqa: BLE001 - no integer kernel at all: the narrower weights are safe
        log.info("the integer product probe failed (%s); weights keep 7 bits", exc)
        return 63
    return 127 if bool((got == k * 255 * 127).all()) else 63


def quantize_graph(model: memoryview, limit: int = 127) -> bytes | None:
    """`model` with its weight products in int8 (as the module says), each weight at most `limit`
    in magnitude; None for a graph with none, or of an opset before 13 (QuantizeLinear per axis,
    Unsqueeze's axes as an input)."""
    graph_span, opset = None, 0
    for field, _, value, _, _ in proto.fields(model, 0, len(model)):
        if field == proto.MODEL_GRAPH:
            graph_span = value
        elif field == proto.MODEL_OPSET_IMPORT:
            entry = {f: v for f, _, v, _, _ in proto.fields(model, *value)}
            if 1 not in entry or entry[1][0] == entry[1][1]:  # the default domain
                opset = int(entry.get(2, 0))
    if graph_span is None or opset < 13:
        return None
    g0, g1 = graph_span
    parts = proto.read_graph(model, g0, g1)
    nodes, initializers = parts.nodes, parts.initializers
    producers = {out: node for node, _ in nodes for out in node["outputs"]}
    consumers: dict[str, list[tuple[dict, int]]] = {}
    for node, _ in nodes:
        for position, name in enumerate(node["inputs"]):
            consumers.setdefault(name, []).append((node, position))
    targets = {}
    for node, span in nodes:
        weight = initializers.get(node["inputs"][1]) if node["op_type"] == "MatMul" and len(node["inputs"]) == 2 else None
        if (weight is None or node["domain"] or len(weight["dims"]) != 2 or weight["data_type"] != proto.FLOAT
                or weight["raw"] is None or len(consumers[node["inputs"][1]]) != 1
                or _is_value_projection(node, producers, consumers)):
            continue
        targets[span] = node
    if not targets:
        return None
    writer = _Writer(opset, limit)
    graph: list[bytes | memoryview] = []
    dropped = {node["inputs"][1] for node in targets.values()}
    for field, _, value, start, end in proto.fields(model, g0, g1):
        if field == proto.GRAPH_NODE and (start, end) in targets:
            node = targets[(start, end)]
            w = initializers[node["inputs"][1]]
            r0, r1 = w["raw"]
            weights = np.frombuffer(model[r0:r1], dtype="<f4").reshape(w["dims"])
            graph += writer.product(node, weights, _is_gelu(producers.get(node["inputs"][0]), producers))
        elif field == proto.GRAPH_INITIALIZER and proto.read_tensor(model, *value)["name"] in dropped:
            continue
        else:
            graph.append(model[start:end])
    graph += [proto.len_field(proto.GRAPH_INITIALIZER, t) for t in writer.initializers]
    out: list[bytes | memoryview] = []
    for field, _, _, start, end in proto.fields(model, 0, len(model)):
        out.append(proto.len_field(proto.MODEL_GRAPH, b"".join(graph)) if field == proto.MODEL_GRAPH else model[start:end])
    out.append(proto.len_field(proto.MODEL_OPSET_IMPORT, proto.len_field(1, b"com.microsoft") + proto.varint_field(2, 1)))
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

    def __init__(self, opset: int, limit: int):
        self.opset, self.limit = opset, limit
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
        self.initializers.append(proto.tensor_proto(name, value))
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
            nodes = [proto.node_proto("Add", [x, "i8_shift"], [f"{p}_pos"]),
                     proto.node_proto("Reshape", [f"{p}_pos", shape2], [f"{p}_2d"]),
                     proto.node_proto("ReduceMax", [f"{p}_2d", *axes_input], [f"{p}_max"], keepdims=0, **axes)]
        else:
            nodes = [proto.node_proto("Reshape", [x, shape2], [f"{p}_2d"]),
                     proto.node_proto("Abs", [f"{p}_2d"], [f"{p}_abs"]),
                     proto.node_proto("ReduceMax", [f"{p}_abs", *axes_input], [f"{p}_max"], keepdims=0, **axes)]
        zero = np.array([0 if shifted else 128], np.uint8)
        nodes += [proto.node_proto("Max", [f"{p}_max", "i8_eps"], [f"{p}_max1"]),
                  proto.node_proto("Mul", [f"{p}_max1", "i8_inv255" if shifted else "i8_inv127"], [f"{p}_scale"]),
                  proto.node_proto("Shape", [f"{p}_scale"], [f"{p}_rows"]),
                  proto.node_proto("ConstantOfShape", [f"{p}_rows"], [f"{p}_zero"], value=zero),
                  proto.node_proto("QuantizeLinear", [f"{p}_2d", f"{p}_scale", f"{p}_zero"], [f"{p}_q"], axis=0),
                  proto.node_proto("Unsqueeze", [f"{p}_scale", "i8_axis1"], [f"{p}_rowscale"]),
                  proto.node_proto("Shape", [x], [f"{p}_shape"])]
        self._quantized[(x, shifted)] = (f"{p}_q", f"{p}_rowscale", f"{p}_shape")
        return nodes, *self._quantized[(x, shifted)]

    def product(self, node: dict, weights: np.ndarray, shifted: bool) -> list[bytes]:
        """The nodes (as GraphProto.node fields) computing `node`'s MatMul output in integers."""
        (x, w), y = node["inputs"], node["outputs"][0]
        k, n = weights.shape
        nodes, xq, row_scale, x_shape = self._rows(x, k, shifted)
        column_scale = np.maximum(np.abs(weights).max(axis=0), 1e-12).astype(np.float32) / np.float32(self.limit)
        quantized = np.clip(np.round(weights / column_scale), -self.limit, self.limit).astype(np.int8)
        self._constant(f"{w}_i8", quantized)
        self._constant(f"{w}_i8scale", column_scale)
        self._constant(f"{w}_i8zero", np.array(0 if shifted else 128, np.uint8))
        self._constant(f"{y}_i8n", np.array([n], np.int64))
        product = [xq, f"{w}_i8", "i8_one", f"{w}_i8scale", f"{w}_i8zero"]
        nodes += [proto.node_proto("MatMulIntegerToFloat", product, [f"{y}_i8w"], domain="com.microsoft"),
                  proto.node_proto("Mul", [f"{y}_i8w", row_scale], [f"{y}_i8x"])]
        result = f"{y}_i8x"
        if shifted:
            offset = -np.float32(GELU_SHIFT) * (quantized.astype(np.float32) * column_scale).sum(axis=0)
            self._constant(f"{w}_i8offset", offset.astype(np.float32))
            nodes.append(proto.node_proto("Add", [result, f"{w}_i8offset"], [f"{y}_i8o"]))
            result = f"{y}_i8o"
        nodes += [proto.node_proto("Slice", [x_shape, "i8_start", "i8_last"], [f"{y}_i8lead"]),
                  proto.node_proto("Concat", [f"{y}_i8lead", f"{y}_i8n"], [f"{y}_i8shape"], axis=0),
                  proto.node_proto("Reshape", [result, f"{y}_i8shape"], [y])]
        return [proto.len_field(proto.GRAPH_NODE, b) for b in nodes]
