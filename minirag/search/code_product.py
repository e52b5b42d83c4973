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

The graph is one MatMulInteger node, written as ONNX protobuf bytes
(onnx_proto.matmul_integer_model): the `onnx` package is not a dependency of minirag.
"""

from __future__ import annotations

import functools

import numpy as np

from minirag.onnx_proto import matmul_integer_model
from minirag.ort_session import inference_session

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


@functools.cache
def _session():
    """One ONNX Runtime session for the process, made on first use (a few milliseconds); sessions
    run concurrently, so every thread shares it."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    # One thread: the keyword side runs on the query's other core meanwhile.
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return inference_session(_graph(), options)


def scores(rows: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """float64 (n,): each uint8 row's product with the query's float `weights`, up to one positive
    factor and one constant shared by all rows (which is all a ranking needs)."""
    if len(rows) == 0:
        return np.zeros(0, dtype=np.float64)
    pair = _session().run(None, {"rows": np.ascontiguousarray(rows), "weights": digits(weights)})[0]
    out = pair[:, 0].astype(np.float64)
    out *= 2 * DIGIT
    out += pair[:, 1]
    return out


def _graph() -> bytes:
    """The one-node graph: scores (n, 2) int32 = MatMulInteger(rows (n, d) uint8, weights (d, 2) int8)."""
    return matmul_integer_model("code_product", ["n", "d"], ["d", 2])
