"""An Obsidian vault's notes, read as Obsidian's reading view shows them: a wikilink as its shown text,
an embed as what it names, comments and block ids as nothing, and a note's aliases and tags as the
properties it shows above its text."""

import pytest
from conftest import write
from helpers.growth import grows_linearly

from minirag.ingest.convert import convert_document
from minirag.ingest.obsidian_markup import read_obsidian
from minirag.results import payload


def _converted(tmp_path, name: str, text: str) -> str:
    path = write(tmp_path / "vault" / name, text)
    return convert_document(path.read_bytes(), path.suffix, path.name).markdown


def test_wikilinks_read_as_the_text_obsidian_shows(tmp_path):
    note = ("Owner: [[Mara Lindqvist]], sponsor of [[Project Alpha|Falcon]].\n"
            "Decided in [[2026-11-04 Alpha Kickoff#Decisions]] (see [[Project Alpha#^dec-kafka]]"
            " and [[#Risks]]).\n"
            "| who | link |\n|---|---|\n| Jonas | [[Jonas Becker\\|Jonas]] |\n")
    assert _converted(tmp_path, "Alpha.md", note) == (
        "Owner: Mara Lindqvist, sponsor of Falcon.\n"
        "Decided in 2026-11-04 Alpha Kickoff > Decisions (see Project Alpha and Risks).\n"
        "| who | link |\n|---|---|\n| Jonas | Jonas |\n")


def test_embeds_read_as_what_they_name(tmp_path):
    note = "![[Meeting template]]\n\nDiagram: ![[diagram.png|300]] and ![[Kickoff#Decisions]].\n"
    assert _converted(tmp_path, "Embeds.md", note) == (
        "Meeting template\n\nDiagram: diagram.png and Kickoff > Decisions.\n")


def test_comments_and_block_ids_are_not_text(tmp_path):
    note = ("Mara leads the platform group. ^role\n\n"
            "%% salary: 92k, confidential %% Visible %% again hidden %% tail. 100%% of %%i %%b%% kept.\n\n"
            "%%\nGehaltsgespräch: vertraulich.\n```\ncompressed drawing\n```\n%%\n\n"
            "- [ ] Write the runbook ^task-1\n\n| a |\n|---|\n| b |\n\n^table-id\n")
    assert _converted(tmp_path, "Mara.md", note) == (
        "Mara leads the platform group.\n\n Visible  tail. 100%% of %%i %%b%% kept.\n\n\n- [ ] Write the runbook\n\n| a |\n|---|\n| b |\n\n\n")


def test_code_keeps_what_looks_like_obsidian_markup():
    source = "```\n[[Note]] %% x %% ^id\n```\n\nUse `%% y %%` and `[[z]]` here.\n"
    assert read_obsidian(source) == source


def test_a_comment_that_is_never_closed_hides_nothing():
    for source in ("Intro.\n%%\nStill shown.\n\nThe end.\n", "printf prints %% once.\n", "a %% b %% c %%\n"):
        assert read_obsidian(source) == source.replace("%% b %%", "")


def test_a_percent_pair_written_against_a_word_is_text():
    """`%%` marks a comment where it stands apart; printf's `100%%` or a batch file's `for %%i in` is
    text a reader of the page sees (as GitHub or MkDocs show it)."""
    for source in ("Print 100%% done, then 50%% more.\n", "for %%i in (*.txt) do echo %%i\n"):
        assert read_obsidian(source) == source


def test_a_markdown_link_with_bracketed_text_is_no_wikilink():
    assert read_obsidian("See [[2]](library/os.html#x).\n") == "See [[2]](library/os.html#x).\n"


def test_obsidian_callouts_read_as_their_label_and_title(tmp_path):
    note = ("> [!warning]- Vendor lock-in\n> Free tier ends.\n\n> [!danger] Impact\n> Data exposed.\n\n"
            "> [!question]+\n> Open point.\n\n> [!custom] Kept\n")
    assert _converted(tmp_path, "Callouts.md", note) == (
        "> Warning: Vendor lock-in\n> Free tier ends.\n\n> Danger: Impact\n> Data exposed.\n\n"
        "> Question:\n> Open point.\n\n> [!custom] Kept\n")


def test_aliases_and_tags_are_read_as_the_properties_a_note_shows(tmp_path):
    note = ("---\naliases: [Falcon, Alpha]\ntags:\n  - project/alpha\n  - status/active\ncreated: 2026-09-01\n---\n"
            "# Project Alpha\n\nText.\n")
    converted = _converted(tmp_path, "Project Alpha.md", note)
    assert converted.endswith("---\n# Project Alpha\naliases: Falcon, Alpha\ntags: project/alpha, status/active\n\nText.\n")
    # Hugo's aliases are old URLs, not names.
    assert "aliases:" not in _converted(tmp_path, "post.md", "---\naliases: [/old/path/]\n---\nBody.\n").split("---")[-1]


def test_a_vault_finds_a_note_by_its_alias_and_shows_clean_passages(app, docs):
    write(docs / "People" / "Henrik Solberg.md",
          "---\naliases: [CTO]\ntags: [person]\n---\n# Henrik Solberg\n\nHenrik approves budgets. ^budget\n")
    write(docs / "People" / "Jonas Becker.md",
          "# Jonas Becker\n\nJonas runs the [[PostgreSQL clusters|databases]] with [[Henrik Solberg]].\n\n"
          "%% Salary talk: asked for 92k. %%\n")
    write(docs / "Other.md", "# Other\n\nNothing about that here at all.\n")
    app.ingest_paths([str(docs)])
    hits = payload(app.query("CTO", top_k=3))["results"]
    assert hits[0]["source"].endswith("Henrik Solberg.md")
    text = payload(app.query("Jonas databases", top_k=1))["results"][0]["text"]
    assert "[[" not in text and "databases" in text and "PostgreSQL clusters" not in text and "92k" not in text
    assert not [hit for hit in payload(app.query("salary 92k", top_k=5))["results"] if "92k" in hit["text"]]


@pytest.mark.parametrize("run", ["[[", "![[a", "[[a|", "[[a#", "%%", "%%\n", "x ^", " ^a", "`", "``%%", "==a"])
def test_long_runs_of_obsidian_markers_are_read_in_linear_time(run):
    assert grows_linearly(read_obsidian, lambda repeats: "text\n" + run * repeats + "x")
