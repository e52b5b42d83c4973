"""The stdio transport's checks of a line before the SDK reads it, called on their own (no process)."""

from __future__ import annotations

from helpers.growth import grows_linearly

from minirag.stdio_transport import SDK_INT_DIGITS, number_or_batch_reply


def test_looking_for_a_too_long_number_costs_in_proportion_to_the_line_however_its_digits_run():
    """A line of digit runs each just short of SDK_INT_DIGITS (a message's text full of long numbers)
    was searched from every digit of each run on: a run of n digits cost n*n/2 steps, and a 400 KB
    line of 4,000-digit runs 5 s. Each run is looked at once now."""

    def line(repeats: int) -> str:
        run = "7" * (repeats // 2)  # 500 digits, then 4,000: both short of SDK_INT_DIGITS
        return '{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"text": "' + f"{run} " * 20 + '"}}'

    assert len(line(8_000)) < 20 * SDK_INT_DIGITS + 200
    assert number_or_batch_reply(line(8_000)) is None
    assert grows_linearly(number_or_batch_reply, line)


def test_a_number_one_digit_past_what_the_sdk_reads_is_still_found():
    at_limit = '{"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"n": ' + "9" * SDK_INT_DIGITS + "}}"
    past = '{"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"n": 1' + "9" * SDK_INT_DIGITS + "}}"
    assert number_or_batch_reply(at_limit) is None
    refused = number_or_batch_reply(past)
    assert refused is not None and refused.id == 1 and f"{SDK_INT_DIGITS + 1:,} digits" in refused.error.message


def test_every_character_a_line_splitter_or_a_terminal_acts_on_is_escaped_and_reads_back_the_same():
    """escaped_json over every character of the first two planes: each of the raw class comes out as
    its \\u escape, every other as it went in, and the JSON reads back to the same string."""
    import json

    from minirag.display import escaped_json

    raw = set(range(0x7F, 0xA0)) | {0x2028, 0x2029} | set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A))
    chars = "".join(chr(c) for c in range(0x20, 0x20000) if not 0xD800 <= c < 0xE000)
    written = escaped_json(json.dumps(chars, ensure_ascii=False))
    assert json.loads(written) == chars
    assert not any(ord(ch) in raw for ch in written)
    assert written.count("\\u") == len(raw)  # json.dumps escaped none of them itself


def test_escaping_a_line_full_of_line_separators_costs_in_proportion_to_it():
    from minirag.display import escaped_json

    assert grows_linearly(escaped_json, lambda n: "a\u2028" * n)
