"""How a group's encoder batches meet a stop: padded tokens (the cost of the packing) and the chunks of
files whole when a stop comes at 25/50/75% of the texts, for the batch orders studied in
docs/benchmarks.md ("Ctrl-C halfway"). Nothing is embedded: the files are converted and chunked with
the model's tokenizer and budget, and the batches are only formed.

    MODEL_PATH=DIR python scripts/stop_order_sim.py FOLDER
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from minirag.app import App
from minirag.config import load_config
from minirag.ingest.pipeline import Document
from minirag.ingest.scan import walk


def main(folder: str) -> None:
    import os

    config = load_config(env={"MODEL_PATH": os.environ["MODEL_PATH"]}, cwd=Path(tempfile.gettempdir()),
                         base_dirs=[folder], db_path=str(Path(tempfile.mkdtemp()) / "sim.db"))
    app = App(config)
    encoder = app.pipeline.encoder
    docs = []
    for found in sorted(walk(Path(folder), [Path(folder)]), key=lambda f: f.source):
        result = app.pipeline.prepare_file(found, None, force=True)
        if isinstance(result, Document) and result.chunked.chunks:
            docs.append(result)
    texts, owners = [], []
    for number, doc in enumerate(docs):
        for chunk in doc.chunked.chunks:
            texts.append(chunk.text)
            owners.append(number)
    ids = encoder._token_ids([encoder.spec.document_prefix + t for t in texts])
    lengths = [len(i) for i in ids]
    members: dict[int, list[int]] = {}
    for i, owner in enumerate(owners):
        members.setdefault(owner, []).append(i)
    print(f"{len(docs)} files, {len(texts)} chunks, tokens min/median/max {min(lengths)}/"
          f"{sorted(lengths)[len(lengths) // 2]}/{max(lengths)}")

    def report(name: str, batches: list[list[int]], by_first_file: bool) -> None:
        cost = sum(len(b) * max(lengths[i] for i in b) for b in batches)
        if by_first_file:
            batches = sorted(batches, key=lambda b: min(owners[i] for i in b))
        done: set[int] = set()
        said, cuts = [], [0.25, 0.5, 0.75]
        for batch in batches:
            done.update(batch)
            while cuts and len(done) >= cuts[0] * len(texts):
                whole = [n for n, rows in members.items() if all(i in done for i in rows)]
                kept = sum(len(members[n]) for n in whole)
                said.append(f"{int(cuts.pop(0) * 100)}%: {len(done)} embedded, {kept} in {len(whole)} whole files, "
                            f"{len(done) - kept} lost")
        print(f"{name}: padded tokens {cost / sum(lengths):.3f} of the real; " + "; ".join(said))

    by_length = sorted(range(len(texts)), key=lambda i: lengths[i])
    report("length order (one call per group, before)", list(encoder._batches(by_length, ids)), False)
    report("length order, run by first file (now)", list(encoder._batches(by_length, ids)), True)
    for least in (64, 128):
        slices, piece = [], []
        for number in range(len(docs)):
            piece += members[number]
            if len(piece) >= least:
                slices.append(piece)
                piece = []
        if piece:
            slices.append(piece)
        batches = [b for part in slices for b in encoder._batches(sorted(part, key=lambda i: lengths[i]), ids)]
        report(f"slices of whole files, >= {least} chunks each", batches, False)
    app.close()


if __name__ == "__main__":
    main(sys.argv[1])
