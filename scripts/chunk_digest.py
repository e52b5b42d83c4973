"""A digest of every chunk the eval would index, to tell whether a change moves them.

    python scripts/chunk_digest.py --model-path P DIR [DIR ...]

For each BEIR-format set DIR, every corpus document is built exactly as scripts/eval.py
builds it (chunks, their heading paths and keyword text's inputs), nothing is embedded or
written, and one line says the set, its chunk count and a SHA-256 of its documents' titles,
categories, sections and chunks (their reprs). Run it
on two trees (`PYTHONPATH=TREE python TREE/scripts/chunk_digest.py ...`): equal digests mean a
conversion change left the eval sets' chunks byte-identical, so only ranking code can move
their numbers.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
from dataclasses import fields, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Fields added to Section and Chunk after digests were first given in notes: left out of the repr
# hashed while at their default, so a digest taken before them still compares.
ADDED_FIELDS = {"rows": None}


def _repr_as_before(self) -> str:
    shown = [f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
             if f.repr and not (f.name in ADDED_FIELDS and getattr(self, f.name) == ADDED_FIELDS[f.name])]
    return f"{type(self).__qualname__}({', '.join(shown)})"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="+", type=Path)
    parser.add_argument("--model-path", required=True, help="the model folder whose tokenizer cuts the chunks")
    args = parser.parse_args()

    from eval import build_document, read_jsonl

    from minirag.app import App
    from minirag.chunking.model import Chunk, Section
    from minirag.config import load_config
    from minirag.encoder import Encoder
    from minirag.models import resolve

    Chunk.__repr__ = Section.__repr__ = _repr_as_before  # type: ignore[method-assign]
    config = load_config(base_dirs=[str(ROOT)], model_path=args.model_path)
    encoder = Encoder(resolve(config.model_name, config.model_path, config.cache_dir))
    with tempfile.TemporaryDirectory(prefix="minirag-digest-") as scratch:
        for directory in args.sets:
            app = App(replace(config, db_path=Path(scratch) / f"{directory.name}.db"), encoder=encoder)
            digest, chunks = hashlib.sha256(), 0
            for doc in read_jsonl(directory / "corpus.jsonl"):
                built = build_document(app, doc)
                chunked = built.chunked  # what the eval indexes of it (not what ranks it, as its links)
                digest.update(repr((chunked.title, chunked.category, chunked.sections, chunked.chunks)).encode())
                chunks += len(built.chunked.chunks)
            app.close()
            print(f"{directory.name} {chunks} {digest.hexdigest()[:16]}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
