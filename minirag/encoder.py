"""The encoder: an ONNX Runtime session and its tokenizer behind a small interface.

What the rest of minirag uses: `model_id`, `dimension`, `max_length`,
`count_tokens(_batch)`, `embed_documents`, `embed_queries` and `reads`. Vectors
are mean-pooled over the attention mask (or CLS, per model) and L2-normalized,
so cosine distance is 1 - dot product.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from minirag import interruptible
from minirag.errors import ModelRunStopped, ModelUnavailable, exhausted
from minirag.models import ModelFiles
from minirag.ort_session import inference_session, runtime_reason
from minirag.writing import script_of

#: A script is read when the vocabulary holds this many multi-letter pieces of it.
MIN_SCRIPT_PIECES = 100
# The longest one model run may take where it is bounded: loading (the width probe), and a server's
# query (server.QUERY_RUN_LIMIT_S). Far past what a short text takes on any CPU minirag runs on; past it
# the run is stopped, said as OVERDUE.
PROBE_LIMIT_S = 60.0
OVERDUE = ("ran one embedding for more than {limit:g} s and was stopped (a graph that never ends, or a machine "
           "far too slow for this model)")


def vocabulary_words(tokenizer):
    """The vocabulary's pieces as text, in id order (lazily): continuation marks (##, ▁)
    dropped; byte-level pieces (GPT-2 style) mapped back to the characters they encode."""
    byte_level = "ByteLevel" in repr(tokenizer.pre_tokenizer) or "ByteLevel" in repr(tokenizer.decoder)
    to_byte = {c: b for b, c in _byte_alphabet().items()} if byte_level else {}
    for token_id in range(tokenizer.get_vocab_size()):
        piece = tokenizer.id_to_token(token_id) or ""
        if byte_level:
            yield bytes(to_byte[c] for c in piece if c in to_byte).decode("utf-8", errors="ignore").strip()
        else:
            yield piece.removeprefix("##").lstrip("▁")


def _byte_alphabet() -> dict[int, str]:
    """GPT-2's reversible map from bytes to printable characters."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    mapping, extra = {}, 0
    for byte in range(256):
        if byte in printable:
            mapping[byte] = chr(byte)
        else:
            mapping[byte] = chr(256 + extra)
            extra += 1
    return mapping


class Encoder:
    """One ONNX session + tokenizer. Thread-safe: ORT sessions allow concurrent run()."""

    # Padded tokens per ONNX call (the batch shapes measured: see docs/benchmarks.md#behind-the-constants).
    MAX_BATCH_TOKENS = 2048
    MAX_BATCH_SIZE = 64
    TOKENIZE_SLICE = 1024  # texts tokenized at once: enough for the tokenizer's threads

    def __init__(self, files: ModelFiles, *, threads: int | None = None, cache_dir: Path | None = None,
                 one_shot: bool = False):
        """With `cache_dir`, the word embeddings are split out of the graph there on first use
        (minirag/word_table.py) and looked up in a table read by rows, the rest of a float graph
        runs its weight products in int8 (minirag/int8_graph.py, made there too), and an XLM-R
        style tokenizer runs in Python from tables cached there (minirag/unigram.py); without,
        the plain model and `tokenizers`.

        `one_shot`: the process embeds a query or two and exits (a CLI query). Its session is
        made without graph optimizations and without pre-packed weights: much less CPU to make
        (an int8 graph's weights are then dequantized in each run, a few ms), vectors within
        1e-6 of the optimized session's (docs/benchmarks.md)."""
        import onnxruntime as ort

        from minirag import unigram, word_table

        if hasattr(ort, "disable_telemetry_events"):
            ort.disable_telemetry_events()
        self._ort = ort
        self.files = files
        self.spec = files.spec
        _refuse_oversized(files.tokenizer_path, MAX_TOKENIZER_BYTES,
                          "cannot load the tokenizer {path}: {size:,} bytes, more than any real tokenizer's "
                          f"(at most {MAX_TOKENIZER_BYTES:,} are read)")
        _refuse_oversized(files.onnx_path, MAX_ONNX_BYTES,
                          "cannot load ONNX model {path}: {size:,} bytes, more than one ONNX file holds "
                          "(2 GiB; a larger model keeps its weights in external data files beside it)")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or os.cpu_count() or 1
        options.inter_op_num_threads = 1
        options.graph_optimization_level = (ort.GraphOptimizationLevel.ORT_DISABLE_ALL if one_shot
                                            else ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
        if one_shot:
            options.add_session_config_entry("session.disable_prepacking", "1")
        options.log_severity_level = 4  # fatal only: a failed run is reported once, as the error raised here
        # Idle intra-op threads busy-wait by default, taking the cores a query's SQL
        # and matrix product run on (what spinning costs: see docs/benchmarks.md).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._split = word_table.cached(files.onnx_path, cache_dir) if cache_dir is not None else None
        self._table = None
        if self._split is not None:
            from minirag import int8_graph

            # Documents and queries both run the int8 form of the split where one is made.
            self._session = int8_graph.session(self._split.onnx_path, options)
            try:
                if self._session is None:
                    self._session = inference_session(self._split.onnx_path, options)
                self._table = self._split.table()
            except Exception:  # noqa: BLE001 - a split ORT cannot read: the plain model serves
                self._split = None
        if self._table is None:
            try:
                self._session = inference_session(files.onnx_path, options)
            except MemoryError:
                raise
            except Exception as exc:  # noqa: BLE001 - a corrupt or foreign file
                raise ModelUnavailable(f"cannot load ONNX model {files.onnx_path}: {runtime_reason(exc)}") from None
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._output = self._session.get_outputs()[0].name
        try:
            light = unigram.cached(files.tokenizer_path, cache_dir) if cache_dir is not None else None
            if light is None:
                from tokenizers import Tokenizer  # not imported when the cached tables serve

                self._tokenizer: unigram.UnigramTokenizer | Tokenizer = Tokenizer.from_file(str(files.tokenizer_path))
            else:
                self._tokenizer = light
        except Exception as exc:  # noqa: BLE001 - not JSON, or JSON of no tokenizer the library knows
            raise ModelUnavailable(f"cannot load the tokenizer {files.tokenizer_path}: {_tokenizer_fault(files, exc)}"
                                   ) from None
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        self._count_lock = threading.Lock()
        self._scripts: dict[str, bool] = {}  # script -> read, filled on first sight
        shape = self._session.get_outputs()[0].shape
        # A model that cannot embed (a graph of other inputs or outputs, a tokenizer whose ids pass its
        # table) is refused here, before an index is bound to it; a one-shot query skips the extra run
        # where the graph states its width, and meets the same error embedding its query.
        static = shape[-1] if shape and isinstance(shape[-1], int) else None
        self.dimension = static if static is not None and one_shot else self._probe()
        if self.dimension < 1:
            raise ModelUnavailable(f"the model {files.onnx_path} gives vectors of no coordinate (0-d); it is "
                                   "not a sentence encoder, or was cut wrong when exported")
        if self.spec.dimension and self.spec.dimension != self.dimension:
            raise ModelUnavailable(
                f"{files.onnx_path} produces {self.dimension}-d vectors, but {self.spec.model_id} is {self.spec.dimension}-d"
            )

    def _probe(self) -> int:
        """The width of the vectors the model gives, from one short run: bounded (PROBE_LIMIT_S) unless
        the caller's bound of a limit is in force, so a server's early load (App.load_model_early), which a
        query waits for, ends under a graph that never ends."""
        outer = interruptible.current()
        if outer is not None and outer.limit_s is not None:
            return len(self.embed_queries(["dimension probe"])[0])
        # Under a bound of no limit (a sync job's, an ingest call's), that bound's stop stops it too.
        with interruptible.tightened(PROBE_LIMIT_S, OVERDUE.format(limit=PROBE_LIMIT_S)):
            return len(self.embed_queries(["dimension probe"])[0])

    @property
    def model_id(self) -> str:
        return self.spec.model_id

    @property
    def max_length(self) -> int:
        return self.spec.max_length

    def reads(self, text: str) -> bool:
        """Whether most letters of `text` are in a script this model's vocabulary covers.

        Decided from the tokenizer itself, so a MODEL_PATH model is judged like a
        known one: a script counts as read when the vocabulary holds at least
        MIN_SCRIPT_PIECES pieces of two or more of its letters. all-MiniLM-L6-v2
        has 26,461 Latin pieces and 8 Cyrillic ones (it spells Russian letter by
        letter); multilingual-e5-small's XLM-R vocabulary has tens of thousands.
        """
        letters = [c for c in text if c.isalpha()]
        if not letters:
            return True
        known = sum(1 for c in letters if self.reads_script(script_of(c)))
        return known * 2 >= len(letters)

    def reads_script(self, script: str) -> bool:
        """At least MIN_SCRIPT_PIECES vocabulary pieces of 2+ letters in `script` (memoized; the
        scan stops as soon as that many are found, so a covered script costs microseconds)."""
        if script not in self._scripts:
            found = 0
            for piece in vocabulary_words(self._tokenizer):
                if len(piece) >= 2 and piece.isalpha() and script_of(piece[0]) == script:
                    found += 1
                    if found >= MIN_SCRIPT_PIECES:
                        break
            self._scripts[script] = found >= MIN_SCRIPT_PIECES
        return self._scripts[script]

    def count_tokens(self, text: str) -> int:
        """Tokens the encoder sees for this passage: prefix and special tokens included, no truncation."""
        return len(self._tokenizer.encode(self.spec.document_prefix + text).ids)

    def count_tokens_batch(self, texts: Sequence[str]) -> list[int]:
        prefix = self.spec.document_prefix
        return [len(e.ids) for e in self._tokenizer.encode_batch([prefix + t for t in texts])]

    def embed_documents(self, texts: Sequence[str], on_batch: Callable[[int], None] | None = None, *,
                        owners: Sequence[int] | None = None,
                        on_vectors: Callable[[list[int], np.ndarray], None] | None = None) -> np.ndarray:
        """`on_batch(done)` runs after each ONNX batch with the count of these texts embedded so far.
        `owners`: each text's document, by number: the batches (packed by length as ever) run in the
        order that completes the first documents first, so a stop between batches finds them whole.
        `on_vectors(rows, vectors)` runs with each batch's vectors, before `on_batch`."""
        return self._embed([self.spec.document_prefix + t for t in texts], on_batch, owners, on_vectors)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed([self.spec.query_prefix + t for t in texts])

    def _embed(self, texts: Sequence[str], on_batch: Callable[[int], None] | None = None,
               owners: Sequence[int] | None = None,
               on_vectors: Callable[[list[int], np.ndarray], None] | None = None) -> np.ndarray:
        """One row a text, in order. Each batch's vectors go straight to their rows: kept a batch at a
        time and stacked at the end, a document's vectors were held three times over (a 32 Mi-character
        one has some 200,000 chunks, 300 MB of vectors each time)."""
        if not texts:
            return np.zeros((0, getattr(self, "dimension", 0) or 0), dtype=np.float32)
        ids = self._token_ids(texts)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        batches: Iterable[list[int]] = self._batches(order, ids)
        if owners is not None:
            # The same batches, run by the first document each holds part of: once those holding any
            # part of documents 0..k have run, documents 0..k are whole. The order of runs costs nothing.
            batches = sorted(batches, key=lambda batch: min(owners[i] for i in batch))
        out: np.ndarray | None = None
        done = 0
        for batch in batches:
            vectors = self._run([ids[i] for i in batch])
            if out is None:  # (the width is the model's: known here, before `dimension` is set too)
                out = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
            out[batch] = vectors
            done += len(batch)
            if on_vectors is not None:
                on_vectors(batch, vectors)
            if on_batch is not None:
                on_batch(done)
        return out if out is not None else np.zeros((0, 0), dtype=np.float32)  # (texts were given: never)

    def _token_ids(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Each text's ids, past max_length cut to its first tokens and its last (the end mark). Tokenized
        a slice at a time and kept as arrays: an Encoding also holds its tokens, offsets and masks,
        ~18 KB a chunk, and a 10 MB document is 58,000 chunks."""
        ids: list[np.ndarray] = []
        for start in range(0, len(texts), self.TOKENIZE_SLICE):
            for encoding in self._tokenizer.encode_batch(list(texts[start:start + self.TOKENIZE_SLICE])):
                seq = encoding.ids
                ids.append(np.array(seq[: self.max_length - 1] + seq[-1:] if len(seq) > self.max_length else seq,
                                    dtype=np.int64))
        return ids

    def _batches(self, order: list[int], ids: list[np.ndarray]):
        """Length-sorted batches capped by padded tokens, so short texts ride in big batches."""
        batch: list[int] = []
        for i in order:
            width = len(ids[i])  # sorted ascending: the newest member is the widest
            if batch and (len(batch) + 1) * width > self.MAX_BATCH_TOKENS or len(batch) >= self.MAX_BATCH_SIZE:
                yield batch
                batch = []
            batch.append(i)
        if batch:
            yield batch

    def _run(self, sequences: list[np.ndarray]) -> np.ndarray:
        try:
            vectors = self._run_model(sequences)
        except interruptible.RunStopped as exc:
            raise ModelRunStopped(f"the model {self.files.onnx_path} {exc}") from None
        except Exception as exc:  # noqa: BLE001 - ONNX Runtime's errors are no common type
            if exhausted(exc) is not None:  # memory or threads ran out: no fault of the model's
                raise
            if not is_mismatch(exc):  # the graph fits; running it failed (memory, a kernel)
                raise ModelUnavailable(f"ONNX Runtime could not run the model {self.files.onnx_path}: "
                                       f"{runtime_reason(exc)}") from None
            raise ModelUnavailable(
                f"the model {self.files.onnx_path} cannot embed a text ({runtime_reason(exc)}); its "
                f"model.onnx and {self.files.tokenizer_path.name} must be one sentence encoder's (a transformer "
                "taking input_ids and attention_mask)") from None
        if not np.isfinite(vectors).all():  # nothing of such a batch may reach the index
            bad = int((~np.isfinite(vectors).all(axis=1)).sum())
            copy = (f", or its copy prepared for use in {self._split.onnx_path.parent}: delete that folder and "
                    "it is made again" if self._split is not None else "")
            raise ModelUnavailable(f"the model {self.files.onnx_path} gave vectors that are not numbers (NaN or "
                                   f"infinite) for {bad} of {len(sequences)} texts; nothing of them was written "
                                   f"(a damaged or wrongly exported model file{copy})")
        expected = getattr(self, "dimension", None)  # (unset while the probe itself runs)
        if expected is not None and vectors.shape[1] != expected:
            # Written or searched, such vectors fail in sqlite-vec's words, blamed on the index.
            raise ModelUnavailable(f"the model {self.files.onnx_path} gave vectors of {vectors.shape[1]} coordinates "
                                   f"where it gave {expected} before (its output's width must not depend on the texts); "
                                   "nothing of them was written")
        return vectors

    def _run_model(self, sequences: list[np.ndarray]) -> np.ndarray:
        width = max(len(s) for s in sequences)
        input_ids = np.zeros((len(sequences), width), dtype=np.int64)
        mask = np.zeros_like(input_ids)
        for row, seq in enumerate(sequences):
            input_ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": mask}
        if self._table is not None and self._split is not None:
            feeds[self._split.embeds_input] = self._table.floats(input_ids)
            if not self._split.keeps_input_ids:
                del feeds["input_ids"]
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        options = self._ort.RunOptions()
        hidden = interruptible.call(lambda: self._session.run([self._output], feeds, options)[0],
                                    lambda: setattr(options, "terminate", True))
        if hidden.ndim not in (2, 3):
            raise ValueError(f"its output has shape {list(hidden.shape)}, not [batch, tokens, dimension] "
                             "or [batch, dimension]")
        if hidden.ndim == 2:  # a model that pools inside the graph
            pooled = hidden
        elif self.spec.pooling == "cls":
            pooled = hidden[:, 0]
        else:
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.clip(norms, 1e-12, None)


# A tokenizer.json is loaded whole, at some 13 bytes of memory a byte: past this, refused unread
# (real ones are a few MB to a few tens of MB; docs/models.md#a-local-model-folder-model_path).
MAX_TOKENIZER_BYTES = 64 << 20
# One protobuf message, and so one ONNX file, holds less than 2 GiB: a larger file is no model, and
# splitting its word table out (word_table.py) would read it whole first.
MAX_ONNX_BYTES = (2 << 30) - 1


def _refuse_oversized(path: Path, limit: int, refusal: str) -> None:
    """ModelUnavailable where the file at `path` holds more than `limit` bytes, said as `refusal` (a
    template of `{path}` and `{size}`); one that cannot be looked at is left to its load, which says why."""
    try:
        size = path.stat().st_size
    except OSError:
        return
    if size > limit:
        raise ModelUnavailable(refusal.format(path=path, size=size))


def _tokenizer_fault(files: ModelFiles, exc: Exception) -> str:
    """Why a tokenizer.json did not load: the library's parse error for JSON of another shape reads
    as bad syntax (`expected , or }`), so a file that is JSON is said to be JSON of no tokenizer."""
    from minirag import json_text

    try:
        found = json_text.loads(files.tokenizer_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return str(exc)
    if isinstance(found, dict) and isinstance(found.get("model"), dict):
        return str(exc)
    return "it is JSON, but not a tokenizer's (a Hugging Face tokenizers tokenizer.json holds its \"model\")"


# ONNX Runtime's error classes (its pybind module's) that say the graph does not take what a sentence
# encoder is given; any other (FAIL, RUNTIME_EXCEPTION, EP_FAIL) is a run that failed.
MISMATCH_ERRORS = {"InvalidArgument", "InvalidGraph", "NotImplemented"}


def is_mismatch(exc: Exception) -> bool:
    """Whether `exc`, raised running the model, says the model and its tokenizer are not a sentence
    encoder's (inputs it lacks, an output of another shape, token ids past its table)."""
    return isinstance(exc, (ValueError, IndexError, KeyError)) or type(exc).__name__ in MISMATCH_ERRORS
