"""Manual pages (roff: man(7), mdoc(7)) read as their text and headings; `file.1` only when it is one."""

from __future__ import annotations

import gzip
import json
import shutil

import pytest
from conftest import FIXTURES, write
from helpers.growth import grows_linearly

from minirag.errors import ConversionFailed
from minirag.ingest.convert import convert_document, convert_fetched
from minirag.ingest.roff_text import roff_to_markdown

DOCS = FIXTURES / "docs"
REAL = ("man_coreutils_ls.1", "man_git_commit.1.gz", "man_file_mdoc.1")


@pytest.fixture
def manual_folder(docs):
    for name in REAL:
        shutil.copy(DOCS / name, docs / name)
    write(docs / "syslog.1", "Dec  6 18:00:01 host CRON[42]: session opened for user root\n")
    write(docs / "LGPL-2.1", "GNU LESSER GENERAL PUBLIC LICENSE\n")
    (docs / "syslog.2.gz").write_bytes(gzip.compress(b"Dec  5 18:00:01 host CRON[41]: session closed\n"))
    write(docs / "tea.man", ".TH TEA 7\n.SH NAME\ntea \\- how to brew oolong\n.SH STEEPING\nSteep for three "
                            "minutes at \\fB90\\(de\\fR.\n")
    return docs


def test_manual_pages_are_synced_listed_read_and_found_and_other_numbered_files_left_out(
        run_cli, cli_env, manual_folder):
    docs = manual_folder
    done = run_cli("sync", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ingested"] == 5  # a.md, the three real pages, tea.man
    listing = run_cli("list").stdout
    for name in (*REAL, "tea.man"):
        assert str(docs / name) in listing
    for name in ("syslog.1", "LGPL-2.1", "syslog.2.gz"):
        assert str(docs / name) not in listing
    assert "1 .gz" in listing and "2 without a suffix" in listing, listing  # `.1` is a version's digit

    ls = json.loads(run_cli("read", "--json", docs / "man_coreutils_ls.1").stdout)
    assert ls["title"] == "ls(1) — list directory contents"
    assert "## DESCRIPTION" in ls["text"] and "- -a, --all\n  do not ignore entries starting with ." in ls["text"]
    commit = run_cli("read", docs / "man_git_commit.1.gz").stdout
    assert "Record changes to the repository" in commit and "\\f" not in commit and ".ie" not in commit
    assert "git-add(1)" in commit and "git commit [-a | --interactive | --patch]" in commit
    mdoc = json.loads(run_cli("read", "--json", docs / "man_file_mdoc.1").stdout)
    assert mdoc["title"] == "file(1) — determine file type"
    assert "[--apple]" in mdoc["text"] and "- -b, --brief\n  Do not prepend filenames" in mdoc["text"]
    assert "## OPTIONS" in mdoc["text"] and "stat(2)" in mdoc["text"]
    assert "Steep for three minutes at 90°." in run_cli("read", docs / "tea.man").stdout

    found = json.loads(run_cli("query", "--json", "do not prepend filenames to output lines brief mode").stdout)
    assert found["results"][0]["source"] == str(docs / "man_file_mdoc.1")


def test_a_numbered_file_that_is_no_manual_page_named_on_its_own_is_refused_in_one_line(app, manual_folder):
    with pytest.raises(Exception) as refused:
        app.ingest_file(str(manual_folder / "syslog.1"))
    assert str(refused.value) == (f"{manual_folder / 'syslog.1'}: named as a manual page (section 1) but does not "
                                  "begin as one (roff: .TH, .Dd or a comment); not read as a document")
    with pytest.raises(ConversionFailed, match="does not begin as a manual page"):
        convert_document(b"just a log line\n", ".1", "syslog.1")


MAN = r""".\" A page written for this test.
'\" t
.de XX
.SH NEVER SHOWN
..
.ds Qq quoted
.TH KETTLE 1 "2026-12-06" "kettle 1.0" "User Commands"
.SH NAME
kettle, kettled \- boil water on the command line
.SH SYNOPSIS
.B kettle
.RB [ \-t
.IR temperature ]
.SH DESCRIPTION
.PP
\fBkettle\fR heats \fIwater\fP in \f(CWthe pot\fR \(em fast \(en and \e safely \(aqhere\(aq \(dqthere\(dq. \" a comment
.SS "Safety notes"
.LP
Never leave it on.
.TP
.B \-t, \-\-temperature
the target, in \[u00B0]C
.IP \(bu 2
a bulleted point
.RS
.P
indented paragraph
.RE
.HP
hanging paragraph
.nf
  kettle \-t 90
    wait
.fi
.EX
code example line
.EE
.if n \{\
.SH IF BLOCK ON A TERMINAL
.\}
.ie t .SH TROFF ONLY
.el .SH NROFF ONLY
.so man7/other.7
.TS
tab(@);
l l.
Mode@Temperature
_
T{
green tea
T}@80
.TE
The end.
See the
.UR https://example.org/kettle
project page
.UE .
"""


def test_man_macros_read_as_markdown():
    page = roff_to_markdown(MAN)
    assert page.title == "kettle(1) — boil water on the command line"
    assert page.included == ("man7/other.7",)
    text = page.markdown
    assert text.startswith("# kettle(1) — boil water on the command line\n\n## NAME\n\n"
                           "kettle, kettled - boil water on the command line\n\n## SYNOPSIS\n\nkettle [-t temperature]")
    assert "kettle heats water in the pot — fast – and \\ safely 'here' \"there\"." in text
    assert "### Safety notes\n\nNever leave it on." in text
    assert "- -t, --temperature\n  the target, in °C" in text
    assert "\n\n- a bulleted point\n\n" in text
    assert "The end. See the project page <https://example.org/kettle>." in text
    assert "indented paragraph\n\nhanging paragraph\n\n```\n  kettle -t 90\n    wait\n```" in text
    assert "```\ncode example line\n```" in text
    assert "Mode | Temperature" in text and "green tea | 80" in text and "The end." in text
    assert "## IF BLOCK ON A TERMINAL" in text and "## NROFF ONLY" in text  # what man shows on a terminal
    for never in ("NEVER SHOWN", "TROFF ONLY", "a comment", "XX", "tab(@)", "Qq"):
        assert never not in text


MDOC = """.Dd December 6, 2026
.Dt KETTLE 1
.Os
.Sh NAME
.Nm kettle
.Nd boil water
.Sh SYNOPSIS
.Nm
.Op Fl qv
.Op Fl t Ar degrees
.Ar file ...
.Sh DESCRIPTION
The
.Nm
utility heats water; see
.Xr tea 7 ,
.Dq green
and
.Pq Em oolong .
.Bl -tag -width Ds
.It Fl t Ar degrees
Target temperature.
.It Fl v
Verbose.
.El
.Bl -bullet
.It
One bullet.
.El
.Bd -literal -offset indent
kettle -t 80
.Ed
.Fn boil "int degrees" "int seconds"
.In kettle.h
.Ex -std
"""


def test_mdoc_macros_read_as_markdown():
    page = roff_to_markdown(MDOC)
    assert page.title == "kettle(1) — boil water"
    text = page.markdown
    assert "## NAME\n\nkettle — boil water" in text
    assert "kettle [-qv] [-t degrees] file ..." in text
    assert "The kettle utility heats water; see tea(7), “green” and (oolong)." in text
    assert "- -t degrees\n  Target temperature.\n\n- -v\n  Verbose." in text
    assert "- One bullet." in text and "```\nkettle -t 80\n```" in text
    assert "boil(int degrees, int seconds)" in text and "<kettle.h>" in text
    assert "The kettle utility exits 0 on success" in text


def test_a_page_that_only_includes_another_says_so():
    converted = convert_document(b".so man1/git-commit.1\n", ".man", "link.man")
    assert converted.markdown == ""
    assert converted.note == "its text is another page's (man1/git-commit.1), which a manual page's .so names; not followed"


def test_a_fetched_manual_page_reads_as_one():
    body = (DOCS / "man_coreutils_ls.1").read_bytes()
    converted = convert_fetched(body, mimetype="text/plain", charset=None, url="https://example.org/ls.1")
    assert converted.metadata_title == "ls(1) — list directory contents"
    gz = (DOCS / "man_git_commit.1.gz").read_bytes()
    converted = convert_fetched(gz, mimetype="application/gzip", charset=None, url="https://example.org/git-commit.1.gz")
    assert converted.metadata_title == "git-commit(1) — Record changes to the repository"


@pytest.mark.parametrize("unit", [
    ".TH X 1\n.SH A\n\\fBbold\\fR text \\(em \\- more \\*(lq words \\*(rq\n.TP\n.B \\-x\nbody\n",
    ".Sh A\n.Op Fl a Ar b Op Fl c Dq d Pq e\n.It Fl x Ar y Ns Ar z\n",
    "\\" * 7 + "f(" + "\\s-1" * 5 + "\\h'" + "x" * 30 + "\n",  # escapes half-open, runs of backslashes
    ".if n \\{\\{\\{ text\n",  # blocks opened, never closed
    ".de XX\n" + "line\n" * 3,  # a definition never ended
    ".Op " + "Op " * 40 + "x\n",  # enclosures to the line's end, nested
    ".TS\nl.\n" + "a\tb\t" * 20 + "\n",  # a table never ended
    "words \\\n",  # lines continued, all one line
    ".TS\nl.\nT{\n" + "cell text\n" * 5,  # a cell's text block never closed
    ".ds X \\*X\\*X\n\\*X\n",  # strings naming themselves
    "word\\c\n",  # text lines running on into the next, all one line
    "\\m[" + "\\s'" + "\\C'" + "\\N'9" * 10 + "\\(:" * 5 + "\\[u0065" + "_0301" * 10 + "\n",  # half-open, long
    ".ie n .if !t .el .IP \\{\\\n",  # conditionals taken, blocks opened and continued
    ".Sq \\&: \\*[Gt] \\&Op\n",  # mdoc words with escapes
    "text\n=\n", "* _ ", "- x\n", "1. a\n",  # lines read as Markdown's structure, escaped
    "\\o'e\\(aa'\\Z'\\o'x\\zo", "\\o'" + "\\(aa" * 60 + "'",  # overstrikes, half-open and long
])
def test_reading_a_page_takes_time_in_proportion_to_its_length(unit):
    assert grows_linearly(roff_to_markdown, lambda n: unit * n)
    assert grows_linearly(roff_to_markdown, lambda n: unit.rstrip("\n") * n + "\n")  # all on one line


@pytest.mark.parametrize(("head", "is_page"), [
    (b'.\\" a comment first\n.TH X 1\n', True),
    (b"\n\n.TH X 1\n", True),
    (b".Dd May 1, 2026\n.Dt X 1\n", True),
    (b".lf 1 stdin\n.ds VN 4.95\n.TH LSOF 8\n", True),  # lsof(8): requests before its title
    (b".de CW\n.sp\n.nf\n..\n.TH X 1\n", True),  # a macro defined first (fakeroot's pages)
    (b".ig\nCopyright (c) 2002 someone\n..\n\\# a groff comment\n.ds We top\n", True),  # top(1)
    (b'\\"Shamelessly copied from zmore.1\n.TH BZMORE 1\n', True),  # bzmore(1)
    (b".so man5/pam_env.conf.5\n", False),  # a link to another page: no text of its own
    (b"Dec  6 18:00:01 host CRON[42]: session opened\n", False),  # a rotated log
    (b"GNU LESSER GENERAL PUBLIC LICENSE\n.TH X 1\n", False),  # text first
])
def test_a_page_is_roff_when_a_comment_or_its_title_comes_before_any_text(head, is_page):
    from minirag.ingest.doc_names import is_roff_head

    assert is_roff_head(head) is is_page


def test_a_pages_own_strings_are_expanded_and_their_expansions_bounded():
    page = roff_to_markdown('.ds WE \\fBtop\\fR\n.TH TOP 1\n.SH SYNOPSIS\n\\*(WE [options]\nlong dashes\\*(--like this\n')
    assert "top [options] long dashes—like this" in page.markdown
    bomb = ".ds X " + "y" * 1000 + "\n.TH X 1\n.SH A\n" + "\\*X" * 200_000 + "\n"  # 600 kB naming 200 MB
    assert len(roff_to_markdown(bomb).markdown) < 1_100_000


def test_an_item_tag_spanning_lines_reads_as_one_and_one_never_closed_costs_time_in_proportion():
    page = roff_to_markdown(".Dd x\n.Dt T 1\n.Sh A\n.Bl -tag\n.It Xo\n.Fl o\n.Ar option\n.Xc\nBody text.\n.El\n")
    assert "- -o option\n  Body text." in page.markdown
    assert grows_linearly(roff_to_markdown, lambda n: ".Bl -tag\n.It Xo\n" + ".Fl a\n" * n)


def test_the_title_says_what_the_whole_name_paragraph_says_in_any_language():
    ascii_page = roff_to_markdown(".TH ASCII 7\n.SH NAME\nascii \\- ASCII character set encoded in octal, decimal,\n"
                                  "and hexadecimal\n.SH DESCRIPTION\nASCII is a 7-bit code.\n")
    assert ascii_page.title == "ascii(7) — ASCII character set encoded in octal, decimal, and hexadecimal"
    german = roff_to_markdown('.TH FAKEROOT 1\n.SH BEZEICHNUNG\nfakeroot \\- einen Befehl ausführen\n')
    assert german.title == "fakeroot(1) — einen Befehl ausführen"


def test_a_table_cell_never_closed_keeps_its_text():
    assert "cell text more" in roff_to_markdown(".TH X 1\n.SH A\n.TS\nl.\nT{\ncell text\nmore\n").markdown


def test_reading_or_ingesting_a_numbered_file_that_is_no_page_says_why_it_is_not_indexed(run_cli, cli_env, docs):
    write(docs / "syslog.1", "Dec  6 18:00:01 host CRON[42]: session opened for user root\n")
    assert run_cli("sync").returncode == 0
    why = "named as a manual page (section 1) but does not begin as one (roff: .TH, .Dd or a comment)"
    read = run_cli("read", docs / "syslog.1")
    assert read.returncode != 0 and f"the file is on disk but never indexed: {why}" in read.stderr, read.stderr
    ingest = run_cli("ingest", docs / "syslog.1")
    assert why in ingest.stdout + ingest.stderr and "Traceback" not in ingest.stderr, ingest


def test_a_conditional_for_a_terminal_reads_its_line_as_man_on_a_terminal_shows_it():
    # pod2man's items (openssl's EVP_SIGNATURE-RSA(7ssl)): the `n` (terminal) branch is what man
    # shows; a `t` (typesetter) branch and a condition the reader cannot tell stay out.
    page = roff_to_markdown(
        '.TH EVP 7ssl\n.SH PARAMETERS\nOne of:\n.RS 4\n'
        '.ie n .IP """none"" (\\fB\\s-1OSSL_PKEY_RSA_PAD_MODE_NONE\\s0\\fR)" 4\n'
        ".el .IP \"``none'' (\\fB\\s-1OSSL_PKEY_RSA_PAD_MODE_NONE\\s0\\fR)\" 4\n"
        '.IX Item "none"\nNo padding.\n'
        '.ie t .IP "typeset only" 4\n.el .IP "terminal too" 4\nAnother.\n'
        '.if n .B on a terminal\n.if t .B on paper\n.if !t .B not paper\n.if !n .B not terminal\n'
        '.ie \\n(.g .ds Aq \\(aq\n.el .ds Aq \'\n'
        '.if \\n(.H>23 .B unknown\n'
        '.el\\{\\\nprinted nowhere\n.\\}\n').markdown
    assert '- "none" (OSSL_PKEY_RSA_PAD_MODE_NONE)\n  No padding.' in page
    assert "``none''" not in page
    assert "- terminal too\n  Another." in page and "typeset only" not in page
    assert "on a terminal" in page and "not paper" in page
    assert "on paper" not in page and "not terminal" not in page and "unknown" not in page
    assert "printed nowhere" not in page and "\\" not in page


def test_asciidoctors_link_and_mail_macros_keep_their_text_and_address():
    # util-linux's pages (wdctl(8)): Asciidoctor defines .URL and .MTO in the page's preamble.
    page = roff_to_markdown(
        '.TH WDCTL 8\n.SH "AUTHORS"\n.sp\n.MTO "kzak\\(atredhat.com" "Karel Zak" ","\n'
        '.MTO "lennart\\(atpoettering.net" "Lennart Poettering" ""\n.SH "REPORTING BUGS"\n.sp\n'
        'For bug reports, use the issue tracker at \\c\n'
        '.URL "https://github.com/util\\-linux/util\\-linux/issues" "" "."\n.SH AVAILABILITY\n'
        'It can be downloaded from \\c\n.URL "https://www.kernel.org/pub/linux/utils/" "Linux Kernel Archive" "."\n'
    ).markdown
    assert "Karel Zak <mailto:kzak@redhat.com>," in page
    assert "Lennart Poettering <mailto:lennart@poettering.net>" in page
    assert "<https://github.com/util-linux/util-linux/issues>." in page
    assert "Linux Kernel Archive <https://www.kernel.org/pub/linux/utils/>." in page


@pytest.mark.parametrize(("source", "printed"), [
    ("The \\m[blue]blue\\m[] word", "The blue word"),  # DocBook's pages colour links (188 of /usr/share/man's)
    ("a \\M[red]box\\M[] and \\F[HR]font\\F[] \\O[0]x\\O1", "a box and font x"),
    ("Size \\s[+2]big\\s[0] and \\s'+2'big\\s'0' and \\s(12x\\s0", "Size big and big and x"),
    ("Char \\N'65' and \\N'233'", "Char A and é"),
    ("a \\C'em' b \\C'u00E9'", "a — b é"),
    ("M\\(:unchen, caf\\('e, \\[:a]\\(ss \\(,c \\[u0065_0301] \\(`a \\(^o \\(~n \\(oa \\(/o \\(ae", "München, café, äß ç é à ô ñ å ø æ"),
    ("foo\\c\nbar", "foobar"),
    # Overstrikes print once: a letter and its accent composed, else the last (what `col -b` keeps);
    # `\Z'...'` its text (at no width); `\z` the one character after it.
    ("x\\o'e\\(aa'y \\o'\\(aa\\(ga' \\o'+|' \\Z'abc'd \\zo\\z\\(bu.", "xéy ` | abcd o•."),
])
def test_escapes_print_what_a_terminal_shows(source, printed):
    assert roff_to_markdown(f".TH X 1\n.SH D\n{source}\n").markdown.split("\n\n")[-1].strip() == printed


@pytest.mark.parametrize("nested", [".if n ", ".ie n ", ".if n \\{", ".el ", ".if t \\{"])
def test_conditionals_nested_on_one_line_or_in_blocks_cost_time_in_proportion(nested):
    assert grows_linearly(roff_to_markdown, lambda n: ".TH X 1\n" + nested * (20 * n) + "text\n")
    assert grows_linearly(roff_to_markdown, lambda n: ".TH X 1\n" + (nested + "\n") * n + "text\n")


def test_a_macros_argument_holds_its_escaped_spaces():
    # glibc's memusagestat(1): `\ ` is a space inside one argument, not between two.
    page = roff_to_markdown(".TH X 1\n.SH OPTIONS\n.TP\n.BI \\-o\\  file \\fR,\\ \\fB\\-\\-output= file\n"
                            "Name of the output file.\n.B a\\ b c\n").markdown
    assert "- -o file, --output=file\n  Name of the output file. a b c" in page


def test_an_mdoc_macros_words_print_their_escapes_and_mdocs_strings():
    # crypt(5), dash(1), libmagic(3): `\&` keeps a word from being a macro or a mark, and goes.
    page = roff_to_markdown(
        ".Dd May 1, 2026\n.Dt X 1\n.Sh DESCRIPTION\nSalt characters:\n.Sq \\&: ,\n.Sq \\&\\e .\n"
        ".Dq \\*[Gt] .\n.Li \\*[Lt]newline\\*[Gt] \\&( \\&)\n.Sq \\&Op\n.An -nosplit\n.An M\\(oans Rullg\\(oard\n"
        ".Fl \\-help\n.Ar n\\&1\n").markdown
    assert "‘:’, ‘\\’. “>”. <newline> ( ) ‘Op’ Måns Rullgård --help n1" in page
    assert "nosplit" not in page  # `.An -nosplit`: how authors' names break, no word


def test_pod2mans_verbatim_blocks_are_code():
    # CA.pl(1ssl) and the other pod2man pages (202 of /usr/share/man's and manpages'): its preamble
    # defines .Vb as .nf and .Ve as .fi; a shell comment in one is no heading, its lines stay lines.
    page = roff_to_markdown(
        '.de Vb\n.ft CW\n.nf\n.ne \\\\$1\n..\n.de Ve\n.ft R\n.fi\n..\n.TH CA.PL 1ssl\n.SH EXAMPLES\n'
        "Complete example:\n.PP\n.Vb 4\n\\& # make the CA\n\\& CA.pl \\-newca\n\\& CA.pl \\-sign\n.Ve\n.PP\nDone.\n"
    ).markdown
    assert "Complete example:\n\n```\n # make the CA\n CA.pl -newca\n CA.pl -sign\n```\n\nDone." in page


def test_an_items_second_paragraph_stays_in_the_item():
    # man-pages' style (.TP tag, text, .IP, more text) and mdoc's (.It, text, .Pp, more text).
    man = roff_to_markdown(".TH X 1\n.SH OPTIONS\n.TP\n.B \\-x\nFirst paragraph.\n.IP\nSecond paragraph.\n"
                           ".TP\n.B \\-y\nOther.\n.PP\nAfter the list.\n").markdown
    assert "- -x\n  First paragraph.\n\n  Second paragraph.\n\n- -y\n  Other.\n\nAfter the list." in man
    mdoc = roff_to_markdown(".Dd May 1, 2026\n.Dt X 1\n.Sh OPTIONS\n.Bl -tag -width Ds\n.It Fl x\nFirst paragraph.\n"
                            ".Pp\nSecond paragraph.\n.It Fl y\nOther.\n.El\n.Pp\nAfter the list.\n").markdown
    assert "- -x\n  First paragraph.\n\n  Second paragraph.\n\n- -y\n  Other.\n\nAfter the list." in mdoc


def _blocks(markdown: str) -> list[str]:
    """The kinds of block a CommonMark reader (with GFM tables) makes of `markdown`, in order."""
    from markdown_it import MarkdownIt

    return [token.type.removesuffix("_open") for token in MarkdownIt("commonmark").enable("table").parse(markdown)
            if token.nesting == 1 or token.type in ("hr", "fence", "code_block")]


def test_a_text_line_that_reads_as_markdown_structure_stays_text():
    # Lines of real pages: xxd(1)'s French (`- convertit`, `+ indique`), man(1)'s Danish history
    # (`23. dec 1992`), dpkg(1) (`>. The < and >`), git-config(1) (`=======` under a line),
    # ctags-universal(1) (`| for selection`), gcloud's (```` ```. Use a full ````), find(1)'s `--`.
    # Each line broken (`.br`), as filling would otherwise run it on after the line before.
    lines = ("Versions:\n- convertit en hexad\\(`ecimal.\n+ indique que le d\\('ecalage est relatif\n"
             "23. dec 1992: Rik Faith\n1) first\n>. The < and > operators are obsolete\n=======\n\\&---\n"
             "\\&* * *\n\\&___\n| for selection\n\\`\\`\\`. Use a full path\n~~~ tilde\nlast line\n-")
    page = roff_to_markdown(
        ".TH X 1\n.SH NAME\nx \\- a page\n.SH DESCRIPTION\n" + lines.replace("\n", "\n.br\n")
        + "\n.TP\n.B \\-\\-\nEnds the options.\n.TP\n.B ---\nThree dashes.\n").markdown
    assert _blocks(page) == ["heading", "heading", "paragraph", "heading", "paragraph",
                             "bullet_list", "list_item", "paragraph", "list_item", "paragraph"], page
    for words in ("- convertit en hexadècimal.", "+ indique", "23. dec 1992", "1) first", ">. The <", "=======",
                  "---", "* * *", "___", "| for selection", "```. Use", "~~~ tilde", "last line\n-", "- --\n"):
        assert words in page.replace("\\", ""), words


def test_an_mdoc_standard_is_named_by_its_title_as_mandoc_and_groff_print_it():
    page = roff_to_markdown(".Dd May 1, 2026\n.Dt X 1\n.Sh STANDARDS\nThe\n.Nm\nutility conforms to\n"
                            ".St -p1003.1-2008 .\nIt is\n.St -isoC-99\nand\n.St -ansiC ,\nnot\n.St -susv9 .\n").markdown
    assert ("conforms to IEEE Std 1003.1-2008 (“POSIX.1”). It is ISO/IEC 9899:1999 (“ISO C99”) and "
            "ANSI X3.159-1989 (“ANSI C89”), not -susv9.") in page  # one no table names: as written


def test_a_pages_own_macros_print_their_text_with_its_arguments():
    # bash(1)'s .FN (its FILES), strace(1)'s .OM and .OR (its SYNOPSIS, an argument count's
    # conditional), zipinfo(1)'s .X (its examples): each defined with `.de` and its text had been lost.
    page = roff_to_markdown(
        ".de FN\n\\fI\\|\\\\$1\\|\\fP\n..\n"
        ".de OM\n.  ie \\\\n(.$-1 \\\n.    RI \"[\\fB\\\\$1\\fP\" \"\\ \\\\$2\" \"]...\\&\"\n.  el \\\n"
        ".    RB \"[\" \"\\\\$1\" \"]...\\&\"\n..\n"
        ".de OR\n.  ie \\\\n(.$-1 \\\n.    RI \"\\fB\\\\$1\\fP\" \"\\ \\\\$2\"\n.  el \\\n.    BR \"\\\\$1\"\n..\n"
        ".de X\n.nf\n.ft CW\n\\&\\\\$1\n.ft\n.fi\n..\n"
        ".TH BASH 1\n.SH SYNOPSIS\n.B strace\n.OM \\-e expr\n.OR \\-p pid\n.OM \\-f\n"
        ".SH FILES\n.TP\n.FN /bin/bash\nThe bash executable\n.TP\n.FN ~/.bashrc\nThe startup file\n"
        ".SH EXAMPLES\nTo list:\n.X \"zipinfo -l storage\"\n").markdown
    assert "strace [-e expr]... -p pid [-f]..." in page, page
    assert "- /bin/bash\n  The bash executable\n\n- ~/.bashrc\n  The startup file" in page, page
    assert "To list:\n\n```\nzipinfo -l storage\n```" in page, page


@pytest.mark.parametrize("bomb", [
    ".de a\n.a\n.a\n..\n.a\n",  # calls itself twice: doubles at each level
    ".de a\n\\\\$1\\\\$1\\\\$1\\\\$1\\\\$1\\\\$1\\\\$1\\\\$1\n.b \\\\$1\\\\$1\n..\n.de b\n.a \\\\$1\\\\$1\n..\n.a xxxxxxxxxx\n",
    ".de a\n.de a\n.a\n..\n.a\n..\n.a\n",  # redefines itself as it runs
    ".de a\nx\n..\n.am a\n.a\n.a\n..\n.a\n",  # a call of itself appended to it, twice
])
def test_a_macro_that_calls_itself_or_doubles_its_text_is_cut_short(bomb):
    page = roff_to_markdown(".TH X 1\n.SH A\n" + bomb + "after\n")
    assert len(page.markdown) < 1_100_000 and page.markdown.rstrip().endswith("after"), page.markdown[-200:]


def test_reading_a_pages_macros_takes_time_in_proportion_to_its_uses():
    define = ".de FN\n\\fI\\\\$1\\fP \\\\$2\n..\n.de OM\n.ie \\\\n(.$-1 .RI \"[\\\\$1\" \" \\\\$2]\"\n.el .B x\n..\n"
    assert grows_linearly(roff_to_markdown, lambda n: ".TH X 1\n" + define + ".FN a b\n.OM \\-e x\n" * n)
    assert grows_linearly(roff_to_markdown, lambda n: ".TH X 1\n.de a\n" + "\\\\$1 words\n" * n + "..\n.a x\n.a y\n")
    # Each `.am` added to the macro by copying all of it: many small ones of one macro were n² steps.
    assert grows_linearly(roff_to_markdown, lambda n: ".TH X 1\n.de a\nx\n..\n" + ".am a\n\\\\$1 y\n..\n" * n + ".a z\n")


# llc(1)'s preamble, as docutils (rst2man) writes it: `.INDENT` is `.RS`, `.UNINDENT` is `.RE` and an `.in`.
_RST2MAN_PREAMBLE = (
    ".de1 INDENT\n. RS \\\\$1\n. nr rst2man-indent\\\\n[rst2man-indent-level] \\\\n[an-margin]\n"
    ". nr rst2man-indent-level +1\n..\n.de UNINDENT\n. RE\n.nr rst2man-indent-level -1\n"
    ".in \\\\n[rst2man-indent\\\\n[rst2man-indent-level]]u\n..\n")


def test_vertical_space_in_a_tagged_paragraph_keeps_the_text_after_it_in_the_item():
    # bash(1)'s substring expansion: `.sp 1` between an item's paragraphs, the text after it indented
    # under the item by groff and mandoc alike; `.br` is a line break there, no end either.
    bash = roff_to_markdown(
        ".TH BASH 1\n.SH EXPANSION\n.TP\n${\\fIparameter\\fP\\fB:\\fP\\fIoffset\\fP}\n\\fBSubstring Expansion\\fP.\n"
        "Expands to up to \\fIlength\\fP characters.\n.sp 1\nIf \\fIoffset\\fP evaluates to a number less than zero,\n"
        ".br\nthe value is used as an offset.\n.TP\n${\\fB!\\fP\\fIprefix\\fP\\fB*\\fP}\n\\fBNames matching prefix\\fP.\n"
        ".PP\nAfter the list.\n").markdown
    assert ("- ${parameter:offset}\n  Substring Expansion. Expands to up to length characters.\n\n"
            "  If offset evaluates to a number less than zero,\n  the value is used as an offset.\n\n"
            "- ${!prefix*}\n  Names matching prefix.\n\nAfter the list.") in bash
    # llc(1) (docutils): an item's text, `.sp`, a nested block, `.sp` and more of the item; the
    # `.UNINDENT` closing the `.INDENT` the list began in ends it, and what follows is no item's.
    llc = roff_to_markdown(
        _RST2MAN_PREAMBLE + '.TH "LLC" "1"\n.SH OPTIONS\n.INDENT 0.0\n.TP\n.B \\-\\-regalloc=<allocator>\n'
        "Specify the register allocator to use.\nValid register allocators are:\n.sp\n\\fIbasic\\fP\n.INDENT 7.0\n"
        ".INDENT 3.5\nBasic register allocator.\n.UNINDENT\n.UNINDENT\n.sp\n\\fIfast\\fP\n.INDENT 7.0\n.INDENT 3.5\n"
        "Fast register allocator.\n.UNINDENT\n.UNINDENT\n.UNINDENT\n.sp\nOther options are described below.\n").markdown
    assert ("- --regalloc=<allocator>\n  Specify the register allocator to use. Valid register allocators are:\n\n"
            "  basic\n  Basic register allocator.\n\n  fast\n  Fast register allocator.\n\n"
            "Other options are described below.") in llc
    # ld.so(8): a list within an item, `.RE`, `.IP`: groff indents the text as the outer item's, which
    # Markdown written in order cannot go back to; it stays under the last item, as it did.
    ld = roff_to_markdown(".TH LD.SO 8\n.SH ENVIRONMENT\n.TP\n.B LD_DEBUG\nOutput verbose debugging information.\n"
                          ".RS\n.TP 12\n.I versions\nDisplay version dependencies.\n.RE\n.IP\nSince glibc 2.3.4,\n"
                          ".B LD_DEBUG\nis ignored.\n").markdown
    assert ld.endswith("- versions\n  Display version dependencies.\n\n  Since glibc 2.3.4, LD_DEBUG is ignored.\n")
    # gpg-agent(1): the same list, `.RE`, and text with no `.IP`: groff puts it out of every item.
    gpg = roff_to_markdown(".TH GPG-AGENT 1\n.SH OPTIONS\n.TP\n.B --debug-level\nSelect the debug level.\n.RS\n"
                           ".TP\n.B guru\nAll of the debug messages you can get.\n.RE\n\nHow these messages are mapped "
                           "is not specified.\n").markdown
    assert gpg.endswith("- guru\n  All of the debug messages you can get.\n\nHow these messages are mapped is not specified.\n")
    # gcloud's pages (7,254 of them here): a bulleted list in an `.RS` block, `.RE`, `.sp`, and text at
    # the block's margin, no bullet's.
    gcloud = roff_to_markdown(".TH GCLOUD 1\n.SH POSITIONAL ARGUMENTS\nTo set the \\f5project\\fR attribute:\n.RS 2m\n"
                              ".IP \"\\(em\" 2m\nset the property \\f5core/project\\fR.\n.RE\n.sp\n\n"
                              "To set the \\f5location\\fR attribute:\n").markdown
    assert gcloud.endswith("- set the property core/project.\n\nTo set the location attribute:\n")

