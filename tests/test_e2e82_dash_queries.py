"""A query that is one word opening with a dash (a compiler flag, a git option) is read by argparse
as an unknown option, which then asked for the QUERY it had taken: the line says how to search for it."""

from __future__ import annotations

import pytest
from test_cli_errors import run

from minirag import cli_parser


@pytest.mark.parametrize("argv", [["query", "-Wall"], ["query", "--no-verify", "--top-k", "3"],
                                  ["query", "--top-k", "3", "-fPIC"]])
def test_e2e82_a_query_read_as_an_option_is_told_to_go_after_a_double_dash(capsys, argv):
    word = next(a for a in argv[1:] if a.startswith("-") and a != "--top-k")
    code, err = run(argv, capsys)
    lines = err.splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert f"; {word} reads as an option: to search for it, put -- before it (`minirag query -- {word}`)" \
        in lines[0], err


def test_e2e82_the_double_dash_it_names_searches_for_the_word():
    parser = cli_parser.build_parser()
    args = cli_parser.parse_args(parser, cli_parser.command_first(parser, ["query", "--top-k", "3", "--", "-Wall"]))
    assert args.text == "-Wall" and args.top_k == 3


def test_e2e82_a_known_option_without_a_query_gets_no_such_hint(capsys):
    code, err = run(["query", "--json"], capsys)
    assert code == 2 and "required: QUERY" in err and "reads as an option" not in err, err
