"""The few ONNX protobuf messages minirag reads and writes itself (onnx.proto field numbers), since
the `onnx` package is not a dependency: a message's fields read in place from a model's bytes, and
varint and length-delimited fields, tensors, nodes and a tensor's ValueInfoProto written.
word_table.py and int8_graph.py rewrite graphs with them; search/code_product.py and int8_graph.py's
probe write one of a single integer product."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

FLOAT, UINT8, INT8, INT32, INT64 = 1, 2, 3, 6, 7  # TensorProto.DataType
ATTR_INT, ATTR_TENSOR, ATTR_INTS = 2, 4, 7  # AttributeProto.AttributeType
# ModelProto.graph; GraphProto.node / .initializer / .input / .value_info; NodeProto.input / .output /
# .op_type / .attribute / .domain; TensorProto.dims / .data_type / .name / .raw_data / .data_location;
# ValueInfoProto.name; AttributeProto.name / .i (a node's int attributes: Gather's axis, Cast's to).
MODEL_GRAPH = 7
GRAPH_NODE, GRAPH_INITIALIZER, GRAPH_INPUT, GRAPH_VALUE_INFO = 1, 5, 11, 13
NODE_INPUT, NODE_OUTPUT, NODE_OP_TYPE, NODE_ATTRIBUTE, NODE_DOMAIN = 1, 2, 4, 5, 7
TENSOR_DIMS, TENSOR_DATA_TYPE, TENSOR_NAME, TENSOR_RAW_DATA, TENSOR_DATA_LOCATION = 1, 2, 8, 9, 14
MODEL_OPSET_IMPORT = 8  # ModelProto.opset_import


# --- writing ---------------------------------------------------------------------

def encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def varint_field(field: int, value: int) -> bytes:
    return encode_varint(field << 3) + encode_varint(value)


def len_field(field: int, payload: bytes | str) -> bytes:
    data = payload.encode() if isinstance(payload, str) else payload
    return encode_varint(field << 3 | 2) + encode_varint(len(data)) + data


def tensor_info(name: str, elem_type: int, dims: list[int | str]) -> bytes:
    """A ValueInfoProto: a tensor named `name` of `elem_type`, each dimension a size or a symbolic name."""
    shape = b"".join(len_field(1, len_field(2, d) if isinstance(d, str) else varint_field(1, d)) for d in dims)
    tensor_type = varint_field(1, elem_type) + len_field(2, shape)
    return len_field(1, name) + len_field(2, len_field(1, tensor_type))


def matmul_integer_model(name: str, rows: list[int | str], weights: list[int | str]) -> bytes:
    """A model of one MatMulInteger node: scores int32 = rows uint8 x weights int8, each dimension a
    size or a symbolic name."""
    node = node_proto("MatMulInteger", ["rows", "weights"], ["scores"])
    graph = (len_field(GRAPH_NODE, node) + len_field(2, name)
             + len_field(GRAPH_INPUT, tensor_info("rows", UINT8, rows))
             + len_field(GRAPH_INPUT, tensor_info("weights", INT8, weights))
             + len_field(12, tensor_info("scores", INT32, [rows[0], weights[1]])))  # GraphProto.output
    opset = len_field(1, "") + varint_field(2, 13)
    return varint_field(1, 8) + len_field(MODEL_GRAPH, graph) + len_field(MODEL_OPSET_IMPORT, opset)  # ir_version 8


def node_proto(op_type: str, inputs: list[str], outputs: list[str], *, domain: str = "", **attributes) -> bytes:
    """NodeProto: input 1, output 2, name 3, op_type 4, attribute 5, domain 7."""
    out = b"".join(len_field(1, i.encode()) for i in inputs) + b"".join(len_field(2, o.encode()) for o in outputs)
    out += len_field(3, f"{outputs[0]}_node".encode()) + len_field(4, op_type.encode())
    for name, value in attributes.items():
        # AttributeProto: name 1, i 3, t 5, ints 8, type 20.
        if isinstance(value, np.ndarray):
            body = len_field(5, tensor_proto("", value)) + varint_field(20, ATTR_TENSOR)
        elif isinstance(value, list):
            body = b"".join(varint_field(8, _int64(v)) for v in value) + varint_field(20, ATTR_INTS)
        else:
            body = varint_field(3, _int64(value)) + varint_field(20, ATTR_INT)
        out += len_field(5, len_field(1, name.encode()) + body)
    return out + (len_field(7, domain.encode()) if domain else b"")


def tensor_proto(name: str, value: np.ndarray) -> bytes:
    """TensorProto: dims 1, data_type 2, name 8, raw_data 9 (little-endian)."""
    data_type = {np.dtype(np.float32): FLOAT, np.dtype(np.uint8): UINT8, np.dtype(np.int8): INT8,
                 np.dtype(np.int64): INT64}[value.dtype]
    raw = value.astype(value.dtype.newbyteorder("<")).tobytes()
    out = b"".join(varint_field(1, d) for d in value.shape) + varint_field(2, data_type)
    return out + (len_field(8, name.encode()) if name else b"") + len_field(9, raw)


def _int64(value: int) -> int:
    """An int64 as protobuf writes it in a varint (a negative one as its two's complement)."""
    return value & 0xFFFFFFFFFFFFFFFF


# --- reading ---------------------------------------------------------------------


@dataclass(frozen=True)
class Graph:
    """A GraphProto's parts as read in place: each node with its (start, end) span in the bytes,
    the initializers by name, the names of the graph's inputs."""

    nodes: list[tuple[dict, tuple[int, int]]]
    initializers: dict[str, dict]
    inputs: set[str]


def read_graph(buf: memoryview, start: int, end: int) -> Graph:
    graph = Graph([], {}, set())
    for field, _, value, first, last in fields(buf, start, end):
        if field == GRAPH_NODE:
            graph.nodes.append((read_node(buf, *value), (first, last)))
        elif field == GRAPH_INITIALIZER:
            tensor = read_tensor(buf, *value)
            graph.initializers[tensor["name"]] = tensor
        elif field == GRAPH_INPUT:
            graph.inputs.add(name_of(buf, *value))
    return graph


def read_node(buf: memoryview, start: int, end: int) -> dict:
    node: dict[str, Any] = {"inputs": [], "outputs": [], "op_type": "", "domain": "", "ints": {}}
    for field, _, value, _, _ in fields(buf, start, end):
        if field == NODE_INPUT:
            node["inputs"].append(text(buf, value))
        elif field == NODE_OUTPUT:
            node["outputs"].append(text(buf, value))
        elif field == NODE_OP_TYPE:
            node["op_type"] = text(buf, value)
        elif field == NODE_DOMAIN:
            node["domain"] = text(buf, value)
        elif field == NODE_ATTRIBUTE:
            attribute = {f: v for f, _, v, _, _ in fields(buf, *value)}
            if 1 in attribute:
                node["ints"][text(buf, attribute[1])] = attribute.get(3, 0)  # AttributeProto.i
    return node


def read_tensor(buf: memoryview, start: int, end: int) -> dict:
    tensor: dict[str, Any] = {"name": "", "dims": [], "data_type": 0, "raw": None, "external": False}
    for field, wire, value, _, _ in fields(buf, start, end):
        if field == TENSOR_DIMS:
            if wire == 2:  # packed
                pos, stop = value
                while pos < stop:
                    dim, pos = read_varint(buf, pos)
                    tensor["dims"].append(dim)
            else:
                tensor["dims"].append(value)
        elif field == TENSOR_DATA_TYPE:
            tensor["data_type"] = value
        elif field == TENSOR_NAME:
            tensor["name"] = text(buf, value)
        elif field == TENSOR_RAW_DATA:
            tensor["raw"] = value
        elif field == TENSOR_DATA_LOCATION:
            tensor["external"] = value == 1
    if tensor["external"]:
        tensor["raw"] = None
    return tensor


def name_of(buf: memoryview, start: int, end: int) -> str:
    """Field 1 of a message (ValueInfoProto.name)."""
    for field, _, value, _, _ in fields(buf, start, end):
        if field == 1:
            return text(buf, value)
    return ""


def text(buf: memoryview, span: tuple[int, int]) -> str:
    return bytes(buf[span[0]:span[1]]).decode("utf-8")


def fields(buf: memoryview, start: int, end: int):
    """(field number, wire type, value, span start, span end) of each field of a message; the value
    is an int for varints and fixed-width fields, a (start, end) span for length-delimited ones."""
    pos = start
    while pos < end:
        first = pos
        key, pos = read_varint(buf, pos)
        field, wire = key >> 3, key & 7
        value: int | tuple[int, int]
        if wire == 0:
            value, pos = read_varint(buf, pos)
        elif wire == 1:
            value, pos = int.from_bytes(buf[pos:pos + 8], "little"), pos + 8
        elif wire == 2:
            length, pos = read_varint(buf, pos)
            value, pos = (pos, pos + length), pos + length
        elif wire == 5:
            value, pos = int.from_bytes(buf[pos:pos + 4], "little"), pos + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        if pos > end:
            raise ValueError("truncated protobuf message")
        yield field, wire, value, first, pos


def read_varint(buf: memoryview, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
