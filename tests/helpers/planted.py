"""A synced index to plant a table in, and the refusal every command must give of a planted one."""

from __future__ import annotations

from pathlib import Path

import pytest

from minirag.errors import DamagedIndex


def synced_index(make_app, docs: Path, tmp_path: Path) -> Path:
    """The path of an index of one small page, synced and closed."""
    (docs / "page.md").write_text("# Page\n\nThe lighthouse keeper logs the tide.\n", encoding="utf-8")
    app = make_app()
    app.sync()
    app.close()
    return tmp_path / "index.db"


def refused_as_damage(make_app, make_config, table: str) -> str:
    """Query, read-only query and sync each refuse the index as damaged, naming `table` ("vector
    table"); doctor's index check fails naming it too. Returns that check's detail."""
    from minirag.doctor import run_checks

    with pytest.raises(DamagedIndex, match=rf"^the index .* is damaged \(.*{table}.*\); restore it"):
        make_app().query("lighthouse keeper tide")
    with pytest.raises(DamagedIndex, match=table):
        make_app({"MINIRAG_READ_ONLY": "1"}).query("lighthouse keeper tide")
    with pytest.raises(DamagedIndex, match=table):
        make_app().sync()
    check = next(c for c in run_checks(make_config()).checks if c.name == "index")
    assert not check.ok and table in check.detail, check.detail
    return check.detail
