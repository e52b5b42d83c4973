"""Org's verbatim (`=org-ql=`) and code (`~magit-init~`) read as the exported page shows them, as code,
not between the marks no reader sees; pieces of Magit's 3.2.0 release notes (Debian elpa-magit) and
org-ql's README.org. A mark Org's own rules do not pair (`a=b`, a path's `~/`) stays as written."""

from helpers.growth import grows_linearly

from minirag.ingest.org_text import org_to_markdown

MAGIT = """** Changes since v3.1.0

- The default of ~magit-bury-buffer-function~ was changed to
  ~magit-mode-quit-window~.  #4412

It includes three libraries: The =org-ql= library is flexible and may be used as a backend for other tools.

| Command      | Key         |
|--------------+-------------|
| =magit-init= | ~I~ (was ~i~) |
"""


def test_verbatim_and_code_marks_read_as_code():
    markdown, _ = org_to_markdown(MAGIT)
    assert markdown == (
        "## Changes since v3.1.0\n\n- The default of `magit-bury-buffer-function` was changed to\n"
        "  `magit-mode-quit-window`.  #4412\n\n"
        "It includes three libraries: The `org-ql` library is flexible and may be used as a backend for other tools.\n\n"
        "| Command      | Key         |\n|--------------|-------------|\n| `magit-init` | `I` (was `i`) |\n")


def test_marks_org_does_not_pair_stay_as_written():
    for text in ("x = y = z", "a=b=c", "Edit ~/.emacs.d/init.el or ~/.config/emacs~backup", "x == y",
                 "see [[https://example.com/?a=1&b=2][the =query= page]] now", "=a =b", "~ ~"):
        markdown, _ = org_to_markdown(text)
        assert markdown == text.replace("[[https://example.com/?a=1&b=2][the =query= page]]",
                                        "[the =query= page](https://example.com/?a=1&b=2)") + "\n"


def test_a_line_of_unpaired_marks_is_read_in_linear_time():
    assert grows_linearly(org_to_markdown, lambda repeats: " =a ~b" * repeats + "\n")
