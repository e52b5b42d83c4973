"""Manual pages read as man shows them: the lines of a paragraph filled, not broken where the source is.

DocBook's man pages (apt, shadow, dpkg: most of Debian's translated pages) put each marked-up word on
a source line of its own; read line by line, chage(1)'s "When MAX_DAYS plus LAST_DAY is less than
the current day" came out as five lines of one or two words. The pieces below are from Debian 12's
shadow-utils 4.13 chage(1) (German package, English text left untranslated) and apt 2.6 apt-get(8)
(Japanese) and chage(1) (Japanese).
"""

from __future__ import annotations

from helpers.growth import grows_linearly

from minirag.ingest.convert import convert_document
from minirag.ingest.roff_text import roff_to_markdown

CHAGE_DE = rb""".TH "CHAGE" "1" "07.04.2025" "shadow\-utils 4\&.13" "Dienstprogramme f\(:ur Benutzer"
.SH "OPTIONEN"
.PP
\fB\-M\fR, \fB\-\-maxdays\fR\ \&\fIMAX_DAYS\fR
.RS 4
Set the maximum number of days during which a password is valid\&. When
\fIMAX_DAYS\fR
plus
\fILAST_DAY\fR
is less than the current day, the user will be required to change their password before being able to use their account\&. This occurrence can be planned for in advance by use of the
\fB\-W\fR
option, which provides the user with advance warning\&.
.sp
Passing the number
\fI\-1\fR
as
\fIMAX_DAYS\fR
will remove checking a password\*(Aqs validity\&.
.RE
.PP
\fB\-R\fR, \fB\-\-root\fR\ \&\fICHROOT_DIR\fR
.RS 4
Apply changes in the
\fICHROOT_DIR\fR
directory and use the configuration files from the
\fICHROOT_DIR\fR
directory\&.
.RE
"""

APT_GET_JA = """.TH "APT\\-GET" "8" "25\\ \\&1 月\\ \\&2023" "APT 2\\&.6\\&.1" "APT"
.SH "オプション"
.PP
\\fB\\-\\-auto\\-remove\\fR, \\fB\\-\\-autoremove\\fR
.RS 4
コマンドが
install
か
remove
である場合、このオプションは使用していない依存しているパッケージを削除し、autoremove
コマンドのように動作します。設定項目:
APT::Get::AutomaticRemove
.RE
""".encode()

CHAGE_JA = """.TH CHAGE 1
.SH 説明
\\fBchage\\fR は、
パスワードを最後に更新してから、
次に変更しなければならない期日までの日数を変更する。
システムはこの情報を用いて、
ユーザがいつパスワードを変更しなければならないかを決定する。
\\fBchage\\fR コマンドを使えるのは root ユーザのみに限られている。
""".encode()


def test_a_docbook_paragraph_reads_as_one_line_under_its_term():
    text = convert_document(CHAGE_DE, ".1", "chage.1").markdown
    assert ("-M, --maxdays MAX_DAYS\nSet the maximum number of days during which a password is valid. "
            "When MAX_DAYS plus LAST_DAY is less than the current day, the user will be required") in text
    assert "by use of the -W option, which provides the user with advance warning.\n\n" in text
    assert "\n\nPassing the number -1 as MAX_DAYS will remove checking a password's validity." in text
    # `.RS` breaks the line: the next term is not run into the text before it
    assert "validity.\n\n-R, --root CHROOT_DIR\nApply changes in the CHROOT_DIR directory and use" in text


def test_japanese_lines_join_without_a_space_and_latin_words_with_one():
    text = convert_document(APT_GET_JA, ".8", "apt-get.8").markdown
    assert ("--auto-remove, --autoremove\nコマンドが install か remove である場合、このオプションは"
            "使用していない依存しているパッケージを削除し、autoremove コマンドのように動作します。"
            "設定項目: APT::Get::AutomaticRemove") in text
    text = convert_document(CHAGE_JA, ".1", "chage.1").markdown
    assert ("chage は、パスワードを最後に更新してから、次に変更しなければならない期日までの日数を変更する。"
            "システムはこの情報を用いて、ユーザがいつパスワードを変更しなければならないかを決定する。"
            " chage コマンドを使えるのは root ユーザのみに限られている。") in text


def test_a_break_inside_a_tagged_paragraph_still_breaks_the_line():
    page = b".TH X 1\n.SH OPTIONS\n.TP\n.B \\-x\nfirst line\nof the item\n.br\nsecond line\n"
    text = convert_document(page, ".1", "x.1").markdown
    assert "- -x\n  first line of the item\n  second line" in text
    text = convert_document(b".TH X 1\n.SH A\nfoo bar\n  indented line\nnext\n", ".1", "x.1").markdown
    assert "foo bar\nindented line next" in text  # a line that begins with a space breaks before it


def test_a_long_paragraph_of_short_lines_fills_in_linear_time():
    assert grows_linearly(roff_to_markdown, lambda n: ".TH X 1\n.SH A\n" + "word\n\\fIMARKED\\fR\n" * n)
    assert grows_linearly(roff_to_markdown, lambda n: ".TH X 1\n.SH A\n" + "語\n字\n" * n)


# OpenSSH 9.2's ssh(1) (mdoc): `.Sm off` around an option's forms, one `.It Xo` tag over three lines.
SSH = b""".Dd $Mdocdate: October 7 2022 $
.Dt SSH 1
.Os
.Sh DESCRIPTION
.Bl -tag -width Ds
.It Fl L Xo
.Sm off
.Oo Ar bind_address : Oc
.Ar port : host : hostport
.Sm on
.Xc
.It Fl L Xo
.Sm off
.Ar local_socket : remote_socket
.Sm on
.Xc
Specifies that connections to the given TCP port or Unix socket on the local (client) host are to be
forwarded to the given host and port, or Unix socket, on the remote side.
.It Fl l Ar login_name
Specifies the user to log in as on the remote machine.
.El
"""


def test_mdoc_spacing_off_runs_an_options_form_together_as_man_prints_it():
    text = convert_document(SSH, ".1", "ssh.1").markdown
    assert "- -L [bind_address:]port:host:hostport\n\n- -L local_socket:remote_socket\n  Specifies that" in text
    assert "- -l login_name\n  Specifies the user" in text  # spacing on again


# GNU sed 4.9's sed(1), as help2man 1.49 writes an option: `.HP` with the option, `.IP` with its text.
SED = rb""".TH SED "1" "November 2022" "GNU sed 4.9" "User Commands"
.SH DESCRIPTION
.HP
\fB\-\-follow\-symlinks\fR
.IP
follow symlinks when processing in place
.HP
\fB\-i[SUFFIX]\fR, \fB\-\-in\-place\fR[=\fI\,SUFFIX\/\fR]
.IP
edit files in place (makes backup if SUFFIX supplied)
.PP
If no \fB\-e\fR, \fB\-\-expression\fR, \fB\-f\fR, or \fB\-\-file\fR option is given, then the first
non\-option argument is taken as the sed script to interpret.
"""


def test_a_hanging_paragraph_and_the_indented_one_after_it_are_an_option_and_its_text():
    text = convert_document(SED, ".1", "sed.1").markdown
    assert ("- --follow-symlinks\n  follow symlinks when processing in place\n\n"
            "- -i[SUFFIX], --in-place[=SUFFIX]\n  edit files in place (makes backup if SUFFIX supplied)\n\n"
            "If no -e, --expression, -f, or --file option is given, then the first non-option argument") in text
