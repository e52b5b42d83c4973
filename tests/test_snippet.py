"""The CLI's snippet of a hit (minirag/snippet.py): the stretch holding the query's words."""

from minirag.snippet import SNIPPET_CHARS, snippet

FILLER = " ".join(f"Row {i} of the table lists nothing special at all here." for i in range(40))
TRAILER = " ".join(f"Trailer {i} holds more filler words." for i in range(30))


def test_without_a_query_or_a_match_the_text_opens_the_snippet():
    text = FILLER + " The printer was set up by Jammy. " + TRAILER
    for query in (None, "", "otters"):
        shown = snippet(text, query)
        assert shown.startswith("Row 0 of the table") and shown.endswith("…")
        assert len(shown) <= SNIPPET_CHARS + 1


def test_words_past_the_opening_are_shown_with_their_context_and_the_cuts_marked():
    text = FILLER + " The printer was set up by Jammy Jellyfish in 2022. " + TRAILER
    shown = snippet(text, "which release was codenamed Jammy?")
    assert shown.startswith("…") and shown.endswith("…")
    assert "set up by Jammy Jellyfish in 2022." in shown
    assert shown.index("Jammy") > 20  # the words before it are kept, for context
    words = set(text.split())
    assert all(word in words for word in shown.strip("…").split()[1:-1])  # no word cut in two
    assert len(shown) <= SNIPPET_CHARS + 2


def test_words_are_matched_as_the_keyword_side_matches_them():
    text = FILLER + " The reports were printed twice. " + TRAILER
    assert "printed twice" in snippet(text, "printing reports")
    chinese = "这是一个很长的中文文本。" * 30 + "在飞书消息中接收构建通知。" + "其他内容在这里继续。" * 30
    shown = snippet(chinese, "消息")
    assert "飞书消息" in shown and shown.startswith("…")


def test_the_opening_is_kept_when_it_holds_the_words_already():
    text = "Jammy Jellyfish opens this text. " + FILLER + " Jammy again, far below. " + TRAILER
    assert snippet(text, "Jammy").startswith("Jammy Jellyfish opens")


def test_a_rare_word_outweighs_headings_every_chunk_repeats():
    table = "| version | codename | release | " + FILLER + " | 22.04 | Jammy Jellyfish | " + TRAILER
    query = "which release was codenamed Jammy?"
    assert "Jammy" not in snippet(table, query)  # counted alike, two headings beat one name
    weights = {"releas": 0.2, "codenam": 0.2, "jammi": 6.0}
    assert "Jammy Jellyfish" in snippet(table, query, weights)


def test_an_opening_that_holds_every_word_is_not_traded_for_a_window_that_starts_on_one():
    text = "Otters. " * 12 + "Jammy Jellyfish is named here. " + FILLER
    assert snippet(text, "Jammy", {"jammi": 5.0}).startswith("Otters. Otters.")


def test_words_near_the_end_get_a_full_window_before_them():
    text = FILLER + " The printer was set up by Jammy."
    shown = snippet(text, "Jammy")
    assert shown.endswith("set up by Jammy.") and shown.startswith("…")
    assert len(shown) > SNIPPET_CHARS - 20


def test_words_with_combining_marks_and_unspaced_characters_with_marks_are_found():
    """Python's \\w leaves combining marks out, so `पुस्तकालय` was three words that never matched;
    Thai pairs characters with the marks written on them, as the keyword side does."""
    hindi = "यह एक लंबा पाठ है। " * 40 + "राष्ट्रीय पुस्तकालय में किताबें हैं। " + "और भी पाठ यहाँ है। " * 30
    assert "राष्ट्रीय पुस्तकालय में" in snippet(hindi, "पुस्तकालय")
    arabic = "هذا نص طويل جدا. " * 40 + "المَكْتَبَةُ الوَطَنِيَّةُ كبيرة. " + "نص آخر هنا. " * 30
    assert "المَكْتَبَةُ الوَطَنِيَّةُ" in snippet(arabic, "المَكْتَبَةُ")
    thai = "นี่คือข้อความยาวมาก " * 40 + "ห้องสมุดแห่งชาติที่นี่ " + "ข้อความอื่นๆ " * 30
    assert "ห้องสมุดแห่งชาติ" in snippet(thai, "ห้องสมุด")


def test_a_text_matched_everywhere_is_read_in_linear_time():
    from helpers.growth import grows_linearly

    for word in ("กขคง", "ab cd "):
        assert grows_linearly(lambda text, word=word: snippet(text, word.strip()), lambda n, word=word: word * n)


def test_a_word_longer_than_the_window_is_cut_at_the_window_not_at_half_of_it():
    text = "x" * 10_000 + " tail"
    assert snippet(text) == "x" * SNIPPET_CHARS + "…"
