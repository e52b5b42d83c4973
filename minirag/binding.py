"""Which model an index is used with, and the chunk token budget its files are cut at: the one answer.

An index keeps the model it was built with. Naming no model (neither MODEL_NAME nor
MODEL_PATH) uses that one; naming another is a mismatch, refused before anything is
loaded or downloaded. `App` (queries, syncs, status, list) and `doctor` all ask `bind`;
the budget is `planned_budget`, and `checked_budget` for a write (its CHUNK_TOKEN_BUDGET checked).
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from minirag.chunking import MIN_CHUNK_TOKEN_BUDGET
from minirag.config import Config, ConfigError
from minirag.errors import IndexUnavailable, ModelUnavailable
from minirag.models import LOCAL_PREFIX, ModelSpec, catalogue_spec, configured_model_id, locate
from minirag.security import containing_root, is_under
from minirag.store.index import META_MODEL_PATH, Index


@dataclass(frozen=True)
class RecordedModel:
    """The model an index records (`meta`), and the MODEL_PATH it was last written with while that
    folder still holds this model (None otherwise)."""

    model_id: str
    dimension: int | None = None
    path: Path | None = None


@dataclass(frozen=True)
class ModelBinding:
    """The model to use with one index: `name` and `path` are what `models.locate` / `resolve` take;
    `model_id` is the id an index records for it, found without loading it; `recorded`, the index's."""

    name: str
    path: Path | None
    model_id: str
    recorded: RecordedModel | None

    @property
    def mismatch(self) -> bool:
        """The index was built with another model than the one named."""
        return self.recorded is not None and self.model_id != self.recorded.model_id

    def refuse_mismatch(self, config: Config) -> None:
        """IndexUnavailable naming both models and the ways out, when they differ."""
        recorded = self.recorded
        if recorded is None or not self.mismatch:
            return
        if config.model_path is not None:  # a folder holding no model says so, not "re-index with it"
            locate(config.model_name, config.model_path, config.cache_dir)
        index_model, named = recorded.model_id, self.model_id
        keep = self.index_model_named()
        what = (f"MODEL_PATH {config.model_path} holds {named}" if config.model_path is not None
                else f"{named} was named (MODEL_NAME / --model-name)")
        raise IndexUnavailable(
            f"the index {config.db_path} was built with {index_model}, but {what}; "
            f"name the index's model ({keep}, or name none), or re-index with {named} "
            "(a new --db-path, or delete the index and run `minirag sync`)")

    def index_model_named(self) -> str:
        """How a command names the index's model, as `refuse_mismatch` and doctor advise it: the folder it
        was last written with (its id alone is no folder, and names a hub download), else its hub id."""
        recorded = self.recorded
        if recorded is None:
            return "no model"
        if recorded.path is not None:
            return f"--model-path {shlex.quote(str(recorded.path))}"
        return "its MODEL_PATH" if recorded.model_id.startswith(LOCAL_PREFIX) else f"--model-name {recorded.model_id}"

    def refuse_unlisted(self, config: Config) -> None:
        """IndexUnavailable, before any download, when the model is one only the index names: a hub
        model minirag does not list and this machine does not hold. An index can come with the folder
        it indexes, and name any model for a user naming none to download and run; one already on
        this machine is the user's own, and is used."""
        if self.recorded is None or self.path is not None or config.model_path is not None or config.model_named:
            return
        model_id = self.model_id
        if catalogue_spec(model_id) is not None or model_id.startswith(LOCAL_PREFIX):
            return
        try:
            locate(model_id, None, config.cache_dir)
        except ModelUnavailable:
            raise IndexUnavailable(
                f"the index {config.db_path} was built with {model_id}, a model minirag does not list and this "
                f"machine does not hold: name it to fetch it (--model-name {model_id}), or re-index with another "
                "(a new --db-path, or delete the index and run `minirag sync`)") from None

    def spec_on_disk(self, cache_dir: Path) -> ModelSpec:
        """The model's settings without loading it: its catalogue entry, else its files' settings
        (minirag-model.json, the hub cache's config). ModelUnavailable when neither is here."""
        spec = catalogue_spec(self.name) if self.path is None else None
        return spec if spec is not None else locate(self.name, self.path, cache_dir).spec


def bind(config: Config, recorded: RecordedModel | None) -> ModelBinding:
    """The model named (MODEL_NAME / MODEL_PATH), else the one the index records, else the default."""
    if config.model_path is None and not config.model_named:
        if recorded is not None:
            return ModelBinding(recorded.model_id, recorded.path, recorded.model_id, recorded)
        return ModelBinding(config.model_name, None, configured_model_id(config.model_name, None), None)
    return ModelBinding(config.model_name, config.model_path, configured_model_id(config.model_name, config.model_path),
                        recorded)


def recorded_model(index: Index, roots: Sequence[Path] = ()) -> RecordedModel | None:
    """What `index` records of its model; None before its first ingest."""
    bound = index.bound_model()
    if bound is None:
        return None
    path = _recorded_folder(index.meta(META_MODEL_PATH), roots)
    if path is not None and configured_model_id(bound[0], path) != bound[0]:
        path = None  # that directory holds another model now
    return RecordedModel(bound[0], bound[1], path)


# Folders whose entries name other places per process: /proc/self/cwd is the working folder.
_PER_PROCESS = ("/proc", "/dev/fd")


def _through_per_process_folders(raw: str) -> bool:
    """Whether resolving `raw` passes through /proc or /dev/fd, however it is spelled (`//proc`,
    `/./proc`) or linked (`/dev/stdin` is /proc/self/fd/0): one folder at a time, each resolved."""
    at = os.path.abspath(os.sep)
    for part in Path(raw).parts[1:]:
        step = os.path.join(at, part)
        if any(is_under(step, place, os.sep) for place in _PER_PROCESS):
            return True
        at = os.path.realpath(step)
        if any(is_under(at, place, os.sep) for place in _PER_PROCESS):
            return True
    return False


def _recorded_folder(raw: str | None, roots: Sequence[Path]) -> Path | None:
    """The model folder an index records, where it may be used without being named. An index can come
    with the folder it indexes (a clone's .minirag/), so it may not name a folder that folder holds:
    not a relative path (read from the working folder), not one through /proc/self/cwd (the same),
    and not one inside a document root (what the documents' authors put there)."""
    if not raw or not Path(raw).is_absolute() or _through_per_process_folders(raw):
        return None
    real = os.path.realpath(raw)
    if containing_root(Path(real), [Path(os.path.realpath(root)) for root in roots]) is not None:
        return None
    return Path(raw) if os.path.isdir(real) else None


def remember_model_path(index: Index, config: Config) -> None:
    """Record MODEL_PATH in the index it writes to, so a later run may name no model."""
    if config.model_path is not None and index.meta(META_MODEL_PATH) != str(config.model_path):
        index.set_meta(META_MODEL_PATH, str(config.model_path))


def planned_budget(config: Config, spec: ModelSpec) -> int:
    """CHUNK_TOKEN_BUDGET, else the model's own default (capped at what it reads), from its ModelSpec."""
    return config.chunk_token_budget or min(spec.chunk_budget, spec.max_length)


def checked_budget(config: Config, spec: ModelSpec) -> int:
    """`planned_budget` for the model a write embeds with; a CHUNK_TOKEN_BUDGET past what it reads is refused."""
    budget = planned_budget(config, spec)
    if budget > spec.max_length:
        raise ConfigError(
            f"CHUNK_TOKEN_BUDGET must be in {MIN_CHUNK_TOKEN_BUDGET}–{spec.max_length} for "
            f"{spec.model_id} (its maximum sequence length), got {budget}"
        )
    return budget
