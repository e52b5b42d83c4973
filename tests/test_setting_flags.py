"""The CLI's configuration flags come from SETTINGS: each row says its flags, and the parser, the
configuration's resolution and the read-only check all take them from there, so a setting's flag
is one row."""

from __future__ import annotations

import argparse
import dataclasses

import pytest

from minirag import config
from minirag.cli_parser import build_parser
from minirag.config import (
    SETTINGS,
    Flag,
    load_config,
    load_config_from,
    read_only_requested,
    setting_flags,
)


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _option(parser: argparse.ArgumentParser, name: str) -> argparse.Action | None:
    return next((a for a in parser._actions if name in a.option_strings), None)


@pytest.fixture
def with_rows(monkeypatch):
    """SETTINGS (and its index by name) with some rows replaced or added."""

    def use(*rows: config.Setting) -> None:
        table = {s.name: s for s in SETTINGS}
        table.update({row.name: row for row in rows})
        monkeypatch.setattr(config, "SETTINGS", tuple(table.values()))
        monkeypatch.setattr(config, "SETTING", table)

    return use


def test_every_flag_of_a_setting_is_on_its_commands_as_its_row_says():
    commands = _commands(build_parser())
    assert {f.shown for f in setting_flags()} >= {"--base-dir", "--db-path", "--read-only", "--include",
                                                  "serve --watch", "watch --poll", "serve --token"}
    for flag in setting_flags():
        for name, parser in commands.items():
            action = _option(parser, flag.name)
            if flag.command not in (None, name):
                assert action is None or action.dest != flag.key, (name, flag)
                continue
            assert action is not None, (name, flag)
            assert (action.dest, action.help, action.metavar) == (flag.key, flag.help, flag.metavar)
            assert (action.nargs == 0) == flag.switch and (action.default is None)
            assert isinstance(action, argparse._AppendAction) == flag.repeatable


def test_a_flag_added_to_a_row_is_parsed_and_wins_over_the_variable(with_rows, tmp_path):
    row = config.SETTING["RAG_MAX_FILES"]
    with_rows(dataclasses.replace(row, flags=(Flag("--max-files", "keep hits from the first N sources"),)))
    parser = build_parser()
    assert "--max-files" in _commands(parser)["query"].format_help()
    args = parser.parse_args(["query", "otters", "--max-files", "2", "--base-dir", str(tmp_path)])
    assert load_config_from(args, env={"RAG_MAX_FILES": "7"}).max_files == 2
    args = parser.parse_args(["query", "otters", "--base-dir", str(tmp_path)])
    assert load_config_from(args, env={"RAG_MAX_FILES": "7"}).max_files == 7
    args = parser.parse_args(["status", "--max-files", "none", "--base-dir", str(tmp_path)])
    with pytest.raises(config.ConfigError, match="RAG_MAX_FILES must be an integer, at least 1, got 'none'"):
        load_config_from(args, env={})


def test_a_new_switch_row_is_a_switch_on_every_command(with_rows):
    with_rows(config.Setting("MINIRAG_EXAMPLE", "off", "an example", values=config.BOOLEAN_VALUES,
                             flags=(Flag("--example", "an example switch", switch=True),)))
    for name, parser in _commands(build_parser()).items():
        action = _option(parser, "--example")
        assert action is not None and action.nargs == 0 and action.dest == "example", name
    args = build_parser().parse_args(["list", "--example"])
    assert args.example is True


def test_load_config_takes_the_flags_of_the_rows_and_no_others(tmp_path):
    assert load_config(env={}, cwd=tmp_path, base_dirs=[str(tmp_path)], read_only=True).read_only
    with pytest.raises(TypeError, match="no_such_flag"):
        load_config(env={}, cwd=tmp_path, base_dirs=[str(tmp_path)], no_such_flag="x")


def test_read_only_is_found_from_its_rows_flag_even_when_the_rest_is_broken():
    args = build_parser().parse_args(["serve", "--read-only", "--db-path", "/nonexistent/x.db"])
    assert read_only_requested(args, env={"MINIRAG_READ_ONLY": "bogus"})
    args = build_parser().parse_args(["serve"])
    assert read_only_requested(args, env={"MINIRAG_READ_ONLY": "yes"})
    assert not read_only_requested(args, env={"MINIRAG_READ_ONLY": "bogus"})


def test_watch_poll_is_the_configurations_polling(tmp_path):
    args = build_parser().parse_args(["watch", "--poll", "--base-dir", str(tmp_path)])
    assert args.poll is True
    assert load_config_from(args, env={}).watch_polling
    args = build_parser().parse_args(["watch", "--base-dir", str(tmp_path)])
    assert not load_config_from(args, env={}).watch_polling
    assert load_config_from(args, env={"MINIRAG_WATCH": "poll"}).watch_polling
