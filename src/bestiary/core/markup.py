"""The plain text of the markup games render with (`Game.render`, `Game.describe`): the console markup of the
terminal (rich's: `[bold]`, `[red on white]`, `[/]`, `\\[` for a bracket), with its tags taken out, so that a
state prints as text without the terminal's library (`str(state)`, records, learning libraries' renders)."""

from __future__ import annotations

import re

# A tag as the terminal's markup reads one: a bracket opening on a letter, `#`, `/` or `@`, after any backslashes.
TAG = re.compile(r"(\\*)\[([a-z#/@][^[]*?)]")


def plain_text(markup: str) -> str:
    """`markup` without its tags; an escaped bracket (`\\[`) stays a bracket, and each pair of backslashes before a
    tag stands for one."""
    if "[" not in markup:
        return markup
    out = []
    position = 0
    for match in TAG.finditer(markup):
        escapes = match.group(1)
        start, end = match.span()
        out.append(_text(markup[position:start]))
        backslashes, escaped = divmod(len(escapes), 2)
        out.append("\\" * backslashes)
        if escaped:
            out.append(match.group(0)[len(escapes):])
        position = end
    out.append(_text(markup[position:]))
    return "".join(out)


def _text(between: str) -> str:
    # A bracket that opens no tag may be escaped all the same.
    return between.replace("\\[", "[")
