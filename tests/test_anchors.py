"""A link's `#fragment` names a heading: `read_file` of `page.md#installation` (a link followed from a
passage) starts the page at that heading (anchors.py finds it, as GitHub and pandoc name headings)."""

from __future__ import annotations

import json

import pytest
from conftest import write

from minirag.anchors import heading_offset

TEXT = """# Project

Intro.

## Installation

pip install it.

```bash
## Not a heading
```

## Usage: the **CLI** and [the API](api.md)

Run it.

## Installation

A second one, for Windows.
"""


@pytest.mark.parametrize(("fragment", "heading"), [
    ("project", "# Project"),
    ("installation", "## Installation"),
    ("Installation", "## Installation"),  # written by hand, in another case
    ("installation-1", "## Installation\n\nA second"),  # GitHub numbers a repeated heading's anchors
    ("usage-the-cli-and-the-api", "## Usage"),  # markup and punctuation leave the slug, as on GitHub
    ("usage%3A-the-cli-and-the-api", "## Usage"),  # percent-escaped in the link
    ("usage_the_cli_and_the_api", "## Usage"),  # another tool's slug: the same letters and digits
])
def test_a_fragment_names_the_heading_whose_slug_it_is(fragment, heading):
    at = heading_offset(TEXT, fragment)
    assert at is not None and TEXT[at:].startswith(heading), (fragment, at)


def test_an_api_entry_is_found_by_its_qualified_name_at_the_start_of_a_line():
    """Sphinx and Javadoc anchor an entry by its name (`tomllib.html#tomllib.load`), on no heading."""
    text = "# tomllib\n\nSee tomllib.load below.\n\ntomllib.loads(s)\n\ntomllib.load(*fp*, /)\n\nRead a TOML file.\n"
    at = heading_offset(text, "tomllib.load")
    assert at is not None and text[at:].startswith("tomllib.load(*fp*")
    assert heading_offset(text, "tomllib") == 0  # a heading first


@pytest.mark.parametrize("fragment", ["not-a-heading", "", "nothing-here", "installation-2"])
def test_a_fragment_that_names_no_heading_outside_code_is_none(fragment):
    assert heading_offset(TEXT, fragment) is None


def test_the_cli_reads_a_path_with_a_fragment_from_that_heading(run_cli, cli_env, docs):
    write(docs / "guide.md", TEXT)
    assert run_cli("sync").returncode == 0
    done = run_cli("read", docs / "guide.md#usage-the-cli-and-the-api")
    assert done.returncode == 0 and done.stdout.startswith("## Usage: the **CLI**"), done
    shaped = json.loads(run_cli("read", "--json", docs / "guide.md#installation-1").stdout)
    assert shaped["text"].startswith("## Installation\n\nA second") and shaped["fragment"] == "installation-1"


def test_finding_a_heading_takes_time_in_proportion_to_the_text():
    # A heading line holding a long run of spaces made the heading pattern backtrack over every
    # split of them: 8,000 spaces took 0.5 s, so a read of a page with a fragment could be made to hang.
    from helpers.growth import grows_linearly

    from minirag.anchors import heading_offset

    assert grows_linearly(lambda text: heading_offset(text, "nothing-here"),
                          lambda repeats: "# a" + " " * (repeats * 4) + "x\n\nbody\n")
