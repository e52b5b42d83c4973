"""A root's `.git` belongs to whoever made the folder (an unpacked archive, a shared folder), so
a sync reading its git state must run none of the programs it names: core.fsmonitor, hooks,
filter drivers from .git/info/attributes, .gitattributes or a name holding '='. Each planted
program would leave a marker; a real sync leaves none, and still reports the commit (read
from HEAD and the refs) and whether the tree is dirty."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
from conftest import write

from minirag import gitsafe
from minirag.gitstate import find_git_dir, read_head, root_state

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

HOOKS = ("post-index-change", "pre-commit", "post-checkout", "reference-transaction", "fsmonitor-watchman",
         "pre-auto-gc", "post-rewrite")


def git(repo: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                          check=True, capture_output=True, text=True, env=env | {"GIT_CONFIG_NOSYSTEM": "1",
                                                                                   "GIT_CONFIG_GLOBAL": os.devnull}
                          ).stdout.strip()


def program(folder: Path, name: str, markers: Path, body: str = "cat") -> Path:
    """An executable that leaves markers/<name> when run (and, as a clean filter, passes its input)."""
    path = folder / name
    path.write_text(f"#!/bin/sh\ntouch '{markers}/{name}'\n{body}\n")
    path.chmod(0o755)
    return path


def plant(repo: Path, markers: Path) -> None:
    """Every config-driven program a `git status` could run, each leaving a marker."""
    bin_dir = repo.parent / "bin"
    hooks = repo.parent / "hooks"
    for folder in (bin_dir, hooks, markers):
        folder.mkdir(exist_ok=True)
    for hook in HOOKS:
        program(hooks, hook, markers, "exit 0")
        program(repo / ".git" / "hooks", hook, markers, "exit 0")
    fsmonitor = program(bin_dir, "fsmonitor", markers, "exit 1")
    clean = program(bin_dir, "clean", markers)
    odd = program(bin_dir, "clean-odd-name", markers)
    process = program(bin_dir, "process", markers, "exit 1")
    with (repo / ".git" / "config").open("a") as config:
        config.write(f"[core]\n\tfsmonitor = {fsmonitor}\n\tuntrackedCache = true\n"
                     f'[filter "evil"]\n\tclean = {clean}\n\tsmudge = {clean}\n\trequired = true\n'
                     f'[filter "x=y"]\n\tclean = {odd}\n'
                     f'[filter "long"]\n\tprocess = {process}\n'
                     "[protocol]\n\tallow = always\n")
    write(repo / ".git" / "info" / "attributes", "*.md filter=evil\n*.txt filter=x=y\n")
    write(repo / ".gitattributes", "*.rst filter=long\n")
    # Same sizes, new contents and times: status must read each file again (through its filter).
    for name, text in (("notes.md", "# Notes\n\nGravel paths drain fast.\n"), ("plants.txt", "Mint SPREADS.\n"),
                       ("walks.rst", "Guide\n=====\n\nWater at DAWN.\n")):
        path = repo / name
        assert len(text) == path.stat().st_size
        path.write_text(text)
        os.utime(path, (1_000_000_000, 1_000_000_000))
    os.utime(repo / "same.md", (1_000_000_000, 1_000_000_000))  # same bytes, new time: status rewrites the index


@pytest.fixture
def repo(docs) -> Path:
    write(docs / "notes.md", "# Notes\n\nGravel paths drain well.\n")
    write(docs / "plants.txt", "Mint spreads.\n")
    write(docs / "walks.rst", "Guide\n=====\n\nWater at dawn.\n")
    write(docs / "same.md", "# Same\n\nUnchanged bytes.\n")
    git(docs, "init", "-q")
    git(docs, "add", ".")
    git(docs, "commit", "-qm", "first")
    return docs


def test_the_planted_programs_are_live_for_a_plain_git_status(repo, tmp_path):
    markers = tmp_path / "markers"
    plant(repo, markers)
    # The long-running filter fails, and git stops there: first without it, so the index gets written.
    subprocess.run(["git", "-C", str(repo), "-c", "filter.long.process=", "status", "--porcelain"],
                   capture_output=True, check=False)
    assert {p.name for p in markers.iterdir()} == {"fsmonitor", "clean", "clean-odd-name", "post-index-change"}
    subprocess.run(["git", "-C", str(repo), "status", "--porcelain"], capture_output=True, check=False)
    assert "process" in {p.name for p in markers.iterdir()}


def test_a_sync_runs_no_program_the_roots_git_config_names(repo, tmp_path, make_app):
    markers = tmp_path / "markers"
    plant(repo, markers)
    app = make_app()
    app.sync()
    states = app.status().git_state
    assert sorted(p.name for p in markers.iterdir()) == []
    assert [(s.root, s.commit, s.dirty) for s in states] == [(str(repo), git(repo, "rev-parse", "HEAD"),
                                                                         True)]


def test_a_clean_tree_reads_clean_and_a_new_file_reads_dirty(repo, tmp_path, make_app):
    app = make_app()
    app.sync()
    assert app.status().git_state[0].dirty is False
    write(repo / "new.md", "# New\n\nA fresh page.\n")
    app.sync()
    assert app.status().git_state[0].dirty is True


def test_the_commit_is_read_from_loose_and_packed_refs_and_a_detached_head(repo):
    first = git(repo, "rev-parse", "HEAD")
    write(repo / "more.md", "more\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "second")
    second = git(repo, "rev-parse", "HEAD")
    top, git_dir, common = find_git_dir(repo / "sub" / "deeper")
    assert (top, git_dir, common) == (repo, repo / ".git", repo / ".git")
    assert read_head(git_dir, common) == second  # a loose ref
    git(repo, "pack-refs", "--all")
    for loose in (repo / ".git" / "refs" / "heads").rglob("*"):
        loose.unlink()
    assert read_head(git_dir, common) == second  # packed-refs only
    git(repo, "checkout", "-q", "--detach", first)
    assert read_head(git_dir, common) == first


def test_a_linked_worktree_reads_its_own_head_through_the_common_dir(repo, tmp_path):
    """A `.git` file naming a git dir whose `commondir` leads to the main repository's branches."""
    head = git(repo, "rev-parse", "HEAD")
    branch = git(repo, "symbolic-ref", "HEAD")
    git(repo, "pack-refs", "--all")
    private = repo / ".git" / "worktrees" / "wt"
    write(private / "HEAD", f"ref: {branch}\n")
    write(private / "commondir", "../..\n")
    tree = tmp_path / "wt"
    write(tree / ".git", f"gitdir: {private}\n")
    write(private / "gitdir", f"{tree / '.git'}\n")  # git worktree add's link back to the tree
    assert find_git_dir(tree) == (tree, private, (repo / ".git").resolve())
    assert root_state(tree, tmp_path / "index.db").commit == head


def test_a_submodule_reads_its_head_from_the_superprojects_modules(repo, tmp_path):
    head = git(repo, "rev-parse", "HEAD")
    super_git = tmp_path / "super" / ".git"
    shutil.copytree(repo / ".git", super_git / "modules" / "lib")
    write(tmp_path / "super" / "lib" / ".git", "gitdir: ../.git/modules/lib\n")
    assert root_state(tmp_path / "super" / "lib", tmp_path / "index.db").commit == head


def test_git_layouts_git_itself_reads_keep_their_state(repo, tmp_path):
    """A separate git dir (`git init --separate-git-dir`: a `.git` file naming a git dir that names
    nothing back), a `.git` that is a link to the git dir, and a HEAD git wrote as a link
    (core.preferSymlinkRefs) are git's own: each had lost its state to the rules against links."""
    head = git(repo, "rev-parse", "HEAD")
    separate = tmp_path / "separate"
    separate.mkdir()
    git(separate, "init", "-q", f"--separate-git-dir={tmp_path / 'sep.git'}")
    write(separate / "a.md", "a\n")
    git(separate, "add", ".")
    git(separate, "commit", "-qm", "first")
    assert root_state(separate, tmp_path / "index.db").commit == git(separate, "rev-parse", "HEAD")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / ".git").symlink_to(repo / ".git")
    assert root_state(linked, tmp_path / "index.db").commit == head
    branch = git(repo, "symbolic-ref", "HEAD")
    (repo / ".git" / "HEAD").unlink()
    (repo / ".git" / "HEAD").symlink_to(branch)  # relative: refs/heads/<branch>, inside the git dir
    assert root_state(repo, tmp_path / "index.db").commit == head


@pytest.mark.parametrize("linked", ["HEAD", "refs/heads", "packed-refs", "commondir", ".git"])
def test_no_link_is_followed_to_read_the_commit(repo, tmp_path, linked):
    """`.git/HEAD` a symlink to a file outside the roots holding only hex (an API token) made
    `status`, over MCP too, report that file's text as the commit."""
    secret = "ab" * 32
    outside = tmp_path / "outside"
    write(outside / "token", secret + "\n")
    write(outside / "refs" / "heads" / "main", secret + "\n")
    write(outside / "packed-refs", f"{secret} refs/heads/main\n")
    git_dir = repo / ".git"
    if linked == "HEAD":
        (git_dir / "HEAD").unlink()
        (git_dir / "HEAD").symlink_to(outside / "token")
    elif linked == "refs/heads":
        write(git_dir / "HEAD", "ref: refs/heads/main\n")
        shutil.rmtree(git_dir / "refs" / "heads")
        (git_dir / "refs" / "heads").symlink_to(outside / "refs" / "heads")
    elif linked == "packed-refs":
        write(git_dir / "HEAD", "ref: refs/heads/main\n")
        shutil.rmtree(git_dir / "refs" / "heads")
        (git_dir / "refs" / "heads").mkdir()
        (git_dir / "packed-refs").symlink_to(outside / "packed-refs")
    elif linked == "commondir":
        write(git_dir / "HEAD", "ref: refs/heads/main\n")
        shutil.rmtree(git_dir / "refs" / "heads")
        write(outside / "commondir-target", f"{outside}\n")
        (git_dir / "commondir").symlink_to(outside / "commondir-target")
    else:  # a `.git` file that is itself a link to a file of hex
        shutil.rmtree(git_dir)
        write(outside / "dotgit", f"gitdir: {outside}\n")
        write(outside / "HEAD", "ref: refs/heads/main\n")
        (repo / ".git").symlink_to(outside / "dotgit")
    state = root_state(repo, tmp_path / "index.db")
    assert state is None or secret not in state.commit


@pytest.mark.parametrize("head", ["ref: refs/heads/../../../../etc/passwd\n", "ref: /etc/passwd\n",
                                  "ref: refs/heads/unborn\n", "garbage\n"])
def test_a_head_naming_no_commit_or_outside_the_refs_gives_no_state(repo, head, tmp_path):
    (repo / ".git" / "HEAD").write_text(head)
    assert root_state(repo, tmp_path / "index.db") is None


def test_a_fifo_planted_as_head_does_not_hang_the_sync(repo, tmp_path):
    head = repo / ".git" / "HEAD"
    head.unlink()
    os.mkfifo(head)
    result = []
    reader = threading.Thread(target=lambda: result.append(root_state(repo, tmp_path / "index.db")), daemon=True)
    reader.start()
    reader.join(timeout=10)
    if reader.is_alive():  # unblock the stuck reader so the test process can end
        with open(os.open(head, os.O_WRONLY | os.O_NONBLOCK), "w"):
            pass
        pytest.fail("reading a FIFO planted as .git/HEAD blocked")
    assert result == [None]


def test_a_git_too_old_to_run_safely_leaves_dirty_unknown(repo, tmp_path, monkeypatch):
    monkeypatch.setattr(gitsafe, "git_version", lambda: (2, 31))
    state = root_state(repo, tmp_path / "index.db")
    assert state.commit == git(repo, "rev-parse", "HEAD") and state.dirty is None


@pytest.mark.parametrize("kind", ["fifo", "dangling link"])
def test_an_unreadable_dot_git_inside_a_repository_is_not_taken_for_the_outer_one(repo, tmp_path, kind):
    inner = repo / "vendored"
    inner.mkdir()
    if kind == "fifo":
        os.mkfifo(inner / ".git")
    else:
        (inner / ".git").symlink_to(tmp_path / "nowhere")
    assert root_state(inner, tmp_path / "index.db") is None
    assert root_state(repo, tmp_path / "index.db") is not None


def test_the_stored_git_state_reads_back_as_indexes_already_hold_it():
    from minirag.gitstate import GitState, parse_states, stored_states

    held = '[{"root": "/r", "commit": "' + "a" * 40 + '", "dirty": null, "syncedAt": "2026-01-02T03:04:05+00:00"}]'
    state = GitState("/r", "a" * 40, None, "2026-01-02T03:04:05+00:00")
    assert parse_states(held) == (state,)
    assert parse_states(stored_states([state])) == (state,)
    assert parse_states("not json") == parse_states('[["a list"]]') == ()


def test_an_index_inside_the_tree_is_no_change_and_a_document_named_like_it_is_one(repo, make_app):
    write(repo / "notes.md", "# Notes\n\nCommitted.\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "notes")
    app = make_app(db_path=str(repo / "notes"))  # the index's files: notes, notes-wal, notes.sync.lock ...
    app.sync()
    assert (repo / "notes").is_file() and app.status().git_state[0].dirty is False

    write(repo / "notes.md", "# Notes\n\nEdited since.\n")
    app.sync()
    assert app.status().git_state[0].dirty is True


def test_an_index_whose_name_git_quotes_is_no_change_either(repo, make_app):
    app = make_app(db_path=str(repo / "índice"))  # git's line format writes it "\303\255ndice"
    app.sync()
    assert (repo / "índice").is_file() and app.status().git_state[0].dirty is False
