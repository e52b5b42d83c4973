"""Blocks -> pieces -> chunks packed to the token budget.

A piece is the smallest thing a chunk boundary may fall around: a paragraph, or
when it does not fit a line, sentence or run of words; a table row; a code block.
Pieces are counted once; a chunk's size is the sum of its pieces and context,
confirmed by one real count of the finished text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from minirag.chunking.blocks import Block
from minirag.chunking.breadcrumb import ELLIPSIS, SEPARATOR
from minirag.chunking.definitions import opens_definition
from minirag.chunking.pages import page_span
from minirag.chunking.split import (
    item_runs,
    line_sentences,
    sentence_spans,
    words_to_fit,
    wrapped_prose,
)
from minirag.chunking.tokens import Tokens

# Once appended to each piece of a split code block; now only tests name it, to check it never is.
CODE_SPLIT_MARKER = "[code block split to fit the token budget]"
CODE_BUDGETS = 4  # an atomic code block may take up to this many budgets
_PARAMETERS = re.compile(r"\([^()]{2,}+\)")  # a parameter list, not nested: a signature's, a type's


@dataclass(frozen=True)
class Piece:
    text: str
    tokens: int  # content tokens, special tokens excluded
    pages: tuple[int | None, int | None]
    group: int  # pieces of one block share a group; groups are parted by a blank line
    sep: str = "\n"  # joins the piece to the previous piece of its group
    header: str = ""  # table header, written before the group's first row in each chunk
    header_tokens: int = 0
    code: bool = False  # a code block, which may exceed the budget
    split_code: bool = False  # one run of lines of a code block too long for one chunk
    context: str = ""  # the terms of the definitions it is inside, added to the breadcrumb of a chunk it starts
    context_tokens: int = 0
    keep_with_next: bool = False  # a chunk may not end with it, where it can begin the next


@dataclass(frozen=True)
class Packed:
    text: str
    tokens: int
    pages: tuple[int | None, int | None]
    split_code: bool = False


class Packer:
    def __init__(self, tokens: Tokens, budget: int, max_tokens: int | None = None) -> None:
        self.tokens = tokens
        self.budget = budget
        # An atomic code block may exceed the budget, never the encoder's own limit.
        self.code_limit = min(CODE_BUDGETS * budget, max_tokens or CODE_BUDGETS * budget)
        self._group = 0

    def _next_group(self) -> int:
        self._group += 1
        return self._group

    # -- pieces ---------------------------------------------------------------

    def pieces(self, block: Block, room: int) -> list[Piece]:
        if block.kind == "slide":
            return []
        if not block.terms:
            pieces = self._block_pieces(block, room)
            # A heading kept in the text (a slide's `### Notes:`) goes with what it heads.
            return [replace(piece, keep_with_next=True) for piece in pieces] if block.kind == "heading" else pieces
        # A chunk started by a piece of a definition says its terms after the breadcrumb; the
        # piece that opens with the innermost term says that one itself.
        inner = self._context(block.terms, room)
        outer = self._context(block.terms[:-1], room) if block.opens_term else inner
        pieces = self._block_pieces(block, max(1, room - inner[1]))
        if block.opens_term and len(pieces) > 1:
            pieces = self._term_first(block, room, inner[1]) or pieces
        return [replace(piece, context=context, context_tokens=tokens)
                for n, piece in enumerate(pieces) for context, tokens in [outer if n == 0 else inner]]

    def _term_first(self, block: Block, room: int, context_tokens: int) -> list[Piece] | None:
        """A long definition's pieces: its term's lines one piece that goes with the definition's
        first words (a chunk ending on a term says nothing of it), those sized to fit beside it.
        None where the term is over half the room, or the block is no term and definition."""
        lines = next((n for n, line in enumerate(block.lines) if opens_definition(line)), 0)
        if not lines or block.kind != "paragraph":
            return None
        term = "\n".join(block.lines[:lines])
        size = self.tokens.content(term)
        if size > room // 2:
            return None
        rest = self._prose(block.lines[lines:], block.pages[lines:], max(1, room - max(size, context_tokens)))
        head = Piece(term, size, page_span(block.pages[:lines]), rest[0].group, keep_with_next=True)
        return [head, *rest]

    def _block_pieces(self, block: Block, room: int) -> list[Piece]:
        if block.kind == "table":
            return self._table(block, room)
        if block.kind == "code":
            return self._code(block, room)
        return self._prose(block.lines, block.pages, room)

    def _context(self, terms: tuple[str, ...], room: int) -> tuple[str, int]:
        """The terms as the breadcrumb goes on with them, within a quarter of `room`."""
        if not terms:
            return "", 0
        text = SEPARATOR.join(terms)
        cap = max(1, room // 4)
        if self.tokens.content(text) > cap:
            # A signature's parameters go first: `json.dump(…)` names what `json.dump(obj, fp, *, …` does.
            text = SEPARATOR.join(_PARAMETERS.sub(f"({ELLIPSIS})", term) for term in terms)
        if self.tokens.content(text) > cap:
            text = words_to_fit(text, self.tokens, cap)[0] + " " + ELLIPSIS
        return text, self.tokens.content(SEPARATOR + text)

    def _prose(self, lines: list[str], pages: list[int | None], room: int) -> list[Piece]:
        group = self._next_group()
        text = "\n".join(lines)
        size = self.tokens.content(text)
        if size <= room:
            return [Piece(text, size, page_span(pages), group)]
        runs = item_runs(lines)
        if len(runs) == len(lines) and wrapped_prose(lines):
            return self._sentences(lines, pages, room, group)
        return self._runs(lines, pages, room, group, runs)

    def _sentences(self, lines: list[str], pages: list[int | None], room: int, group: int) -> list[Piece]:
        """Pieces of wrapped prose too long for one: its sentences, whichever lines they span (a cut
        at a line break would leave half a sentence in each of two chunks); a sentence too long for
        one is parted at its lines, then at spaces."""
        out: list[Piece] = []
        for sentence in line_sentences(lines):
            first, last, sep = sentence.first_line, sentence.last_line, sentence.sep or "\n"
            size = self.tokens.content(sentence.text)
            if size <= room:
                out.append(Piece(sentence.text, size, page_span(pages[first : last + 1]), group, sep))
                continue
            for n, line in enumerate(sentence.text.split("\n")):
                page = pages[first + n]
                for m, (part_sep, part) in enumerate(self._fit(line, room)):
                    part_sep = sep if n == 0 and m == 0 else "\n" if m == 0 else part_sep
                    out.append(Piece(part, self.tokens.content(part), (page, page), group, part_sep))
        return out

    def _runs(
        self, lines: list[str], pages: list[int | None], room: int, group: int, runs: list[range], depth: int = 0
    ) -> list[Piece]:
        """Pieces of a paragraph too long for one: each run of lines (a list item and what continues
        it) whole where it fits; one that does not is parted at its sub-items, then at its lines."""
        out: list[Piece] = []
        for run in runs:
            if len(run) > 1:
                text = "\n".join(lines[run.start : run.stop])
                size = self.tokens.content(text)
                if size <= room:
                    out.append(Piece(text, size, page_span(pages[run.start : run.stop]), group))
                    continue
                sub = lines[run.start : run.stop]
                inner = item_runs(sub, nested=True) if depth == 0 else [range(n, n + 1) for n in range(len(sub))]
                out.extend(self._runs(sub, pages[run.start : run.stop], room, group, inner, depth + 1))
                continue
            line, page = lines[run.start], pages[run.start]
            for n, (sep, part) in enumerate(self._fit(line, room)):
                out.append(Piece(part, self.tokens.content(part), (page, page), group, "\n" if n == 0 else sep))
        return out

    def _fit(self, text: str, room: int) -> list[tuple[str, str]]:
        """(separator before it, part) of one line within `room`: whole, or its sentences, or runs of
        its words."""
        if self.tokens.content(text) <= room:
            return [("", text)]
        out: list[tuple[str, str]] = []
        stripped = text.strip()
        for start, end, sep in sentence_spans(stripped):
            sentence = stripped[start:end]
            if self.tokens.content(sentence) <= room:
                out.append((sep, sentence))
            else:
                out.extend((sep if n == 0 else " ", part)
                           for n, part in enumerate(words_to_fit(sentence, self.tokens, room)))
        return out

    def _table(self, block: Block, room: int) -> list[Piece]:
        group = self._next_group()
        header = "\n".join(compact_header(block.header))
        header_tokens = self.tokens.content(header) if header else 0
        out: list[Piece] = []
        if header and header_tokens > room // 2:
            # A header this large would crowd out the rows it labels: it is
            # kept once, as an ordinary row, instead of repeated.
            out.extend(self._prose(block.header, block.header_pages, room))
            out = [Piece(p.text, p.tokens, p.pages, group, "\n") for p in out]
            header, header_tokens = "", 0
        row_room = room - header_tokens
        # The table's first row brings its header in as text (not repeated context): the header's page too.
        heading = block.header_pages if header and not block.continued else []
        for index, (row, page) in enumerate(zip(block.lines, block.pages, strict=True)):
            size = self.tokens.content(row)
            parts = [row] if size <= row_room else words_to_fit(row, self.tokens, row_room)
            span = page_span([*heading, page]) if index == 0 else (page, page)
            for n, part in enumerate(parts):
                tokens = size if len(parts) == 1 else self.tokens.content(part)
                sep = "\n" if n == 0 else " "
                out.append(Piece(part, tokens, span, group, sep, header, header_tokens))
        return out

    def _code(self, block: Block, room: int) -> list[Piece]:
        text = block.render()
        size = self.tokens.content(text)
        limit = self.code_limit - (self.budget - room)
        if size <= limit:
            return [Piece(text, size, block.span, self._next_group(), code=True)]
        opening, closing, inner = block.lines[0], block.lines[-1], block.lines[1:-1]
        opening, closing = shortest_fences(opening, closing, inner)
        frame = sum(self.tokens.content(s) for s in (opening, closing))
        line_room = max(1, room - frame)
        runs: list[list[tuple[str, int, int | None]]] = [[]]
        used = 0
        for line, page in zip(inner, block.pages[1:-1], strict=True):
            size = self.tokens.content(line)
            parts = (
                [(line, size)]
                if size <= line_room
                else [
                    # A word is cut only past what a code piece may take (the code limit).
                    (p, self.tokens.content(p))
                    for p in words_to_fit(line, self.tokens, line_room, word_room=limit - frame)
                ]
            )
            for part, part_size in parts:
                if runs[-1] and used + part_size > line_room:
                    runs.append([])
                    used = 0
                runs[-1].append((part, part_size, page))
                used += part_size
        out: list[Piece] = []
        for run in runs:
            body = "\n".join(part for part, _, _ in run)
            text = f"{opening}\n{body}\n{closing}"
            pages = page_span([page for _, _, page in run] or block.pages[:1])
            out.append(
                Piece(text, frame + sum(s for _, s, _ in run), pages, self._next_group(), code=True, split_code=True)
            )
        return out

    # -- chunks ---------------------------------------------------------------

    def pack(self, pieces: list[Piece], prefix: str, reserve: int = 0) -> list[Packed]:
        """Pack ``pieces`` under ``prefix``; the first chunk keeps ``reserve`` tokens free."""
        base = self.tokens.special + (self.tokens.content(prefix) if prefix else 0)
        groups: list[list[Piece]] = []
        current: list[Piece] = []
        used = base + reserve
        for piece in pieces:
            cost = piece.tokens
            if not current or current[-1].group != piece.group:
                cost += piece.header_tokens
            if current and used + cost > self.budget:
                kept = len(current)
                while kept > 1 and current[kept - 1].keep_with_next:
                    kept -= 1
                if base + self._cost([*current[kept:], piece]) > self.budget:
                    kept = len(current)  # what it heads would not fit beside it: a chunk alone says less
                groups.append(current[:kept])
                current = current[kept:]
                used = base + self._cost(current)
                cost = piece.tokens + (piece.header_tokens if not current or current[-1].group != piece.group else 0)
            if not current:
                cost += piece.context_tokens
            current.append(piece)
            used += cost
        if current:
            groups.append(current)
        out: list[Packed] = []
        for n, group in enumerate(groups):
            out.extend(self._verified(group, prefix, reserve if n == 0 else 0))
        return out

    @staticmethod
    def _cost(pieces: list[Piece]) -> int:
        """The tokens `pieces` take at the start of a chunk, its prefix aside."""
        starts = [n == 0 or pieces[n - 1].group != piece.group for n, piece in enumerate(pieces)]
        return (pieces[0].context_tokens if pieces else 0) + sum(
            piece.tokens + (piece.header_tokens if start else 0) for piece, start in zip(pieces, starts, strict=True))

    def _verified(self, group: list[Piece], prefix: str, reserve: int) -> list[Packed]:
        text = render(group, _with_context(prefix, group[0].context))
        size = self.tokens.full(text)
        split_code = any(piece.split_code for piece in group)
        if size + reserve <= self.budget or (len(group) == 1 and group[0].code):
            return [Packed(text, size, _span(group), split_code)]
        if len(group) > 1:
            middle = len(group) // 2
            return self._verified(group[:middle], prefix, reserve) + self._verified(
                group[middle:], prefix, 0
            )
        piece = group[0]
        if piece.tokens <= 1 or len(piece.text.split()) <= 1 and len(piece.text) <= 1:
            return [Packed(text, size, _span(group), split_code)]
        room = max(1, min(piece.tokens, size - self.tokens.special) // 2)
        parts = words_to_fit(piece.text, self.tokens, room)
        if len(parts) <= 1:
            parts = [piece.text[: len(piece.text) // 2], piece.text[len(piece.text) // 2 :]]
        split = [
            Piece(
                p,
                self.tokens.content(p),
                piece.pages,
                piece.group,
                " ",
                piece.header,
                piece.header_tokens,
                context=piece.context,
                context_tokens=piece.context_tokens,
            )
            for p in parts
        ]
        return self._verified(split, prefix, reserve)


def shortest_fences(opening: str, closing: str, inner: list[str]) -> tuple[str, str]:
    """The fences each part of a split code block repeats: as long as CommonMark needs (three
    marks, one more than the longest run of the mark opening an inner line), its info string
    kept. A long fence (a line of 56 tildes) repeated took most of a chunk's tokens."""
    stripped = opening.lstrip(" ")
    if not stripped or stripped[0] not in "`~:":
        return opening, closing
    mark = stripped[0]
    length = len(stripped) - len(stripped.lstrip(mark))
    inside = max((len(line.lstrip(" ")) - len(line.lstrip(" ").lstrip(mark)) for line in inner), default=0)
    need = max(3, inside + 1)
    if need >= length:
        return opening, closing
    indent = opening[: len(opening) - len(stripped)]
    return f"{indent}{mark * need}{stripped[length:]}", f"{indent}{mark * need}"


def compact_header(header: list[str]) -> list[str]:
    """The header repeated in chunks, its separator's dash runs cut to one: they cost a token each."""
    if len(header) < 2:
        return header
    return [header[0], re.sub(r"-+", "-", header[1].replace(" ", ""))]


def render(group: list[Piece], prefix: str) -> str:
    body: list[str] = []
    previous: Piece | None = None
    for piece in group:
        if previous is None or previous.group != piece.group:
            if previous is not None:
                body.append("\n\n")
            if piece.header:
                body.append(piece.header + "\n")
        else:
            body.append(piece.sep)
        body.append(piece.text)
        previous = piece
    text = "".join(body)
    return f"{prefix}\n{text}" if prefix else text


def _with_context(prefix: str, context: str) -> str:
    if not context:
        return prefix
    return f"{prefix}{SEPARATOR}{context}" if prefix else context


def _span(group: list[Piece]) -> tuple[int | None, int | None]:
    return page_span([page for piece in group for page in piece.pages])
