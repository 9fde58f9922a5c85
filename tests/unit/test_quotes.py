"""Quotes are quotes: every sentence the docs attribute to a paper is a Markdown blockquote
followed by its source (``— paper NNN, section``), and is found word for word in that paper's
text (``../shared/papers/NNN_*.txt``).

Word for word means: the quote's letters and digits, in order, are a contiguous run of the
paper's letters and digits (punctuation and spaces aside, which the text extraction mangles).
Our copy of a paper lost many symbols; the doc writes a symbol it restores in square brackets
(``[$\\infty$]-Wasserstein``) and one it cannot as ``[…]``: bracketed text is the doc's, skipped
when matching, and stands where the paper's text has nothing.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAPERS = ROOT.parent / "shared" / "papers"
DOCS = sorted((ROOT / "docs").glob("*.md")) + sorted((ROOT / "docs" / "math").glob("*.md")) + [ROOT / "README.md"]
SOURCE_LINE = re.compile(r"^— paper (\d{3})\b.+")


def _prose(text: str) -> str:
    """``text`` with fenced code blocks and inline code blanked (kept line for line)."""
    text = re.sub(r"```.*?```", lambda m: re.sub(r"[^\n]", " ", m.group()), text, flags=re.S)
    return re.sub(r"`[^`\n]*`", lambda m: " " * len(m.group()), text)


def blockquotes(text: str) -> list[tuple[int, str, str]]:
    """``(line, quote, source line)`` of every top-level blockquote of a Markdown text (the source
    line is the first non-empty line after it, "" if none)."""
    lines, out, k = _prose(text).splitlines(), [], 0
    while k < len(lines):
        if lines[k].startswith(">"):
            start, quote = k, []
            while k < len(lines) and lines[k].startswith(">"):
                quote.append(lines[k][1:].strip())
                k += 1
            rest = [line.strip() for line in lines[k:] if line.strip()]
            out.append((start + 1, " ".join(quote), rest[0] if rest else ""))
        else:
            k += 1
    return out


def letters(text: str) -> str:
    """The letters and digits of ``text`` in order, the doc's bracketed additions removed."""
    return "".join(ch for ch in re.sub(r"\[[^\]]*\]", "", text) if ch.isalnum())


def paper_letters(number: str) -> str:
    found = sorted(PAPERS.glob(f"{number}_*.txt"))
    assert found, f"no text of paper {number} in {PAPERS}"
    return letters(found[0].read_text(encoding="utf-8").replace("[", "(").replace("]", ")"))


def _all_quotes():
    return [(path, line, quote, source) for path in DOCS
            for line, quote, source in blockquotes(path.read_text(encoding="utf-8"))]


def test_every_blockquote_names_its_source():
    missing = [f"{p.relative_to(ROOT)}:{line}: {source!r}" for p, line, _, source in _all_quotes()
               if not SOURCE_LINE.match(source)]
    assert not missing, "blockquotes without a '— paper NNN, section' line after them:\n" + "\n".join(missing)


def test_every_blockquote_is_in_its_paper_word_for_word():
    if not PAPERS.is_dir():
        pytest.skip(f"the papers' texts are not here ({PAPERS}: ../shared/papers beside the repository)")
    quotes = [(p, line, quote, SOURCE_LINE.match(source).group(1)) for p, line, quote, source in _all_quotes()
              if SOURCE_LINE.match(source)]
    assert quotes, "no blockquote in the docs"
    texts: dict[str, str] = {}
    wrong = []
    for path, line, quote, number in quotes:
        text = texts.setdefault(number, paper_letters(number))
        if not letters(quote) or letters(quote) not in text:
            wrong.append(f"{path.relative_to(ROOT)}:{line}: not in paper {number}: {quote[:90]}")
    assert not wrong, "\n".join(wrong)


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", re.sub(r"\[[^\]]*\]", "", text).lower())


def near_quote(span: str, words: list[str], slack: int = 4) -> bool:
    """Whether the words of ``span`` occur in order in ``words`` within a window of
    ``len(span) + slack`` words: a quotation of the text, exact or with words dropped or changed."""
    wanted = _words(span)
    if not wanted:
        return False
    for start in (k for k, w in enumerate(words) if w == wanted[0]):
        k, end = start, start + len(wanted) + slack
        for w in wanted[1:]:
            k = next((j for j in range(k + 1, min(end, len(words))) if words[j] == w), None)
            if k is None:
                break
        else:
            return True
    return False


def test_no_paper_text_is_quoted_inline():
    """A span in double quotes in the docs' prose that quotes a paper (four words or more, all of
    them in order in a short stretch of its text; a paper's title aside) must be a blockquote."""
    if not PAPERS.is_dir():
        pytest.skip(f"the papers' texts are not here ({PAPERS}: ../shared/papers beside the repository)")
    index = (PAPERS / "README.md").read_text(encoding="utf-8")
    titles = {letters(t) for t in re.findall(r'"([^"]+)"', index)}
    texts = [_words(p.read_text(encoding="utf-8")) for p in sorted(PAPERS.glob("[0-9][0-9][0-9]_*.txt"))]
    inline = []
    for path in DOCS:
        prose = "\n".join(line for line in _prose(path.read_text(encoding="utf-8")).splitlines()
                          if not line.startswith(">"))
        for match in re.finditer(r'["“]([^"”]{8,600}?)["”]', prose):
            span = match.group(1)
            if len(_words(span)) >= 4 and letters(span) not in titles and any(near_quote(span, t) for t in texts):
                inline.append(f"{path.relative_to(ROOT)}: \"{' '.join(span.split())[:80]}\"")
    assert not inline, "paper text in quotation marks (make it a blockquote with its source):\n" + "\n".join(inline)


def test_a_near_quote_is_found_and_other_words_are_not():
    words = _words("the bound is no better than the group privacy analysis of Dwork")
    assert near_quote("no better than group privacy", words)
    assert near_quote("no better than the group privacy analysis", words)
    assert not near_quote("no better than composition", words)
    assert not near_quote("group privacy is no better", words)


@pytest.mark.parametrize("quote, text, found", [
    ("every [$f$]-divergence privacy", "We show that every -divergence privacy (e.g. KL)", True),
    ("for some […].", "provides -distribution privacy for some .", True),
    ("every $f$-divergence privacy", "We show that every -divergence privacy", False),   # a symbol the text lost, unmarked
    ("every divergence privacy mechanism", "every -divergence privacy (e.g. KL-privacy) mechanism", False),
    ("Every -divergence", "every -divergence", False),   # case counts
])
def test_the_matching_rule(quote, text, found):
    assert (letters(quote) in letters(text)) is found


def test_blockquotes_are_read_with_their_source_line():
    text = "intro\n\n> one\n> two [x]\n\n— paper 003, Abstract\n\n```\n> not a quote\n```\n"
    assert blockquotes(text) == [(3, "one two [x]", "— paper 003, Abstract")]
