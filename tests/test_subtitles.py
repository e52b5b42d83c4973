"""Subtitles and captions (.srt, .vtt) read as the cues a viewer sees, then cut as a transcript."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.growth import grows_linearly

from minirag.chunking import chunk_document
from minirag.ingest.convert import convert_document
from minirag.ingest.subtitles import subtitles_to_text
from minirag.ingest.sync import run_sync

DOCS = Path(__file__).parent / "fixtures" / "docs"


def _cues(markdown: str) -> list[tuple[str, list[str]]]:
    blocks = [block.split("\n") for block in markdown.split("\n\n")]
    return [(lines[0], lines[1:]) for lines in blocks]


def test_subrip_reads_as_the_same_cues_as_webvtt_without_numbers_or_markup():
    srt = convert_document((DOCS / "srt_sintel_subtitles_en.srt").read_bytes(), ".srt", "sintel.srt")
    vtt = (DOCS / "txt_sintel_subtitles_en.txt").read_text(encoding="utf-8")
    assert srt.warnings == ()
    assert [(timing.replace(",", "."), words) for timing, words in _cues(srt.markdown)] == _cues(
        vtt.removeprefix("WEBVTT\n\n").strip())
    assert "<i>" not in srt.markdown and "\n1\n" not in srt.markdown


def test_a_subrip_file_is_cut_as_a_transcript_labelled_with_its_own_cue_times(encoder):
    converted = convert_document((DOCS / "srt_sintel_subtitles_en.srt").read_bytes(), ".srt", "sintel.srt")
    doc = chunk_document(converted.markdown, title="sintel", count_tokens=encoder.count_tokens, budget=110)
    assert doc.category == "transcript"
    assert next(s for s in doc.sections if s.context_lines).text.split("\n")[0] == "[00:00:18,700–00:01:58,250]"


def test_youtubes_rolling_captions_read_each_line_once_without_styles_settings_or_karaoke_times():
    converted = convert_document((DOCS / "vtt_youtube_dl_rolling_captions.vtt").read_bytes(), ".vtt", "talk.vtt")
    assert converted.markdown == ("00:04:46.070 --> 00:04:46.470\nyeah\n\n"
                                  "00:04:46.470 --> 00:05:04.080\nwhat\n\n"
                                  "00:05:04.080 --> 00:05:05.069\nthis will happen is I'm telling")


def test_a_meetings_voice_tags_name_its_speakers_and_entities_read_as_characters():
    vtt = ("WEBVTT\n\nNOTE exported by a meeting app\n\n"
           "b3d1c0de-5e1f-4a55-9d1b-0c6f3f0b9a11/12-0\n00:00:03.120 --> 00:00:05.640\n"
           "<v Anna Smith>Good morning, everyone.</v>\n\n"
           "b3d1c0de-5e1f-4a55-9d1b-0c6f3f0b9a11/13-0\n00:00:06.000 --> 00:00:09.500 align:start\n"
           "<v.loud Bob O'Neil>Q&amp;A comes after the demo &lt;3</v>\n")
    assert subtitles_to_text(vtt) == ("00:00:03.120 --> 00:00:05.640\nAnna Smith: Good morning, everyone.\n\n"
                                      "00:00:06.000 --> 00:00:09.500\nBob O'Neil: Q&A comes after the demo <3")


def test_reading_cues_takes_time_in_proportion_to_the_file():
    # A cue of many lines after a cue of many lines: the lines a rolling caption carries are looked for
    # among a few, not among every line of both.
    assert grows_linearly(subtitles_to_text, lambda n: (
        "00:00:01.000 --> 00:00:02.000\n" + "same line\n" * n + "\n00:00:02.000 --> 00:00:03.000\n" + "same line\n" * n))
    assert grows_linearly(subtitles_to_text, lambda n: "00:00:01.000 --> 00:00:02.000 " + "x" * (40 * n) + "\nwords\n")



def test_a_voice_tag_never_closed_takes_time_in_proportion_to_the_line():
    # `<v x` over and over with no `>`: each voice tag's name had been looked for to the line's end.
    assert grows_linearly(subtitles_to_text, lambda n: "00:01.000 --> 00:02.000\n" + "<v x" * n + "\n")


@pytest.mark.parametrize(("source", "shown"), [
    # SubRip's position tags are markup.
    ("1\n00:00:01,000 --> 00:00:02,000\n{\\an8}<b>Top line</b>\n", "00:00:01,000 --> 00:00:02,000\nTop line"),
    # A file of no cues is empty; an arrow inside a cue's text is words.
    ("WEBVTT\n\nNOTE nothing here\n", ""),
    ("1\n00:00:01,000 --> 00:00:02,000\nthe arrow --> points on\n", "00:00:01,000 --> 00:00:02,000\nthe arrow --> points on"),
    # The number of a cue written without a blank line before it is no word of the cue before.
    ("1\n00:00:01,000 --> 00:00:02,000\nHello\n2\n00:00:03,000 --> 00:00:04,000\nWorld\n",
     "00:00:01,000 --> 00:00:02,000\nHello\n\n00:00:03,000 --> 00:00:04,000\nWorld"),
    # Japanese captions set a reading over a word (<ruby>漢<rt>kan</rt></ruby>): the reading had run
    # into the word, 漢kan, which no query for the word matches. Its base text is kept, as .docx's is.
    ("WEBVTT\n\n00:01.000 --> 00:02.000\n<ruby>漢<rt>kan</rt>字<rt>ji</ruby>を書く\n", "00:01.000 --> 00:02.000\n漢字を書く"),
    # WebVTT's hours are two digits or more (a week-long live stream's captions); such cues were no cues.
    ("WEBVTT\n\n100:00:01.000 --> 100:00:02.500\nstill live\n", "100:00:01.000 --> 100:00:02.500\nstill live"),
    # A less-than sign in a SubRip line is text where a tag is markup.
    ("1\n00:00:01,000 --> 00:00:02,000\n<i>x < y and z > w</i>\n", "00:00:01,000 --> 00:00:02,000\nx < y and z > w"),
    # A SubRip cue's text after a blank line, or a line of spaces, is still its text, as players
    # (FFmpeg's, so mpv's) show it: it had been dropped as a block without a timing line.
    ("1\n00:00:01,000 --> 00:00:02,000\nFirst line\n\nsecond line\n\n2\n00:00:03,000 --> 00:00:04,000\nNext\n",
     "00:00:01,000 --> 00:00:02,000\nFirst line\nsecond line\n\n00:00:03,000 --> 00:00:04,000\nNext"),
    ("1\r\n00:00:01,000 --> 00:00:02,000\r\nFirst line\r\n  \r\nsecond line\r\n2\r\n00:00:03,000 --> 00:00:04,000\r\nNext\r\n",
     "00:00:01,000 --> 00:00:02,000\nFirst line\nsecond line\n\n00:00:03,000 --> 00:00:04,000\nNext"),
    # ... but not the next cue's number, a blank line between it and its timing line (FFmpeg drops a
    # number line the next timing line follows, blank lines or none between): it had read as a word.
    ("1\n00:00:01,000 --> 00:00:02,000\nHello\n\n2\n\n\n00:00:03,000 --> 00:00:04,000\nWorld\n",
     "00:00:01,000 --> 00:00:02,000\nHello\n\n00:00:03,000 --> 00:00:04,000\nWorld"),
    # ... nor one last in the cue's own block, the next timing line after a blank line (with no number).
    ("1\n00:00:01,000 --> 00:00:02,000\nHello\n5\n\n00:00:03,000 --> 00:00:04,000\nWorld\n",
     "00:00:01,000 --> 00:00:02,000\nHello\n\n00:00:03,000 --> 00:00:04,000\nWorld"),
    # ... but a number line with the next cue's own number between it and the timing line is text,
    # as in FFmpeg (the later number line is the one cached, the earlier one goes to the cue's text).
    ("1\n00:00:01,000 --> 00:00:02,000\nHello\n\n5\n\n6\n00:00:03,000 --> 00:00:04,000\nWorld\n",
     "00:00:01,000 --> 00:00:02,000\nHello\n5\n\n00:00:03,000 --> 00:00:04,000\nWorld"),
    ("1\n00:00:01,000 --> 00:00:02,000\nHello\n5\n\n6\n00:00:03,000 --> 00:00:04,000\nWorld\n",
     "00:00:01,000 --> 00:00:02,000\nHello\n5\n\n00:00:03,000 --> 00:00:04,000\nWorld"),
    # ... nor a malformed cue's, nor what comes before the first cue.
    ("0\nsubtitles by someone\n\n1\n00:00:01,000 --> 00:00:02,000\nHello\n\n2\n00:00:03,000 -> 00:00:04,000\nlost\n",
     "00:00:01,000 --> 00:00:02,000\nHello"),
    # In WebVTT a blank line ends a cue, by the spec and in browsers' parsers: what follows is no cue's.
    ("WEBVTT\n\n00:01.000 --> 00:02.000\nFirst line\n\nsecond line\n\n00:03.000 --> 00:04.000\nNext\n",
     "00:01.000 --> 00:02.000\nFirst line\n\n00:03.000 --> 00:04.000\nNext"),
], ids=["position-tags", "no-cues", "arrow-in-text", "number-without-blank-line", "ruby", "hundred-hours", "less-than",
        "subrip-blank-line-in-a-cue", "subrip-line-of-spaces-in-a-cue", "subrip-number-apart-from-its-timing",
        "subrip-number-last-in-its-cues-block", "subrip-number-apart-before-a-numbered-cue",
        "subrip-number-last-before-a-numbered-cue",
        "subrip-malformed-cue", "webvtt-blank-line-ends-a-cue"])
def test_a_cue_reads_as_a_viewer_sees_it(source, shown):
    assert subtitles_to_text(source) == shown


@pytest.mark.parametrize("name", ["srt_sintel_subtitles_en.srt", "vtt_youtube_dl_rolling_captions.vtt"])
def test_a_sync_indexes_subtitle_files(app, docs, name):
    (docs / name).write_bytes((DOCS / name).read_bytes())
    result = run_sync(app.pipeline, list(app.config.roots))
    assert (result.done, result.failed, dict(result.other_types)) == (1, 0, {}), result.warnings
