"""Chinese and Japanese are written without spaces, and a typesetter breaks their lines between any
two characters, inside a word too: the TeX Live guide's Chinese translation breaks 努力 ("effort")
and 可执行 ("executable") across lines. pdfminer ends every line with a line break, which the keyword
side reads as a word's end (no "执行" bigram: a search for 可执行文件 missed the line) and a reader as a
space. Now a line of such characters that runs to its paragraph's right edge goes on into the next
line without a break; a paragraph's last line, which stops short, keeps its break, and so does a
line that ends or starts in a spaced script (Latin, Korean), where the break stands for a space.

The paragraphs are the TeX Live guide's (texlive-zh-cn.pdf, section 1.4, as Debian's
texlive-lang-chinese 2022.20230122-1 ships it), laid out line by line as its page has them, in a
font of the test's making (tests/pdf_maker.py: the real page's embedded fonts weigh megabytes)."""

from pdf_maker import wide_pdf

from minirag.ingest.convert import convert_document

SECURITY = [
    ["尽我们所知，核心的 TEX 程序本身是 (而且一直是) 非常健壮的。但是尽管大家都做了最大的努",
     "力，TEX Live 中大家贡献的程序不一定能达到同样的程度。所以，在运行程序的输入来自未经信任的",
     "来源时，你应该一直保持警惕；为了增加安全性，在一个单独的子目录或者 chroot 环境下执行程序。"],
    ["最需要小心的系统是 Windows，因为通常 Windows 首先使用当前目录下的程序，然后再寻找其他",
     "搜索路径下的目录。这给许多可能的攻击带来了方便。我们已经堵住了很多漏洞，但毫无疑问的是有些",
     "漏洞依然存在，尤其是存在于第三方程序中。因此，我们建议检查当前目录下的可疑文件，尤其是可执",
     "行文件 (二进制文件或者脚本)。一般他们不应该存在，而且更不应该在处理文档时生成。"],
]


def test_a_chinese_paragraphs_lines_read_as_one_line():
    markdown = convert_document(wide_pdf(SECURITY), ".pdf", "texlive-zh-cn.pdf").markdown
    assert "但是尽管大家都做了最大的努力，TEX Live 中" in markdown, markdown
    assert "尤其是可执行文件 (二进制文件或者脚本)" in markdown
    assert "寻找其他搜索路径下的目录。这给许多可能的攻击带来了方便。我们已经堵住了很多漏洞，但毫无疑问的是有些漏洞依然存在" in markdown
    assert "所以，在运行程序的输入来自未经信任的来源时" in markdown


def test_a_paragraphs_last_line_and_a_break_beside_latin_keep_their_breaks():
    markdown = convert_document(wide_pdf(SECURITY), ".pdf", "texlive-zh-cn.pdf").markdown
    assert "环境下执行程序。\n" in markdown  # the first paragraph ends there; the second follows apart
    assert "在处理文档时生成。" in markdown
    page = wide_pdf([["ε-TEX 为 TEX 增加了一套新的原语 (primitive)。(包括宏展开，字符扫描，mark 的分类，额外的调试",
                      "功能，等等) 以及用于双向排版的 TEX--XET 扩展模式。在默认模式下，ε-TEX 是与原始的 TEX",
                      "100% 兼容的。"]])
    markdown = convert_document(page, ".pdf", "etex.pdf").markdown
    assert "额外的调试功能，等等)" in markdown
    assert "原始的 TEX\n100% 兼容的。" in markdown


def test_korean_lines_keep_their_breaks_which_stand_for_spaces():
    # lshort-ko.pdf (texlive-lang-korean 2022): Korean sets spaces between words and breaks lines at them.
    page = wide_pdf([["LATEX은 전문적인 조판 프로그램인 TEX을 보다 손쉽게 사용할 수 있도록 만든",
                      "매크로 패키지이다."]])
    markdown = convert_document(page, ".pdf", "lshort-ko.pdf").markdown
    assert "만든\n매크로" in markdown, markdown


LAST = [["最后，TEX (及其相关程序) 在处理文档时是可以写文件的，这个功能可以被各种方式滥用。所以",
         "我们再一次强调最保险的是在新的子目录下处理未知的文档。"]]


def test_a_two_line_paragraph_that_pdfminer_boxes_line_by_line_reads_as_one_line():
    # Indented first and short last, its two lines align on neither side: pdfminer puts each in a box
    # of its own, and the page's text parted them by an empty line ("所以\n\n我们").
    markdown = convert_document(wide_pdf(LAST, indent=2), ".pdf", "texlive-zh-cn.pdf").markdown
    assert "这个功能可以被各种方式滥用。所以我们再一次强调最保险的是" in markdown, markdown


def test_a_title_over_its_text_stays_apart():
    page = wide_pdf([["1.4 关于安全的考虑"], *SECURITY], indent=2)
    markdown = convert_document(page, ".pdf", "texlive-zh-cn.pdf").markdown
    assert "关于安全的考虑\n" in markdown and "关于安全的考虑尽" not in markdown, markdown
    assert "环境下执行程序。\n" in markdown
