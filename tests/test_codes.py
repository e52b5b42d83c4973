"""The int8 codebook's fit (store/codes.py) on a real index file with sqlite-vec."""

import tracemalloc

import numpy as np

from minirag.store import codes, connection, schema


def _whole_sample_fit(sample: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The principal directions and steps computed on the sample held whole, in float64: what the
    codebook's fit must give however it reads the sample."""
    sample = sample.astype(np.float64)
    centered = sample - sample.mean(axis=0)
    _values, vectors = np.linalg.eigh(centered.T @ centered)
    basis = vectors[:, ::-1].astype(np.float32)
    projected = sample @ basis.astype(np.float64)
    reach = np.abs(projected.mean(axis=0)) + codes.STEP_SIGMAS * projected.std(axis=0)
    return basis, np.maximum(reach / 127.0, 1e-6).astype(np.float32)


def _vectors(n: int, dimension: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    # Unequal spreads, so every principal direction is well defined (no tie to turn it freely),
    # and a common offset, as real embeddings have.
    data = rng.normal(size=(n, dimension)) * np.linspace(3.0, 0.5, dimension) + 0.8
    return (data / np.linalg.norm(data, axis=1, keepdims=True)).astype(np.float32)


def _same_directions(got: np.ndarray, expected: np.ndarray) -> bool:
    """Columns equal up to their sign (a direction is a line: either sign codes the same)."""
    signs = np.sign(np.sum(got * expected, axis=0))
    return np.allclose(got * signs, expected, atol=1e-4)


def test_a_codebook_fitted_block_by_block_is_the_one_fitted_on_the_whole_sample():
    data = _vectors(3000, 24, seed=3)
    basis, step = _whole_sample_fit(data)
    for blocks in ([data], np.array_split(data, 7), [data[:1], data[1:]]):
        codebook = codes.fit_blocks(iter(blocks))
        assert _same_directions(codebook.basis, basis)
        np.testing.assert_allclose(codebook.step, step, rtol=1e-5)


def _index_with_vectors(path, vectors: np.ndarray):
    conn = connection.connect(path)
    conn.executescript(codes.TABLES_SQL)
    schema.create_vector_table(conn, vectors.shape[1])
    with conn:
        conn.executemany("INSERT INTO chunks_vec (chunk_id, embedding, lifecycle) VALUES (?, ?, 'active')",
                         ((i + 1, v.tobytes()) for i, v in enumerate(vectors)))
    return conn


def test_fitting_the_codebook_never_holds_the_whole_sample(tmp_path):
    """The fit runs once, when an index first passes CODES_FROM_CHUNKS chunks: up to TRAIN_SAMPLE
    vectors, held as float64 beside their centred copy and their projection, had made that sync's
    peak memory (some 450 MB with the default model's 384 dimensions)."""
    data = _vectors(12_000, 96, seed=4)
    conn = _index_with_vectors(tmp_path / "index.db", data)
    conn.execute("BEGIN")
    tracemalloc.start()
    try:
        codebook = codes.build(conn)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    conn.execute("COMMIT")
    assert peak < data.nbytes, f"peak {peak:,} bytes for a sample of {data.nbytes:,}"
    basis, step = _whole_sample_fit(data)
    assert _same_directions(codebook.basis, basis)
    np.testing.assert_allclose(codebook.step, step, rtol=1e-5)
    assert conn.execute("SELECT trained_on, dimension FROM vector_codebook").fetchone() == (len(data), 96)
    assert codes.code_count(conn) == len(data)
    conn.close()
