"""A notebook's printed output reads as Jupyter shows it: consecutive pieces of one stream (stdout,
stderr) are one output, a backspace takes back the character before it and a carriage return
writes the line over from its start, so a progress bar is its last state.

A notebook run by nbconvert or papermill saves each flush of a stream as an output of its own, and
every frame of a progress bar with it: Keras writes each step's line after backspaces over the
last and a carriage return. StellarGraph's GraphSAGE demo (an excerpt in tests/fixtures/readers84/)
read as 1,783 fenced blocks, nearly all of them `ETA` frames, 197,353 characters where Jupyter shows
eight lines of training, with a warning that 158,955 control characters were taken out.
"""

from __future__ import annotations

import json

from conftest import FIXTURES
from helpers.growth import grows_linearly

from minirag.ingest.convert import convert_document

TRAINING = FIXTURES / "readers84" / "graphsage_training.ipynb"
LAST_STEP = "434/434 [==============================] - 33s 76ms/step - loss: 0.5637 - binary_accuracy: 0.7398"


def _notebook(outputs: list[dict]) -> bytes:
    return json.dumps({"nbformat": 4, "nbformat_minor": 4, "metadata": {}, "cells": [
        {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": "run()", "outputs": outputs}]}).encode()


def _stream(text: str, name: str = "stdout") -> dict:
    return {"output_type": "stream", "name": name, "text": text}


def test_readers84_a_progress_bar_saved_frame_by_frame_reads_as_its_last_state():
    converted = convert_document(TRAINING.read_bytes(), ".ipynb", "graphsage_training.ipynb")
    assert f"```\nEpoch 1/4\n{LAST_STEP}\n```" in converted.markdown, converted.markdown
    assert "ETA" not in converted.markdown
    assert converted.warnings == ()


def test_readers84_consecutive_pieces_of_one_stream_are_one_output_and_another_stream_parts_them():
    data = _notebook([_stream("Epoch 1/80\n"), _stream("loss: 2.1545\n"), _stream("Epoch 2/80\n"),
                      _stream("slow step\n", "stderr"), _stream("loss: 2.0813\n")])
    markdown = convert_document(data, ".ipynb", "fit.ipynb").markdown
    assert markdown.endswith("```\nEpoch 1/80\nloss: 2.1545\nEpoch 2/80\n```\n\n```\nslow step\n```\n\n"
                             "```\nloss: 2.0813\n```"), markdown


def test_readers84_a_carriage_return_writes_over_the_start_of_its_line_as_a_terminal_does():
    data = _notebook([_stream("\r  0%|          | 0/20 [00:00<?, ?it/s]", "stderr"),
                      _stream("\r 50%|#####     | 10/20 [00:01<00:01,  9.62it/s]"
                              "\r100%|##########| 20/20 [00:02<00:00,  9.50it/s]\nsaved\rS\r\n", "stderr")])
    markdown = convert_document(data, ".ipynb", "bar.ipynb").markdown
    assert markdown.endswith("```\n100%|##########| 20/20 [00:02<00:00,  9.50it/s]\nSaved\n```"), markdown


def test_readers84_a_split_stream_is_bounded_as_one_output():
    """Each line flushed on its own (nbclient saves each as an output) had escaped the bound on one
    output's lines: 20,000 outputs of a line were 20,000 fenced blocks."""
    data = _notebook([_stream(f"epoch {n}: loss 0.{n:05d}\n") for n in range(20_000)])
    markdown = convert_document(data, ".ipynb", "train.ipynb").markdown
    assert "epoch 0: loss" in markdown and "epoch 19999: loss" in markdown and "epoch 10000: loss" not in markdown
    assert markdown.count("```") == 4 and len(markdown) < 20_000


def test_readers84_a_long_line_written_over_many_times_costs_its_length():
    """Each short piece after a carriage return had copied the whole line before it: a line of
    2,000,000 characters and 200,000 carriage returns after it took 26 s."""
    def notebook(n: int) -> str:
        return _notebook([_stream("A" * 20 * n + "\rx" * 5 * n)]).decode()

    assert grows_linearly(lambda text: convert_document(text.encode(), ".ipynb", "long.ipynb"), notebook)
