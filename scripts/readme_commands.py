"""Run the README's command blocks as a new user would: in a fresh clone, with a throwaway HOME.

    uv run python scripts/readme_commands.py            # run them (CI: .ci/run)
    uv run python scripts/readme_commands.py --list     # show which blocks run, run nothing

Which blocks run
    Every fenced block tagged ```bash or ```sh, in README order. A block is skipped when the
    last non-blank line before its opening fence is an HTML comment (invisible on GitHub)

        <!-- not run: REASON -->          e.g. <!-- not run: after a PyPI release -->

    Use it only for what cannot run here (another program, a release that has not happened),
    never to hide a command that should work. `<!-- slow: REASON -->` in the same place marks
    a block that takes minutes: it runs all the same, unless --skip-slow is given.

How they run
    - In a clone of the current commit (HEAD; uncommitted changes are not in it), made with
      `git clone` into a temporary folder, as a user's fresh clone would be.
    - HOME is an empty temporary folder, with XDG_CONFIG_HOME, XDG_CACHE_HOME, XDG_DATA_HOME
      and XDG_STATE_HOME under it and ~/.local/bin (where `uv tool install` puts commands)
      first on PATH, and no virtual environment on PATH. `~/docs`, the folder the README's
      examples point at, holds copies of a few test documents (tests/fixtures/docs), as a
      user's own folder would.
    - Package downloads are shared, not user state: uv's cache and its Python installations
      (`uv cache dir`, `uv python dir`) keep their usual places unless --cold-cache; so do
      PYENV_ROOT and PIP_* settings.
    - HF_HUB_OFFLINE=1: no README command may need the model hub.
    - Each block runs as one `bash -euo pipefail` script from the clone's root; what it writes
      stays for the blocks after it. A block that fails (or outlives --timeout) stops the run:
      the block and its output are printed, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNNABLE = {"bash", "sh"}
SAMPLE_DOCS = ("md_debug_readme.md", "txt_python_tutorial_appetite_en.txt", "docx_headings_table.docx")
_FENCE = re.compile(r"^(`{3,})([\w-]*)\s*$")
_MARKER = re.compile(r"^<!--\s*(not run|slow)\s*:\s*(.*?)\s*-->$")


@dataclass(frozen=True)
class Block:
    line: int  # of the opening fence, 1-based
    language: str
    code: str
    skip_reason: str | None = None  # <!-- not run: ... -->
    slow_reason: str | None = None  # <!-- slow: ... -->

    @property
    def runnable(self) -> bool:
        return self.language in RUNNABLE and self.skip_reason is None


def blocks(markdown: str) -> list[Block]:
    """Every fenced block, with the marker comment just before it, if any."""
    lines = markdown.splitlines()
    found, i = [], 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == opening.group(1)), len(lines))
        before = next((lines[j].strip() for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        marker = _MARKER.match(before)
        kind, reason = (marker.group(1), marker.group(2)) if marker else (None, None)
        found.append(Block(line=i + 1, language=opening.group(2).lower(), code="\n".join(lines[i + 1:end]) + "\n",
                           skip_reason=reason if kind == "not run" else None,
                           slow_reason=reason if kind == "slow" else None))
        i = end + 1
    return found


def _clone(dest: Path) -> str:
    """A clone of HEAD at `dest`; returns what was cloned, for the log."""
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    commit = head.stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True, check=True).stdout.strip()
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(ROOT), str(dest)], check=True)
    subprocess.run(["git", "-C", str(dest), "checkout", "--quiet", "--detach", commit], check=True)
    return f"commit {commit[:12]}" + (" (uncommitted changes in the working tree are not tested)" if dirty else "")


def _shared_dir(command: list[str]) -> str | None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None


def user_environment(home: Path, *, cold_cache: bool) -> dict[str, str]:
    """The caller's environment with HOME and the XDG folders replaced by an empty home."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("XDG_", "UV_TOOL_", "VIRTUAL_ENV", "CONDA_")) and k not in ("UV_PROJECT_ENVIRONMENT",)}
    real_home = Path(os.environ.get("HOME", str(Path.home())))
    if "PYENV_ROOT" not in env and (real_home / ".pyenv").is_dir():
        env["PYENV_ROOT"] = str(real_home / ".pyenv")  # pyenv's shims find their Pythons through it
    if not cold_cache:
        for variable, command in (("UV_CACHE_DIR", ["uv", "cache", "dir"]),
                                  ("UV_PYTHON_INSTALL_DIR", ["uv", "python", "dir"])):
            shared = env.get(variable) or _shared_dir(command)
            if shared:
                env[variable] = shared
    else:
        env.pop("UV_CACHE_DIR", None)
    env.update({
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "PATH": os.pathsep.join([str(home / ".local" / "bin"), *_outside_virtual_environments(env.get("PATH", ""))]),
        "HF_HUB_OFFLINE": "1",
    })
    return env


def _outside_virtual_environments(path: str) -> list[str]:
    """PATH without virtual environments' bin folders (`uv run` puts the project's first):
    a README command must find only what the README installed."""
    return [entry for entry in path.split(os.pathsep) if entry and not (Path(entry).parent / "pyvenv.cfg").is_file()]


def _prepare_home(home: Path, clone: Path) -> None:
    for sub in (".config", ".cache", ".local/share", ".local/state", ".local/bin", "docs"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    for name in SAMPLE_DOCS:
        shutil.copy2(clone / "tests" / "fixtures" / "docs" / name, home / "docs" / name)


def run_block(block: Block, cwd: Path, env: dict[str, str], timeout: float) -> tuple[int | None, str]:
    """(exit status, or None after a timeout; combined output)."""
    with subprocess.Popen(["bash", "-euo", "pipefail", "-c", block.code], cwd=cwd, env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True) as process:
        try:
            output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            output, _ = process.communicate()
            return None, output
    return process.returncode, output


def _indent(text: str) -> str:
    return "".join(f"    {line}\n" for line in text.rstrip("\n").splitlines())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("markdown", nargs="?", default="README.md", help="the file, relative to the repository root")
    parser.add_argument("--list", action="store_true", help="show which blocks run and why not; run nothing")
    parser.add_argument("--skip-slow", action="store_true", help="skip blocks marked <!-- slow: ... -->")
    parser.add_argument("--cold-cache", action="store_true", help="give uv an empty cache too (downloads everything)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds one block may take (default 900)")
    parser.add_argument("--keep", action="store_true", help="keep the clone and the home folder, and say where")
    args = parser.parse_args(argv)

    found = blocks((ROOT / args.markdown).read_text(encoding="utf-8"))
    if args.list:
        for b in found:
            state = ("runs" + (f" (slow: {b.slow_reason})" if b.slow_reason else "") if b.runnable
                     else f"not run: {b.skip_reason}" if b.skip_reason else f"not a command block ({b.language or 'plain'})")
            print(f"{args.markdown}:{b.line}: {state}")
        return 0
    chosen = [b for b in found if b.runnable and not (args.skip_slow and b.slow_reason)]
    if not chosen:
        print(f"{args.markdown}: no command blocks to run", file=sys.stderr)
        return 1

    work = Path(tempfile.mkdtemp(prefix="readme-commands-"))
    clone, home = work / "clone", work / "home"
    try:
        print(f"readme: {len(chosen)} blocks of {args.markdown}, {_clone(clone)}, in {clone} with HOME={home}", flush=True)
        _prepare_home(home, clone)
        env = user_environment(home, cold_cache=args.cold_cache)
        for block in chosen:
            started = time.monotonic()
            status, output = run_block(block, clone, env, args.timeout)
            seconds = time.monotonic() - started
            if status != 0:
                why = f"timed out after {args.timeout:.0f} s" if status is None else f"failed with exit status {status}"
                print(f"\nreadme: the block at {args.markdown}:{block.line} {why} ({seconds:.0f} s):\n"
                      f"{_indent(block.code)}\nits output:\n{_indent(output) or '    (none)'}", file=sys.stderr)
                return 1
            print(f"readme: {args.markdown}:{block.line} ok in {seconds:.1f} s", flush=True)
        print(f"readme: all {len(chosen)} command blocks ran", flush=True)
        return 0
    finally:
        if args.keep:
            print(f"readme: kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
