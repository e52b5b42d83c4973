"""The product of every vector code with a query, on ONNX Runtime's 8-bit integer kernels.

numpy has no fast integer matrix product (einsum runs one multiply-add at a
time), so the codes are multiplied by ONNX Runtime's MatMulInteger, which uses
the CPU's 8-bit dot-product instructions (VNNI, or AVX2's pairwise multiply-add):
~4x faster than a float32 product over the same rows and a quarter of the
bytes read (docs/scale.md#the-vector-sides-numbers).

The codes are held as uint8 (the stored int8 code + 128): MatMulInteger is
fastest for unsigned rows times signed weights. On x86 without VNNI the
pairwise multiply-add saturates a 16-bit sum of two products, so the weights
keep 7 bits (|w| <= 63: 2 x 255 x 63 < 32,767). A query's weights are two such
digits, a coarse one and the remainder, so the scores keep ~13 bits of the
query's precision; the +128 of every code adds the same amount to every row's
score, which no ranking sees.

The graph is one MatMulInteger node, written here as ONNX protobuf bytes: the
`onnx` package is not a dependency of minirag.
"""

from __future__ import annotations

import threading

import numpy as np

DIGIT = 63  # the largest weight digit (see above)


def to_rows(codes: np.ndarray) -> np.ndarray:
    """The uint8 rows MatMulInteger multiplies, from stored int8 codes (a copy)."""
    return (np.asarray(codes, dtype=np.int8).view(np.uint8) ^ np.uint8(0x80))


def digits(weights: np.ndarray) -> np.ndarray:
    """int8 (d, 2): a coarse and a fine digit per weight, coarse + fine / (2 * DIGIT) ~= weights * DIGIT / peak."""
    weights = np.asarray(weights, dtype=np.float64)
    peak = float(np.abs(weights).max()) or 1.0
    scaled = weights * (DIGIT / peak)
    coarse = np.rint(scaled)
    fine = np.rint((scaled - coarse) * (2 * DIGIT))
    return np.stack([coarse, fine], axis=1).astype(np.int8)


class CodeProduct:
    """Scores of uint8 code rows against a query's float weights, one ONNX Runtime session for
    the process (made on first use, a few milliseconds). Thread-safe: ORT sessions run concurrently."""

    _lock = threading.Lock()
    _session = None

    @classmethod
    def _get(cls):
        with cls._lock:
            if cls._session is None:
                import onnxruntime as ort

                options = ort.SessionOptions()
                # One thread: the keyword side runs on the query's other core meanwhile.
                options.intra_op_num_threads = 1
                options.inter_op_num_threads = 1
                options.add_session_config_entry("session.intra_op.allow_spinning", "0")
                cls._session = ort.InferenceSession(_graph(), options, providers=["CPUExecutionProvider"])
            return cls._session

    @classmethod
    def scores(cls, rows: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """float64 (n,): each row's product with `weights`, up to one positive factor and one
        constant shared by all rows (which is all a ranking needs)."""
        if len(rows) == 0:
            return np.zeros(0, dtype=np.float64)
        pair = cls._get().run(None, {"rows": np.ascontiguousarray(rows), "weights": digits(weights)})[0]
        scores = pair[:, 0].astype(np.float64)
        scores *= 2 * DIGIT
        scores += pair[:, 1]
        return scores


# --- the one-node graph, as protobuf bytes (onnx.proto field numbers) -----------------------------

_UINT8, _INT8, _INT32 = 2, 3, 6  # TensorProto.DataType


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field(number: int, payload: bytes | str | int) -> bytes:
    if isinstance(payload, int):
        return _varint(number << 3) + _varint(payload)
    data = payload.encode() if isinstance(payload, str) else payload
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def _tensor_info(name: str, elem_type: int, dims: list[int | str]) -> bytes:
    shape = b"".join(_field(1, _field(2 if isinstance(d, str) else 1, d)) for d in dims)
    tensor_type = _field(1, elem_type) + _field(2, shape)
    return _field(1, name) + _field(2, _field(1, tensor_type))


def _graph() -> bytes:
    node = _field(1, "rows") + _field(1, "weights") + _field(2, "scores") + _field(4, "MatMulInteger")
    graph = (_field(1, node) + _field(2, "code_product")
             + _field(11, _tensor_info("rows", _UINT8, ["n", "d"]))
             + _field(11, _tensor_info("weights", _INT8, ["d", 2]))
             + _field(12, _tensor_info("scores", _INT32, ["n", 2])))
    opset = _field(1, "") + _field(2, 13)
    return _field(1, 8) + _field(7, graph) + _field(8, opset)  # ir_version 8, graph, opset 13
