"""Developer tasks. Each session runs inside the project's uv environment (`uv run`),
so nox and the tests see exactly the locked dependencies."""

import nox

nox.options.default_venv_backend = "none"
nox.options.sessions = ["lint", "tests"]


@nox.session
def tests(session):
    session.run("uv", "run", "pytest", *session.posargs, external=True)


@nox.session
def lint(session):
    session.run("uv", "run", "ruff", "check", "minirag", "tests", "scripts", "noxfile.py", external=True)
    session.run("uv", "run", "mypy", "minirag", external=True)


@nox.session
def eval(session):
    """Retrieval quality on every set in ../shared/eval-data (docs/evaluation.md)."""
    args = session.posargs or ["../shared/eval-data/gnome-help-desc-C", "../shared/eval-data/lo-help-index-en-US",
                               "../shared/eval-data/lo-help-index-ru", "--index-dir", "data/eval-idx"]
    session.run("uv", "run", "python", "scripts/eval.py", *args, external=True)


@nox.session
def bench(session):
    """Ingest and query speed (see scripts/bench.py --help)."""
    session.run("uv", "run", "python", "scripts/bench.py", *session.posargs, external=True)
