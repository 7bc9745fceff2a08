"""The structure of a recipe's Markdown prose: its `##` sections and its fenced code blocks.

A deliberately small reader (no Markdown library): recipes use a fixed, simple subset, and
`lint` and the test that executes `python exec` blocks must agree on what a block is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_HEADING = re.compile(r"^(?P<marks>#{1,6})\s+(?P<text>.*?)\s*#*\s*$")


@dataclass(frozen=True)
class CodeBlock:
    """One fenced code block: its info string (`python`, `python exec`, `text`), its body and
    the 1-based line of its opening fence."""

    info: str
    body: str
    line: int

    @property
    def language(self) -> str:
        """The first word of the info string (`python` for `python exec`), or ""."""
        return self.info.split()[0].lower() if self.info.split() else ""

    @property
    def is_exec(self) -> bool:
        """Whether the block is marked to be executed by the test suite (`python exec`)."""
        words = self.info.lower().split()
        return words[:1] == ["python"] and "exec" in words[1:]


@dataclass(frozen=True)
class Heading:
    """One ATX heading outside code blocks: its level (1 for `#`), text and 1-based line."""

    level: int
    text: str
    line: int


def parse(text: str) -> tuple[list[Heading], list[CodeBlock]]:
    """The headings and fenced code blocks of `text`, in document order.

    An unclosed fence runs to the end of the text, as CommonMark says.
    """
    headings: list[Heading] = []
    blocks: list[CodeBlock] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        opening = _FENCE.match(line)
        if opening and not (opening["fence"][0] == "`" and "`" in opening["info"]):
            fence = opening["fence"]
            body: list[str] = []
            start = index + 1
            index += 1
            while index < len(lines):
                closing = lines[index].strip()
                if closing.startswith(fence) and not closing.strip(fence[0]):
                    break
                body.append(lines[index])
                index += 1
            blocks.append(CodeBlock(opening["info"].strip(), "\n".join(body), start))
            index += 1
            continue
        heading = _HEADING.match(line)
        if heading:
            headings.append(Heading(len(heading["marks"]), heading["text"], index + 1))
        index += 1
    return headings, blocks


def code_blocks(text: str) -> list[CodeBlock]:
    """The fenced code blocks of `text`, in order."""
    return parse(text)[1]


def stripped_lines(text: str) -> list[str]:
    """The non-blank lines of `text` with surrounding whitespace removed."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def is_excerpt(block: str, source: str) -> bool:
    """Whether the non-blank lines of `block`, indentation stripped, appear as consecutive
    non-blank stripped lines of `source` (so an excerpt may skip blank lines, not code)."""
    wanted = stripped_lines(block)
    if not wanted:
        return True
    have = stripped_lines(source)
    width = len(wanted)
    return any(have[i : i + width] == wanted for i in range(len(have) - width + 1))
