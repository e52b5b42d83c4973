"""`minirag query -- -Wall --top-k 3`: after `--` every argument is a word, so the options there are
left over. The refusal had offered the very options typed (`unrecognized arguments: --top-k 3 (did
you mean --top-k?)`); it now says they came after `--` and to put them before it."""

from __future__ import annotations


def test_e2e84_options_after_a_double_dash_are_told_to_go_before_it(run_cli):
    done = run_cli("query", "--", "-Wall", "--top-k", "3", "--json")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "did you mean --top-k" not in done.stderr, done.stderr
    assert done.stderr.startswith("minirag: error: unrecognized arguments: --top-k 3 --json; options after -- "
                                  "are read as words, not options: put --top-k, --json before the --"), done.stderr


def test_e2e84_a_mistyped_option_after_a_double_dash_is_still_named(run_cli):
    done = run_cli("query", "--", "-Wall", "--topk", "3")
    assert "(did you mean --top-k?)" in done.stderr and "before the --" not in done.stderr, done.stderr
