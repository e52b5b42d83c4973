"""The CLI as a user runs it (in this process, through cli.main): real files, the real model."""

import json

import pytest
from conftest import write


@pytest.fixture
def run(run_cli, tmp_path, model_dir, docs):
    def run(*args, env=None, cwd=None, input_text=""):
        full_env = {"BASE_DIRS": None, "MODEL_NAME": None, "MODEL_PATH": str(model_dir), "BASE_DIR": str(docs),
                    "DB_PATH": str(tmp_path / "i.db"), **(env or {})}
        return run_cli(*args, env=full_env, cwd=cwd or docs, stdin=input_text)

    return run


def test_ingest_then_query_returns_hits_with_every_field(run, docs):
    write(docs / "cats.md", "# Cats\n\nCats eat fish and sleep most of the day.")
    write(docs / "rockets.md", "# Rockets\n\nRocket engines burn liquid oxygen.")
    assert run("ingest", ".").returncode == 0
    done = run("query", "what do cats eat", "--json", "--top-k", "3")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    top = payload["results"][0]
    assert top["source"] == str(docs / "cats.md")
    assert {"source", "chunkIndex", "text", "score", "distance", "parentId"} <= set(top)
    assert payload["parents"][top["parentId"]].startswith("Cats eat fish") or "Cats eat fish" in payload["parents"][top["parentId"]]


@pytest.mark.slow
def test_a_failed_file_makes_ingest_exit_1_with_a_warning_and_the_rest_indexed(run, docs):
    write(docs / "good.md", "# Good\n\nGood text.")
    (docs / "broken.docx").write_bytes(b"not a zip at all")
    write(docs / "notes.pages", "Not a supported type.")
    done = run("ingest", str(docs))
    assert done.returncode == 1
    assert "warn:" in done.stderr and "broken.docx" in done.stderr  # the summary alone is the output
    assert done.stdout.startswith("2 files: 1 ingested") and "warn" not in done.stdout
    assert "left out, not a supported type: 1 .pages" in done.stdout
    assert json.loads(run("status", "--json").stdout)["sourceCount"] == 1


def test_a_human_query_shows_the_breadcrumb_once_and_the_text_without_markdown_escapes(app, docs):
    """The human formatting of real results, from the formatter itself."""
    from minirag.ingest.sync import run_sync
    from minirag.results import payload, query_text

    write(docs / "guide.md", "# Guide\n\n## Install\n\nSet toml\\_str and \\*s\\* before the otters arrive.")
    write(docs / "regex.txt", "Match C:\\temp\\(x) with \\d+\\.\\d+ in plain text about herons.")
    run_sync(app.pipeline, list(app.config.roots))
    lines = query_text(payload(app.query("otters arrive", top_k=1))).splitlines()
    assert lines[1].strip() == "Guide > Install"
    assert lines[2].strip() == "Set toml_str and *s* before the otters arrive."
    scope = str(docs / "else where")
    (docs / "else where").mkdir()  # a folder holding nothing (a path naming nothing on disk is refused)
    scoped = query_text(payload(app.query("otters arrive", scope=scope)), scope)
    assert scoped.startswith(f"no results under {scope}")
    assert f"minirag list --scope '{scope}'" in scoped  # pasteable: quoted for the shell
    shown = query_text(payload(app.query("herons plain text", top_k=1)))
    assert "C:\\temp\\(x) with \\d+\\.\\d+" in shown  # a .txt file's backslashes are its own


def test_a_human_query_shows_the_breadcrumb_once_where_its_heading_marks_code_the_title_does_not(app, docs):
    """Sphinx's `:mod:` title is plain as the document's title and code in its heading, which the
    breadcrumb names in the title's place: the breadcrumb was shown twice, as the heading line and
    again as the snippet's first words."""
    from minirag.ingest.sync import run_sync
    from minirag.results import payload, query_text

    write(docs / "autodoc.rst", ":mod:`sphinx.ext.autodoc` -- Include documentation\n"
          "===================================================\n\nConfiguration\n-------------\n\n"
          "Set autodoc_default_options before the otters arrive.\n")
    run_sync(app.pipeline, list(app.config.roots))
    result = payload(app.query("autodoc_default_options otters", top_k=1))
    assert result["results"][0]["title"] == "sphinx.ext.autodoc -- Include documentation"
    lines = query_text(result).splitlines()
    assert lines[1].strip() == "`sphinx.ext.autodoc` -- Include documentation > Configuration", lines
    assert lines[2].strip() == "Set autodoc_default_options before the otters arrive.", lines


def test_a_human_query_shows_the_stretch_of_a_long_chunk_that_holds_the_rare_query_word(make_app, docs):
    """The snippet had been a chunk's first 300 characters: a table's headings, never the row asked for."""
    from minirag.ingest.sync import run_sync
    from minirag.results import payload, query_text

    app = make_app({"CHUNK_TOKEN_BUDGET": "240"})

    rows = "\n".join(f"| {n}.04 | {'Jammy Jellyfish' if n == 22 else 'Codename'} | released for desktops and "
                     "servers alike |" for n in range(4, 40))
    write(docs / "releases.md", f"# Releases\n\n| version | codename | release |\n|-|-|-|\n{rows}\n")
    run_sync(app.pipeline, list(app.config.roots))
    query = "which release was codenamed Jammy?"
    result = payload(app.query(query, top_k=10))
    rank = next(n for n, hit in enumerate(result["results"]) if "Jammy" in hit["text"])
    assert result["results"][rank]["text"].index("Jammy") > 320  # past the 300 characters a snippet shows
    result["results"] = result["results"][rank : rank + 1]
    weights = app.term_weights(query)
    assert weights["jammi"] > 3 * weights["releas"] > 0
    shown = query_text(result, query=query, weights=weights).splitlines()
    assert "Jammy Jellyfish" in shown[2] and shown[2].strip().startswith("…"), shown
    assert "Jammy" not in query_text(result).splitlines()[2]  # the opening, as it was


def test_human_status_reads_as_words_not_python_values(app, docs):
    from minirag.cli_output import fmt_dict

    lines = dict(line.split(": ", 1) for line in fmt_dict(app.status()).splitlines())
    assert lines["roots"] == str(docs) and lines["readOnly"] == "no"
    assert not any(value in ("None", "False", "True") or value.startswith(("[", "{")) for value in lines.values())
    assert "name=" in lines["collections"] and "description=" not in lines["collections"]  # none given: not shown


def test_status_reports_a_broken_configuration_and_exits_0(run):
    done = run("status", "--json", env={"BASE_DIRS": "not json"})
    assert done.returncode == 0
    payload = json.loads(done.stdout)
    assert "BASE_DIRS" in payload["configError"] and "version" in payload


def test_other_commands_exit_1_on_a_broken_configuration(run):
    done = run("query", "x", env={"RAG_HYBRID_WEIGHT": "2"})
    assert done.returncode == 1 and "RAG_HYBRID_WEIGHT" in done.stderr


@pytest.mark.parametrize("value", ["0", "-3", "101", "99999999999999999999999"])
def test_a_top_k_outside_what_help_promises_is_refused_naming_the_option(run, value):
    """`--top-k 101` returned 100 results although --help says 1-100; `--top-k 0` said `topK`."""
    done = run("query", "anything", "--top-k", value)
    assert done.returncode == 2 and done.stdout == "", done
    assert done.stderr == (f"minirag: error: argument --top-k: must be a whole number from 1 to 100, got {value!r} "
                           "(see `minirag query --help`)\n")


def test_read_and_delete_take_relative_paths(run, docs):
    write(docs / "notes" / "a.md", "# A\n\nAlpha text about apples.")
    run("ingest", "notes")
    read = run("read", "notes/a.md", "--json")
    assert read.returncode == 0 and "Alpha text" in json.loads(read.stdout)["text"]
    assert run("delete", "notes/a.md").returncode == 0
    assert json.loads(run("status", "--json").stdout)["sourceCount"] == 0


def test_a_data_sources_id_read_as_a_path_is_told_to_give_it_as_source(run, docs):
    """`minirag query` shows a data source as `notes/m1 #0`; `minirag read notes/m1` said only
    `not indexed: /docs/notes/m1; no such file`."""
    assert run("ingest-data", "--source", "notes/m1", input_text="# Meeting\n\nThe blue kettle.").returncode == 0
    for argv in (["read", "notes/m1"], ["delete", "notes/m1"], ["read-neighbors", "--file-path", "notes/m1",
                                                                 "--chunk-index", "0"]):
        done = run(*argv)
        assert (done.returncode, done.stderr) == (1, "minirag: error: 'notes/m1' is the id of a data source, not a "
                                                     "file: give it as source (`--source notes/m1` on the command "
                                                     "line)\n"), argv
    assert "The blue kettle." in run("read", "--source", "notes/m1").stdout


def test_a_read_in_a_subfolder_of_an_indexed_folder_names_the_index_above_it(run, docs):
    """`cd docs/sub && minirag query x` said `no index at docs/sub/.minirag/index.db; run minirag
    sync first`, which would index the subfolder again into a second file, embedding it all anew."""
    write(docs / "sub" / "a.md", "# Apples\n\nApples grow on trees in the orchard.")
    write(docs / "b.md", "# Bananas\n\nBananas grow in bunches.")
    alone = {"BASE_DIR": None, "DB_PATH": None}
    assert run("sync", env=alone, cwd=docs).returncode == 0
    done = run("query", "apples", env=alone, cwd=docs / "sub")
    assert done.returncode == 1 and done.stderr == (
        f"minirag: error: no index at {docs / 'sub' / '.minirag' / 'index.db'}; run `minirag sync` (or the "
        f"sync_start tool) first, or check DB_PATH; the index of {docs}, a folder above, holds this one: "
        f"--base-dir {docs} (and --scope . for this folder alone)\n"), done.stderr
    hinted = run("query", "apples", "--base-dir", docs, "--scope", ".", "--json", env=alone, cwd=docs / "sub")
    assert [hit["source"] for hit in json.loads(hinted.stdout)["results"]] == [str(docs / "sub" / "a.md")]
    assert not (docs / "sub" / ".minirag").exists()


def test_a_path_outside_the_roots_is_refused(run, tmp_path):
    outside = write(tmp_path / "outside.md", "# Out\n\nNope.")
    done = run("ingest", str(outside))
    assert done.returncode == 1 and "outside configured document roots" in done.stderr


def test_stdout_of_a_command_is_only_its_output(run, docs):
    write(docs / "a.md", "# A\n\nApples.")
    done = run("ingest", ".", "--json")
    json.loads(done.stdout)  # nothing but the JSON document


def test_a_relative_scope_is_resolved_against_the_current_directory(run, docs):
    write(docs / "pets" / "cats.md", "# Cats\n\nCats eat fish and sleep most of the day.")
    write(docs / "space" / "rockets.md", "# Rockets\n\nRocket engines burn liquid oxygen and fish oil.")
    assert run("ingest", ".").returncode == 0
    done = run("query", "fish", "--scope", "pets", "--json")
    assert done.returncode == 0, done.stderr
    assert [hit["source"] for hit in json.loads(done.stdout)["results"]] == [str(docs / "pets" / "cats.md")]
    listed = json.loads(run("list", "--scope", "space", "--json", cwd=docs).stdout)["files"]
    assert [f["source"] for f in listed] == [str(docs / "space" / "rockets.md")]


def test_a_scope_naming_no_path_on_disk_is_kept_as_a_source_id_prefix(run, docs):
    assert run("ingest-data", "--source", "notes/fish", input_text="Fish swim.").returncode == 0
    done = run("query", "fish", "--scope", "notes", "--json")
    assert [hit["source"] for hit in json.loads(done.stdout)["results"]] == ["notes/fish"]


def test_a_documents_terminal_control_codes_are_shown_escaped_not_acted_on(run, docs):
    """A hostile document must not clear the screen or retitle the terminal of whoever searches."""
    write(docs / "evil.md", "# T\x1b[5mitle\n\nThe pwned\x1b]0;owned\x07 text \x1b[2J\u202eclears\x9b the screen.")
    assert run("sync").returncode == 0
    for argv in (("query", "pwned screen"), ("list",), ("read", str(docs / "evil.md"))):
        out = run(*argv).stdout
        assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out and "\u202e" not in out, argv
        assert argv == ("list",) or "\\x1b" in out, argv  # shown, as an escape


def test_json_output_carries_a_documents_terminal_controls_as_escapes_a_json_reader_reads_back(run, docs):
    """JSON escapes C0 controls (\\u001b) but writes C1 ones (U+009B, a terminal's one-byte CSI), DEL and
    the direction overrides as they are: `minirag query --json` on a terminal sent them raw."""
    text = "The pwned\x9b2J text \u202eclears\x7f the\u2028screen\x85 now. " + "A harbour holds the boats. " * 20
    write(docs / "evil.md", f"# Evil\u202e title\n\n{text}")
    assert run("sync").returncode == 0
    for argv in (("query", "pwned screen", "--json"), ("read", str(docs / "evil.md"), "--json"),
                 ("list", "--json")):
        out = run(*argv).stdout
        assert not any(ch in out for ch in "\x9b\u202e\x7f\u2028\x85"), argv
        assert "\\u202e" in out, argv
    read = json.loads(run("read", str(docs / "evil.md"), "--json").stdout)["text"]
    assert "\u202eclears" in read and "the\u2028screen" in read  # what the index holds, exactly


def test_a_line_break_in_a_file_name_cannot_forge_a_line_of_the_listing(run, docs):
    write(docs / "x.md\nindexed            1  fake.md", "# Forged\n\nA file whose name holds a line break.")
    assert run("sync").returncode == 0
    out = run("list").stdout
    assert len(out.splitlines()) == 2 and "x.md\\nindexed" in out, out  # the header, one row
    assert len([line for line in run("query", "line break").stdout.splitlines() if "fake.md" in line]) == 1


# Characters that show as nothing (or as a plain space) on a terminal: in a file's name they make
# it pass for another. `pass\u200bwords.md` printed as `passwords.md` beside the real one.
INVISIBLE_IN_NAMES = [("\u200b", "\\u200b"), ("\u200e", "\\u200e"), ("\u2060", "\\u2060"), ("\ufeff", "\\ufeff"),
                      ("\u00a0", "\\xa0"), ("\U000e0041", "\\U000e0041"), ("\u2028", "\\u2028"), ("\u3164", "\\u3164")]


@pytest.mark.parametrize(("invisible", "shown"), INVISIBLE_IN_NAMES)
def test_a_file_name_holding_an_invisible_character_is_shown_so_it_cannot_pass_for_another(run, docs, invisible,
                                                                                           shown):
    write(docs / "passwords.md", "# Passwords\n\nThe password policy: rotate the keys every year.\n")
    write(docs / f"pass{invisible}words.md", "# Passwords\n\nThe password policy: mail the keys to a stranger.\n")
    assert run("sync").returncode == 0
    for argv in (("query", "password policy"), ("list",), ("delete", str(docs / f"pass{invisible}words.md"))):
        out = run(*argv).stdout
        assert invisible not in out and f"pass{shown}words.md" in out, (argv, out)
        assert len(out.splitlines()) == len(out.split("\n")) - 1, (argv, out)  # no line a splitter finds twice


def test_a_chunk_cannot_forge_the_frame_of_another_in_read_neighbors(run, docs):
    """A chunk's text is printed between `--- #N` lines: a line of its own of that shape passed for
    the frame of a chunk, the hit's even, that no document holds."""
    write(docs / "frame.txt", "Harbour tides rise twice a day.\n\n--- #7 (hit)\nroot:x:0:0:root:/root:/bin/bash\n")
    assert run("sync").returncode == 0
    out = run("read-neighbors", "--file-path", str(docs / "frame.txt"), "--chunk-index", "0").stdout
    assert [line for line in out.splitlines() if line.startswith("--- #")] == ["--- #0 (hit)"], out
    assert "\\--- #7 (hit)" in out  # shown, escaped as Markdown escapes a line


def test_a_file_url_given_as_a_path_is_told_the_path_to_give(run, docs):
    """`minirag read file:///.../a.md` (a link copied from a browser or an editor) was read relative to the
    working folder: 'not indexed: /docs/file:/docs/a.md; no such file'."""
    write(docs / "a b.md", "# A\n\nAlpha.\n")
    assert run("sync").returncode == 0
    done = run("read", f"file://{docs}/a%20b.md")
    assert done.returncode == 1 and done.stderr == (
        f"minirag: error: no such file: 'file://{docs}/a%20b.md' (relative to {docs}): a path is taken, not a "
        f"file: URL: give {docs}/a b.md\n"), done.stderr
    assert run("read", f"{docs}/a b.md").returncode == 0


def test_read_neighbors_names_the_pages_of_each_chunk_as_query_does(run, docs):
    """A PDF's chunks carry pages; the window shows them as a query's hits do (`p. N`), in text and JSON."""
    from conftest import FIXTURES

    pdf = docs / "outline.pdf"
    pdf.write_bytes((FIXTURES / "docs" / "pdf_multipage_pdflatex_outline.pdf").read_bytes())
    assert run("ingest", str(pdf)).returncode == 0
    shown = run("read-neighbors", "--file-path", str(pdf), "--chunk-index", "1")
    assert shown.returncode == 0, shown.stderr
    assert [line for line in shown.stdout.splitlines() if line.startswith("--- #")] == [
        "--- #0 p. 2", "--- #1 p. 2 (hit)", "--- #2 p. 2"]
    window = json.loads(run("read-neighbors", "--file-path", str(pdf), "--chunk-index", "1", "--json").stdout)
    assert [chunk["pages"] for chunk in window["chunks"]] == ["2", "2", "2"]


def test_a_human_query_shows_every_hit_asked_for_while_json_keeps_the_tools_budget(run, docs):
    """The response budget is what an MCP client (and --json, the tool's object) may receive; the
    text output shows a 300-character snippet per hit and no sections, so it is not cut by it."""
    for n in range(12):
        write(docs / f"otters-{n}.md", f"# Otters {n}\n\n" + f"Otter fact {n}: sea otters float and groom. " * 25)
    assert run("ingest", ".").returncode == 0
    small = {"MINIRAG_MAX_RESPONSE_TOKENS": "1000"}
    shown = run("query", "sea otters", "--top-k", "12", env=small)
    assert shown.returncode == 0, shown.stderr
    assert sum(line[:1].isdigit() for line in shown.stdout.splitlines()) == 12 and "left out" not in shown.stderr
    shaped = json.loads(run("query", "sea otters", "--top-k", "12", "--json", env=small).stdout)
    assert shaped["truncated"]["hitsLeftOut"] > 0 and len(shaped["results"]) < 12


def test_delete_says_what_it_removed_in_words(run, docs):
    write(docs / "cats.md", "# Cats\n\nCats sleep.")
    assert run("ingest", "cats.md").returncode == 0
    done = run("delete", "cats.md")
    assert (done.returncode, done.stdout) == (0, f"deleted {docs / 'cats.md'} (1 chunk)\n")


def test_the_sync_summary_counts_a_version_suffix_as_none_while_json_keeps_each_suffix(run, docs):
    for name in ("Apache-2.0", "LGPL-2.1", "Makefile", "notes.pages"):
        write(docs / name, "Not a supported type.")
    done = run("sync")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "left out, not a supported type: 3 without a suffix, 1 .pages"
    again = json.loads(run("sync", "--json").stdout)["otherTypes"]
    assert again == {"": 1, ".0": 1, ".1": 1, ".pages": 1}  # the suffixes as found, for a program to judge
    assert run("list").stdout.splitlines()[-1] == "left out, not a supported type: 3 without a suffix, 1 .pages"


def test_list_gives_a_failed_files_reason_without_its_path_again(run, docs):
    """`failed 0 /d/x.docx  (/d/x.docx: not a valid .docx file ...)`: the row names the file already."""
    broken = docs / "broken.docx"
    broken.write_bytes(b"not a zip at all")
    assert run("sync").returncode == 1
    row = next(line for line in run("list").stdout.splitlines() if "broken.docx" in line)
    assert row.split()[:2] == ["failed", "0"] and row.count(str(broken)) == 1, row
    assert f"{broken}  -- not a valid .docx file (corrupt" in row, row
    stored = next(f for f in json.loads(run("list", "--json").stdout)["files"] if f["source"] == str(broken))
    assert stored["reason"].startswith(f"{broken}: not a valid .docx file")  # JSON keeps it as stored


def test_delete_of_a_folder_says_delete_takes_one_file(run, docs):
    write(docs / "notes" / "a.md", "# A\n\nAlpha.")
    assert run("sync").returncode == 0
    for argv in (("delete", "notes"), ("delete", str(docs / "notes"), "--json")):
        done = run(*argv)
        assert done.returncode == 1 and len(done.stderr.splitlines()) == 1, done.stderr
        assert "not indexed" not in done.stderr and "is a folder; delete removes one file" in done.stderr
        assert "minirag sync" in done.stderr
    assert json.loads(done.stdout)["error"].startswith(f"{docs / 'notes'} is a folder")
    assert json.loads(run("status", "--json").stdout)["sourceCount"] == 1


@pytest.mark.parametrize("planted", [".minirag", ".minirag/index.db", ".minirag/index.db-wal",
                                     ".minirag/index.db-shm", ".minirag/index.db.sync.lock"])
def test_a_cloned_folder_cannot_point_the_index_it_holds_at_another_file(run, docs, tmp_path, planted):
    # A repository can hold `.minirag/index.db` (or its -wal) as a link to ~/.ssh/authorized_keys:
    # the index's pages hold its documents' text verbatim, a line of a key among them. Where the
    # index is minirag's own place inside the root, no link there is followed; DB_PATH is the user's.
    write(docs / "a.md", "# Keys\n\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIattacker attacker@example\n")
    victim = tmp_path / "home" / ".ssh"
    victim.mkdir(parents=True)
    link = docs / planted
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(victim if planted == ".minirag" else victim / "authorized_keys")
    for command in (("ingest", "."), ("query", "keys")):
        done = run(*command, env={"DB_PATH": None})
        assert done.returncode != 0 and done.stderr.count("\n") == 1, done.stderr
        assert f"{link} is a symbolic link" in done.stderr, done.stderr
    assert f"{link} is a symbolic link" in run("status", env={"DB_PATH": None}).stdout
    assert list(victim.iterdir()) == []
    if planted == ".minirag":  # named as DB_PATH, the link is the user's own choice
        assert run("ingest", ".", env={"DB_PATH": f"{link}/"}).returncode == 0
        assert (victim / "index.db").is_file()


@pytest.mark.parametrize("side", ["-wal", "-shm"])
def test_a_link_beside_an_index_db_path_names_is_said_in_its_refusal(run, docs, tmp_path, side):
    """SQLite opens an index's -wal and -shm without following a link, so a link there (to a user's
    file) is never written through; the refusal said only 'unable to open database file; check that
    its folder exists and that this user may read it', which sent the user looking at permissions."""
    write(docs / "a.md", "# Keys\n\nA note.\n")
    index = tmp_path / "named" / "index.db"
    assert run("ingest", ".", env={"DB_PATH": str(index)}).returncode == 0
    victim = write(tmp_path / "home" / "notes.txt", "mine\n")
    link = index.with_name(index.name + side)
    link.unlink(missing_ok=True)
    link.symlink_to(victim)
    for command in (("ingest", "."), ("query", "keys")):
        done = run(*command, env={"DB_PATH": str(index)})
        assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
        assert f"{link} is a symbolic link" in done.stderr, done.stderr
    assert victim.read_text() == "mine\n"


def test_delete_removes_a_file_of_a_root_no_longer_configured_by_its_path(run, docs, tmp_path):
    """docs/operations.md: a root removed from the configuration is not served, and `delete` still
    removes one of its files by hand. `minirag delete PATH` refused it, 'path outside configured
    document roots', although the index held it; only `--source PATH` worked."""
    other = write(tmp_path / "other" / "old.md", "# Old\n\nThe old root's page.")
    both = {"BASE_DIRS": json.dumps([str(docs), str(other.parent)]), "BASE_DIR": None}
    assert run("ingest", str(other), env=both).returncode == 0
    done = run("delete", str(other))
    assert (done.returncode, done.stdout, done.stderr) == (0, f"deleted {other} (1 chunk)\n", "")
    assert json.loads(run("status", "--json").stdout)["sourceCount"] == 0
    never = run("delete", str(tmp_path / "other" / "never.md"))  # not indexed: still the containment refusal
    assert never.returncode == 1 and "outside configured document roots" in never.stderr
