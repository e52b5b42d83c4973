"""Ignore rules on a real repository layout: `.gitignore` files as git reads them (checked against
`git check-ignore` itself), `.minignore`, include/exclude globs, `list --ignored`, and a watcher
that follows a changed ignore file."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from types import SimpleNamespace

import pytest
from conftest import write
from test_watch import eventually

from minirag.cli import main
from minirag.config import ConfigError
from minirag.errors import InvalidArgument
from minirag.ingest.ignore import IgnoreRules
from minirag.ingest.sync import run_sync

GIT = shutil.which("git")

# A small project as people keep them: build output, vendored code, generated docs, logs, a
# nested .gitignore that re-includes one file, and a folder pattern that only matches folders.
LAYOUT = {
    ".gitignore": "build/\n/vendor/\n*.log.md\ngenerated\n!generated/keep.md\nnotes/*.draft.md\n",
    "README.md": "# Project\n\nThe readme.",
    "docs/guide.md": "# Guide\n\nHow to use the project.",
    "docs/.gitignore": "scratch.md\n!important.log.md\nout/\n",
    "docs/scratch.md": "# Scratch\n\nScribbles.",
    "docs/important.log.md": "# Important log\n\nKept by the nested negation.",
    "docs/out/page.md": "# Out\n\nA rendered page.",
    "docs/build/x.md": "# Nested build\n\nAlso build output.",
    "build/api.md": "# API\n\nGenerated API docs.",
    "vendor/lib/README.md": "# Vendored\n\nSomeone else's readme.",
    "src/vendor/own.md": "# Own vendor\n\nNot the top-level vendor folder.",
    "run.log.md": "# Log\n\nA log.",
    "generated/keep.md": "# Keep\n\nUnder an ignored folder: git cannot re-include it.",
    "notes/a.draft.md": "# Draft\n\nNot yet.",
    "notes/a.md": "# Note\n\nA finished note.",
    "out/page.md": "# Top out\n\nThe nested out/ rule does not reach here.",
}


@pytest.fixture
def repo(docs):
    for name, text in LAYOUT.items():
        write(docs / name, text)
    if GIT:
        subprocess.run([GIT, "init", "-q", str(docs)], check=True)
    else:
        (docs / ".git").mkdir()
    return docs


def _indexable(repo) -> set[str]:
    return {n for n in LAYOUT if not n.rsplit("/", 1)[-1].startswith(".")}


@pytest.mark.skipif(GIT is None, reason="needs git to compare with")
def test_every_file_of_a_repository_is_ignored_exactly_when_git_ignores_it(repo):
    rules = IgnoreRules([repo])
    names = sorted(_indexable(repo))
    checked = subprocess.run([GIT, "-C", str(repo), "check-ignore", "--no-index", *names],
                             capture_output=True, text=True)
    by_git = set(checked.stdout.split())
    ours = {n for n in names if rules.reason(str(repo / n)) is not None}
    assert ours == by_git
    assert by_git == {"docs/scratch.md", "docs/out/page.md", "docs/build/x.md", "build/api.md",
                      "vendor/lib/README.md", "run.log.md", "generated/keep.md", "notes/a.draft.md"}


def test_sync_leaves_ignored_files_out_and_drops_those_a_new_rule_names(app, repo):
    result = run_sync(app.pipeline, list(app.config.roots))
    indexed = {row.source for row in app.index.list_sources()}
    assert indexed == {str(repo / n) for n in ("README.md", "docs/guide.md", "docs/important.log.md",
                                                "src/vendor/own.md", "notes/a.md", "out/page.md")}
    assert result.done == 6 and not result.other_types  # ignored files are not "other types" either
    write(repo / "notes" / ".gitignore", "a.md\n")
    again = run_sync(app.pipeline, list(app.config.roots))
    assert again.deleted == 1 and str(repo / "notes" / "a.md") not in {
        row.source for row in app.index.list_sources()}


def test_a_root_inside_a_repository_follows_the_gitignore_files_above_it(make_app, repo):
    app = make_app(base_dirs=[str(repo / "docs")])
    run_sync(app.pipeline, list(app.config.roots))
    assert {row.source for row in app.index.list_sources()} == {
        str(repo / "docs" / "guide.md"), str(repo / "docs" / "important.log.md")}  # build/ from the top


def test_minignore_include_and_exclude_globs_each_leave_files_out(make_app, repo):
    write(repo / ".minignore", "src/\n")
    app = make_app({"MINIRAG_INCLUDE": "docs/**,/README.md,src/**", "MINIRAG_GITIGNORE": "off"})
    run_sync(app.pipeline, list(app.config.roots))
    assert {row.source for row in app.index.list_sources()} == {
        str(repo / n) for n in ("README.md", "docs/guide.md", "docs/important.log.md", "docs/scratch.md",
                                "docs/out/page.md", "docs/build/x.md")}
    app = make_app(exclude=["docs/*.md", "/out/"])
    run_sync(app.pipeline, list(app.config.roots))
    indexed = {row.source for row in app.index.list_sources()}
    assert str(repo / "README.md") in indexed and str(repo / "out" / "page.md") not in indexed
    assert not any(s.startswith(str(repo / "docs") + "/") and s.count("/") == str(repo).count("/") + 2
                   for s in indexed)


def test_a_glob_starting_with_a_roots_path_applies_to_that_root_only(make_app, repo, tmp_path):
    other = tmp_path / "other"
    write(other / "out" / "page.md", "# Other out\n\nIn the second root.")
    app = make_app(base_dirs=[str(repo), str(other)], exclude=[f"{other}/out/"])
    run_sync(app.pipeline, list(app.config.roots))
    indexed = {row.source for row in app.index.list_sources()}
    assert str(repo / "out" / "page.md") in indexed and str(other / "out" / "page.md") not in indexed


def test_a_flags_value_holds_globs_comma_separated_as_the_variables_does(make_config):
    """`--include '*.md,*.csv'` was one glob that matched no file: the next sync removed every file."""
    assert make_config(include=["*.md, *.csv", "docs/**"]).include.patterns == ("*.md", "*.csv", "docs/**")
    assert make_config(include=["*.md,*.csv"]).include.patterns == \
        make_config({"MINIRAG_INCLUDE": "*.md,*.csv"}).include.patterns


def test_bad_glob_settings_name_the_variable(make_config):
    with pytest.raises(ConfigError, match="MINIRAG_INCLUDE must be globs"):
        make_config({"MINIRAG_INCLUDE": "[1]"})


def test_a_glob_that_is_no_pattern_is_a_configuration_error_naming_its_setting(make_config):
    with pytest.raises(ConfigError, match=r"--exclude: '\*\*/\[z-a\]' is not a glob"):
        make_config(exclude=["**/[z-a]"])
    with pytest.raises(ConfigError, match="MINIRAG_INCLUDE: 'x/\\[z-a\\]' is not a glob"):
        make_config({"MINIRAG_INCLUDE": "docs/**,x/[z-a]"})


def test_a_bad_line_of_an_ignore_file_is_skipped_with_a_warning_and_its_other_lines_hold(make_app, repo, caplog):
    # git skips a line that is no pattern; before, `[z-a]` stopped the whole sync ("internal error").
    write(repo / "docs" / ".gitignore", "scratch.md\n[z-a]\nout/\n")
    app = make_app()
    run_sync(app.pipeline, list(app.config.roots))
    indexed = {row.source for row in app.index.list_sources()}
    assert str(repo / "docs" / "guide.md") in indexed and str(repo / "README.md") in indexed
    assert str(repo / "docs" / "scratch.md") not in indexed and str(repo / "docs" / "out" / "page.md") not in indexed
    assert any("docs/.gitignore, line 2: not an ignore pattern" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_an_ignore_file_that_is_no_regular_file_gives_no_rules_and_never_blocks(repo, kind):
    # A FIFO blocked the walk forever; /dev/zero read until memory ran out. Read in a thread, so
    # that the old behaviour fails this test instead of hanging the suite.
    import os
    import threading

    target = repo / "docs" / ".minignore"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")
    rules = IgnoreRules([repo])
    done = []
    worker = threading.Thread(target=lambda: done.append(rules._ignore_files(str(repo / "docs"))), daemon=True)
    worker.start()
    worker.join(10)
    assert done and [path for path, _spec in done[0]] == [str(repo / "docs" / ".gitignore")]


def test_list_ignored_shows_each_ignored_file_and_folder_with_its_rule(repo, tmp_path, model_path, capsys):
    flags = ["--base-dir", str(repo), "--db-path", str(tmp_path / "i.db"), "--model-path", model_path]
    assert main(["sync", *flags]) == 0
    capsys.readouterr()
    assert main(["list", "--ignored", *flags]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["STATE", "CHUNKS", "SOURCE"]
    assert f"excluded           0  {repo}/build/  -- ignore rule: build/, {repo}/.gitignore" in out
    assert f"{repo}/docs/scratch.md  -- ignore rule: scratch.md, {repo}/docs/.gitignore" in out
    assert main(["list", *flags]) == 0
    assert "build/" not in capsys.readouterr().out  # only when asked
    assert main(["list", "--ignored", "--json", *flags, "--exclude", "README.md"]) == 0
    readme = [f for f in json.loads(capsys.readouterr().out)["files"] if f["source"] == str(repo / "README.md")]
    assert readme[0]["state"] == "excluded"
    assert readme[0]["reason"].startswith("ignore rule: README.md, --exclude")


def test_ingesting_an_ignored_file_by_name_says_which_rule_leaves_it_out(app, repo):
    progress = app.ingest_paths([str(repo / "run.log.md")])
    assert progress.done == 0
    assert progress.warnings == [f"{repo}/run.log.md: left out by ignore rule: *.log.md, {repo}/.gitignore"]


def test_a_file_or_folder_left_out_is_left_out_however_it_is_named(app, repo):
    """ingest_file (what an MCP client calls) and a sync of one path honour the ignore rules and
    the folders no sync enters, as `minirag ingest` does: an agent cannot index what the user left out."""
    write(repo / ".private/secret.md", "# Secret\n\nA dot-folder's note.")
    write(repo / "node_modules/pkg/README.md", "# Package\n\nA dependency's readme.")
    for named, rule in ((repo / "run.log.md", f"ignore rule: *.log.md, {repo}/.gitignore"),
                        (repo / "build/api.md", f"ignore rule: build/, {repo}/.gitignore"),
                        (repo / ".private/secret.md", "the built-in rule: no sync enters .private/"),
                        (repo / "node_modules/pkg/README.md", "the built-in rule: no sync enters node_modules/")):
        with pytest.raises(InvalidArgument, match="^" + re.escape(f"{named}: left out by {rule}; nothing indexed")):
            app.ingest_file(str(named))
    for folder, rule in ((repo / ".git", "the built-in rule: no sync enters .git/"),
                         (repo / ".private", "the built-in rule: no sync enters .private/"),
                         (repo / "build", f"ignore rule: build/, {repo}/.gitignore")):
        progress = app.sync(str(folder))
        assert progress.done == 0 and progress.warnings == [f"{folder}: left out by {rule}"]
    assert app.index.list_sources() == []
    assert app.ingest_file(str(repo / "notes/a.md")).chunk_count == 1  # one that no rule names is indexed


def test_a_sync_of_a_left_out_folder_still_walks_a_root_inside_it(make_app, docs):
    """Review: a sync of `.hidden` (a folder no sync enters) holding a root of its own found nothing,
    so it removed that root's indexed files; a sync of every root keeps them."""
    inner = docs / ".hidden" / "inner"
    write(inner / "a.md", "# Inner\n\nA note in the nested root.")
    write(docs / ".hidden" / "b.md", "# Hidden\n\nNot in any sync.")
    write(docs / "top.md", "# Top\n\nA note.")
    app = make_app(base_dirs=[str(docs), str(inner)])
    app.sync()
    indexed = sorted(row.source for row in app.index.list_sources())
    assert indexed == [str(inner / "a.md"), str(docs / "top.md")]
    progress = app.sync(str(docs / ".hidden"))
    assert progress.deleted == 0 and sorted(row.source for row in app.index.list_sources()) == indexed
    # A sync of the outer root, and a root inside the inner one's own skipped folder, alike.
    write(inner / "node_modules" / "pkg" / "b.md", "# Package\n\nA root of its own.")
    app = make_app(base_dirs=[str(docs), str(inner), str(inner / "node_modules" / "pkg")])
    app.sync()
    indexed = sorted(row.source for row in app.index.list_sources())
    assert len(indexed) == 3
    for folder in (docs, docs / ".hidden"):
        progress = app.sync(str(folder))
        assert progress.deleted == 0 and sorted(row.source for row in app.index.list_sources()) == indexed


@pytest.mark.slow  # waits on real timeouts or file events: about a second
def test_a_watcher_follows_a_changed_ignore_file(make_app, repo):
    app = make_app()
    reports = []
    app.start_watching(on_pass=reports.append, debounce=0.3, lock_retry=0.2, reconcile_every=3600.0)
    try:
        eventually(lambda: reports, what="the initial pass")
        sources = lambda: {row.source for row in app.index.list_sources()}  # noqa: E731
        assert str(repo / "notes" / "a.md") in sources()
        write(repo / "notes" / ".minignore", "a.md\n")
        eventually(lambda: str(repo / "notes" / "a.md") not in sources(), what="the new rule")
        (repo / ".gitignore").write_text("", encoding="utf-8")  # no rules at the top any more
        eventually(lambda: str(repo / "build" / "api.md") in sources(), what="the dropped rules")
    finally:
        app.stop_watching()


def test_the_list_files_tool_shows_ignored_files_when_asked(app, repo):
    from minirag import server

    state = server.ServerState.from_config(app.config, app)
    ctx = SimpleNamespace(session=type("Session", (), {})())  # a tool call's Context: its session names the client
    run_sync(app.pipeline, list(app.config.roots))
    assert not any(f["state"] == "excluded" for f in server.list_files(state, ctx)["files"])
    listed = {f["source"]: f for f in server.list_files(state, ctx, ignored=True)["files"]}
    assert listed[f"{repo}/vendor/"]["reason"] == f"ignore rule: /vendor/, {repo}/.gitignore"


def test_an_indexed_file_a_new_rule_names_is_listed_once_with_its_chunks(app, repo):
    """Before the next sync drops it, `list --ignored` showed it twice: as ignored (0 chunks) and as
    indexed-but-ignored (its chunks, "the next sync removes it")."""
    run_sync(app.pipeline, list(app.config.roots))
    write(repo / "notes" / ".gitignore", "a.md\n")
    named = str(repo / "notes" / "a.md")
    rows = [(f.state, f.chunk_count, f.reason) for f in app.list_files(ignored=True).files if f.source == named]
    assert rows == [("excluded", 1, f"ignore rule: a.md, {repo / 'notes' / '.gitignore'}; the next sync removes it")]


def test_an_ignore_file_linked_out_of_the_roots_is_never_read(make_app, repo, tmp_path, caplog):
    # A folder's `.minignore` linked to a file outside the roots (`~/.ssh/...`) was read: its lines
    # became rules, shown by `list --ignored`, and a line that is no pattern was logged whole.
    outside = write(tmp_path / "outside" / "secrets.txt", "guide.md\n")
    (repo / "docs" / ".minignore").symlink_to(outside)
    write(repo / "rules.txt", "run.log.md\n")  # a link that stays inside the roots is read as before
    (repo / ".minignore").symlink_to(repo / "rules.txt")
    app = make_app()
    run_sync(app.pipeline, list(app.config.roots))
    indexed = {row.source for row in app.index.list_sources()}
    assert str(repo / "docs" / "guide.md") in indexed
    assert str(repo / "run.log.md") not in indexed
    assert any(f"{repo / 'docs' / '.minignore'}: a link out of the document roots" in r.getMessage()
               for r in caplog.records)


def test_an_ignore_file_above_a_root_is_never_read_through_a_link(make_app, repo, tmp_path):
    # The `.gitignore` files from the repository's top down lie outside the root: one that is a link
    # (to anything) gives no rules, as git itself (2.32+) never follows a `.gitignore` link.
    outside = write(tmp_path / "outside" / "secrets.txt", "guide.md\n")
    (repo / ".gitignore").unlink()
    (repo / ".gitignore").symlink_to(outside)
    app = make_app(base_dirs=[str(repo / "docs")])
    run_sync(app.pipeline, list(app.config.roots))
    assert str(repo / "docs" / "guide.md") in {row.source for row in app.index.list_sources()}


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file to another user takes root")
def test_a_git_folder_of_another_user_above_a_root_makes_no_repository(make_app, tmp_path):
    """Another user who can write a folder above the root (/tmp, a shared folder) plants `.git` and a
    `.gitignore` there: git refuses such a repository (safe.directory, CVE-2022-24765), so its rules
    must not leave the root's documents out, nor its HEAD be reported as the root's commit."""
    shared = tmp_path / "shared"
    write(shared / "docs" / "guide.md", "# Guide\n\nHow the harbour works.\n")
    write(shared / ".gitignore", "*.md\n")
    (shared / ".git" / "refs" / "heads").mkdir(parents=True)
    write(shared / ".git" / "HEAD", "0123456789abcdef0123456789abcdef01234567\n")
    other = 65534  # nobody
    for path in (shared / ".gitignore", *[shared / ".git", *(shared / ".git").rglob("*")]):
        os.lchown(path, other, other)
    app = make_app(base_dirs=[str(shared / "docs")])
    app.sync()
    assert str(shared / "docs" / "guide.md") in {row.source for row in app.index.list_sources()}
    from minirag.gitstate import root_state

    assert root_state(shared / "docs", app.config.db_path) is None


def test_an_ignore_line_with_wildcards_enough_to_stall_matching_is_skipped(make_app, repo, caplog):
    # pathspec matches through Python regular expressions, which backtrack: one line of a root's
    # `.gitignore` such as `*d*d*d*d*d*x` took hours on a file named with 200 `d`s, stalling every
    # sync, list and watch pass. Run in a thread, so the old behaviour fails instead of hanging.
    import threading

    write(repo / "docs" / ".gitignore", "scratch.md\n*d*d*d*d*d*x\nout/\n")
    write(repo / "docs" / ("d" * 200 + ".md"), "# Long name\n\nA file with a long name.\n")
    app = make_app()
    app.encoder  # noqa: B018 - loaded here, not timed by the join below
    done = []
    worker = threading.Thread(target=lambda: done.append(run_sync(app.pipeline, list(app.config.roots))),
                              daemon=True)
    worker.start()
    worker.join(60)
    assert done, "the sync was still matching one ignore line after 60 s"
    indexed = {row.source for row in app.index.list_sources()}
    assert str(repo / "docs" / ("d" * 200 + ".md")) in indexed
    assert str(repo / "docs" / "scratch.md") not in indexed and str(repo / "docs" / "out" / "page.md") not in indexed
    assert any("docs/.gitignore, line 2: not an ignore pattern, skipped (too many wildcards" in r.getMessage()
               for r in caplog.records)


@pytest.mark.parametrize("glob", ["a/**/b/**/c/**/d", "*a*b*c*d*e"])
def test_a_glob_with_wildcards_enough_to_stall_matching_is_a_configuration_error(make_config, glob):
    with pytest.raises(ConfigError, match="is not a glob \\(too many wildcards"):
        make_config(exclude=[glob])


def test_an_ignore_file_of_many_costly_lines_is_read_only_up_to_a_matching_budget(repo, caplog):
    # Each line may carry four wildcards, but a file may hold 1 MiB of them: 200 lines of `a*a*a*bN`
    # took 50 s a sync on three files nine folders deep (every path is matched against every line),
    # and 95,000 lines would take hours. Past the file's budget, lines are skipped, saying so once.
    from minirag.ingest.ignore import MATCH_BUDGET, IgnoreRules, line_cost

    write(repo / "docs" / ".gitignore",
          "keep-out.md\n" + "".join(f"a*a*a*b{i}\n" for i in range(2000)) + "private/\n!private/open.md\n")
    rules = IgnoreRules([repo / "docs"], gitignore=True)
    assert rules.reason(str(repo / "docs" / "keep-out.md")) is not None
    assert rules.reason(str(repo / "docs" / "aaab0")) is not None  # a line within the budget
    # Plain lines after the costly ones still count (two of four wildcards had filled the budget, and
    # `private/` after them was skipped): a folder left out stays left out.
    assert rules.reason(str(repo / "docs" / "private"), is_dir=True) is not None
    (_, spec), = rules._ignore_files(str(repo / "docs"))
    costly = MATCH_BUDGET // line_cost("a*a*a*b1")
    assert len(spec.patterns) == 1 + costly + 2
    warned = [r.getMessage() for r in caplog.records if "docs/.gitignore" in r.getMessage()]
    assert len(warned) == 1 and f"{2000 - costly} lines skipped, the first line {2 + costly}" in warned[0], warned


def test_costly_lines_that_fill_the_budget_leave_plain_lines_after_them_in_force(repo):
    from minirag.ingest.ignore import IgnoreRules

    write(repo / "docs" / ".gitignore", "*-*-*.log\n*_*_*.bak\nprivate/\n")
    rules = IgnoreRules([repo / "docs"], gitignore=True)
    assert rules.reason(str(repo / "docs" / "private"), is_dir=True) is not None
    assert rules.reason(str(repo / "docs" / "a-b-c.log")) is not None


def test_a_sphinx_builds_copy_of_its_pages_sources_is_left_out(app, docs):
    """A Sphinx HTML build (python3.11-doc: 497 files) keeps each page's source under `_sources/`:
    every page was indexed twice, the second time as raw reST."""
    build = docs / "html"
    write(build / "searchindex.js", "Search.setIndex({})")
    write(build / "library" / "os.html", "<html><body><h1>os</h1><p>Miscellaneous operating system "
          "interfaces.</p></body></html>")
    write(build / "_sources" / "library" / "os.rst.txt", ":mod:`os` --- Miscellaneous operating system "
          "interfaces\n=====\n\n.. module:: os\n")
    # A folder of that name elsewhere is the user's own.
    write(docs / "notes" / "_sources" / "reading.md", "# Reading list\n\nBooks to read.")
    app.sync()
    assert sorted(row.source for row in app.index.list_sources()) == [
        str(build / "library" / "os.html"), str(docs / "notes" / "_sources" / "reading.md")]
    named = build / "_sources" / "library" / "os.rst.txt"
    rule = "the built-in rule: no sync enters _sources/ (a Sphinx build's copy of the sources of its pages, " \
           "which are indexed)"
    with pytest.raises(InvalidArgument, match="^" + re.escape(f"{named}: left out by {rule}; nothing indexed")):
        app.ingest_file(str(named))
    progress = app.sync(str(build / "_sources"))
    assert progress.done == 0 and progress.warnings == [f"{build / '_sources'}: left out by {rule}"]
