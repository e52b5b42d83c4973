"""Run git on a repository whose configuration is not trusted, so that it runs no program.

git reads `.git/config` (and its includes) whatever it is asked; these settings in
there make it run a program during a plain `git status`: `core.fsmonitor`, hooks
(`post-index-change`, `core.hooksPath`), filter drivers named by any
attributes file (`filter.<name>.clean` / `.process`), and the transport of a
promisor remote asked for a missing object (`core.sshCommand`, `protocol.*.allow`
with `ext::`). Each is overridden through GIT_CONFIG_COUNT (which outranks every
config file, and carries a key and its value apart, so a driver named `x=y`
stays one name), transports are all disallowed (GIT_ALLOW_PROTOCOL), the
inherited GIT_* environment is dropped, and system and global config are not
read. Nothing runs with a git older than 2.32, which lacks GIT_CONFIG_GLOBAL.

git itself is found on PATH's absolute folders only, and run by its full path: status runs
inside the root, so a relative entry (`.`, an empty one, `bin`) would run a `git` planted
among the documents.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import subprocess
from pathlib import Path

from minirag import interruptible
from minirag.programs import on_path

GIT_TIMEOUT_S = 5
MIN_GIT = (2, 32)
_FILTER_KEY = re.compile(r"filter\.(.+)\.(clean|smudge|process|required)", re.DOTALL)

FIXED_OVERRIDES = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),  # not a folder: no hook is found
    ("core.untrackedCache", "false"),
    ("core.attributesFile", os.devnull),
    ("core.sshCommand", "false"),
    ("core.gitProxy", "false"),
    ("protocol.allow", "never"),
    ("status.submoduleSummary", "false"),
    ("diff.ignoreSubmodules", "all"),
    ("submodule.recurse", "false"),
    ("status.renames", "false"),
    ("diff.renames", "false"),
)


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return env | {
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_ATTR_NOSYSTEM": "1",
        "GIT_OPTIONAL_LOCKS": "0",  # status never writes the index, so no index hook could fire
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ALLOW_PROTOCOL": "none",  # no transport at all, whatever protocol.<name>.allow says
        "GIT_NO_LAZY_FETCH": "1",  # git >= 2.45: a missing object is never fetched
        "GIT_NO_REPLACE_OBJECTS": "1",
        "LC_ALL": "C",
    }


def _with_config(env: dict[str, str], pairs: list[tuple[str, str]]) -> dict[str, str]:
    out = dict(env, GIT_CONFIG_COUNT=str(len(pairs)))
    for i, (key, value) in enumerate(pairs):
        out[f"GIT_CONFIG_KEY_{i}"] = key
        out[f"GIT_CONFIG_VALUE_{i}"] = value
    return out


def _run(argv: list[str], env: dict[str, str], cwd: Path | None = None) -> str | None:
    """git's stdout, or None when it failed, ran past GIT_TIMEOUT_S, or the RunBound in force (a sync
    job's, a watcher's) was stopped meanwhile: its process is killed then, not waited for."""
    bound = interruptible.current()
    try:
        with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                              text=True, errors="replace", env=env, cwd=cwd) as process:
            try:
                with bound.stopping(process.kill) if bound is not None else contextlib.nullcontext():
                    out, _ = process.communicate(timeout=GIT_TIMEOUT_S)
            except BaseException:
                process.kill()
                raise
    except (OSError, subprocess.SubprocessError, ValueError, interruptible.RunStopped):
        return None
    return out if process.returncode == 0 else None


def git_program() -> str | None:
    """The full path of the first `git` on PATH's absolute folders, or None."""
    return on_path("git")


def git_version() -> tuple[int, int] | None:
    program = git_program()
    return _version(program) if program is not None else None


@functools.cache
def _version(program: str) -> tuple[int, int] | None:
    out = _run([program, "--version"], _environment())
    found = re.search(r"(\d+)\.(\d+)", out or "")
    return (int(found[1]), int(found[2])) if found else None


def _filter_drivers(program: str, git_dir: Path, env: dict[str, str]) -> set[str] | None:
    """The name of every filter driver the repository's config defines (reading config runs nothing)."""
    listed = _run([program, f"--git-dir={git_dir}", "config", "--null", "--name-only", "--list"], env)
    if listed is None:
        return None
    return {m[1] for key in listed.split("\0") if (m := _FILTER_KEY.fullmatch(key))}


def safe_git(cwd: Path, git_dir: Path, work_tree: Path, *args: str) -> str | None:
    """stdout of `git args` in `cwd` on that repository with no program of its config run; None on failure."""
    program = git_program()
    version = git_version()
    if program is None or version is None or version < MIN_GIT:
        return None
    env = _with_config(_environment(), list(FIXED_OVERRIDES))
    drivers = _filter_drivers(program, git_dir, env)
    if drivers is None:
        return None
    pairs = list(FIXED_OVERRIDES)
    for name in sorted(drivers):
        pairs += [(f"filter.{name}.clean", ""), (f"filter.{name}.smudge", ""), (f"filter.{name}.process", ""),
                  (f"filter.{name}.required", "false")]
    # --git-dir and --work-tree stated, so neither discovery nor core.worktree picks another repository.
    argv = [program, f"--git-dir={git_dir}", f"--work-tree={work_tree}", "--no-optional-locks", *args]
    return _run(argv, _with_config(_environment(), pairs), cwd)
