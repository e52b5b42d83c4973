"""Writing the few ONNX protobuf messages minirag makes itself (onnx.proto field numbers), since
the `onnx` package is not a dependency: varint and length-delimited fields, and a tensor's
ValueInfoProto. word_table.py reads a model's bytes; this writes them."""

from __future__ import annotations

FLOAT, UINT8, INT8, INT32 = 1, 2, 3, 6  # TensorProto.DataType


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
