#!/usr/bin/env python3
"""Fetch a real benchmark corpus from Debian documentation packages.

Downloads .deb files with ``apt-get download`` (no root needed for that, but
``apt-get update`` must have run once), unpacks them with ``dpkg-deb -x`` into a
temp dir and copies each package's documentation tree into the target folder
(default ``data/corpus``, git-ignored). Stdlib only.

    python scripts/fetch_corpus.py                     # python3.11-doc HTML
    python scripts/fetch_corpus.py --package gnome-user-docs --package postgresql-doc-15
    python scripts/fetch_corpus.py --dest /tmp/corpus --force
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# package -> (path inside the package, folder name under dest)
KNOWN = {
    "python3.11-doc": ("usr/share/doc/python3.11/html", "python3.11-html"),
    "gnome-user-docs": ("usr/share/help", "gnome-user-docs"),
    "libreoffice-help-en-us": ("usr/share/libreoffice/help/en-US", "libreoffice-help-en-us"),
    "libreoffice-help-ru": ("usr/share/libreoffice/help/ru", "libreoffice-help-ru"),
    "postgresql-doc-15": ("usr/share/doc/postgresql-doc-15/html", "postgresql-15-html"),
    "debian-handbook": ("usr/share/doc/debian-handbook", "debian-handbook"),
    "live-manual-pdf": ("usr/share/doc/live-manual", "live-manual-pdf"),
    "r-doc-pdf": ("usr/share/doc/r-doc-pdf", "r-doc-pdf"),
}
DEFAULT_PACKAGES = ["python3.11-doc"]


def die(msg: str) -> None:
    print(f"fetch_corpus: error: {msg}", file=sys.stderr)
    sys.exit(1)


def run(cmd: list[str], cwd: Path | None = None) -> None:
    try:
        subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True)
    except FileNotFoundError:
        die(f"'{cmd[0]}' not found: this needs a Debian/Ubuntu system with apt and dpkg")
    except subprocess.CalledProcessError as e:
        hint = " (run 'apt-get update' first?)" if cmd[0] == "apt-get" else ""
        die(f"{' '.join(cmd)} failed with code {e.returncode}{hint}:\n{e.stderr.strip()}")


def fetch(package: str, dest: Path, force: bool) -> Path:
    inner, name = KNOWN.get(package, (f"usr/share/doc/{package}", package))
    target = dest / name
    if target.exists() and not force:
        print(f"{package}: {target} exists, skipping (use --force to refetch)")
        return target
    with tempfile.TemporaryDirectory(prefix="fetch_corpus_") as tmp:
        tmpdir = Path(tmp)
        run(["apt-get", "download", package], cwd=tmpdir)
        debs = sorted(tmpdir.glob(f"{package}_*.deb"))
        if not debs:
            die(f"apt-get download {package} produced no .deb in {tmpdir}")
        root = tmpdir / "root"
        run(["dpkg-deb", "-x", str(debs[-1]), str(root)])
        src = root / inner
        if not src.is_dir():
            die(f"{package}: {inner} not found in {debs[-1].name}")
        if target.exists():
            shutil.rmtree(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        # symlinks=False: Debian doc trees link to shared JS/CSS elsewhere in /usr;
        # dangling ones are skipped rather than copied as broken links.
        shutil.copytree(src, target, symlinks=False, ignore_dangling_symlinks=True)
        (target / "SOURCE.txt").write_text(f"{debs[-1].name}\n{inner}\n")
    return target


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dest", nargs="?", default="data/corpus", help="target folder (default data/corpus)")
    ap.add_argument("--dest", dest="dest_opt", help="same as the positional argument")
    ap.add_argument("--package", "-p", action="append", help=f"package to fetch (repeatable; known: {', '.join(KNOWN)})")
    ap.add_argument("--force", action="store_true", help="refetch even if the target folder exists")
    args = ap.parse_args()
    if shutil.which("apt-get") is None or shutil.which("dpkg-deb") is None:
        die("apt-get and dpkg-deb are required (Debian/Ubuntu only)")
    dest = Path(args.dest_opt or args.dest)
    for pkg in args.package or DEFAULT_PACKAGES:
        target = fetch(pkg, dest, args.force)
        files = [p for p in target.rglob("*") if p.is_file()]
        size = sum(p.stat().st_size for p in files)
        html = sum(1 for p in files if p.suffix == ".html")
        print(f"{pkg}: {target}  {len(files)} files ({html} .html), {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
