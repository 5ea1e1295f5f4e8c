"""Every game's rules as data: each rule of the rule book with its id, section, text and Bestiary's reading.

The one source is `docs/rules/<game>.md`; a wheel carries those files under `bestiary/_docs/rules/`
(pyproject.toml), a checkout reads them where they are. A rule there is a list item that opens with its id in
bold, then the book's words in quotes, then an indented `*Reading:*` paragraph; `## ` headings are the
sections.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bestiary.core.errors import BestiaryError

_PACKAGE_RULES = Path(__file__).resolve().parent.parent / "_docs" / "rules"
_SOURCE_RULES = Path(__file__).resolve().parents[3] / "docs" / "rules"

_RULE_START = re.compile(r"^\s*[-*+]\s+\*\*(?P<id>[A-Z]+-\d+(?:\.\d+)*[a-z]?)\*\*\s*(?:[—–-]\s*)?(?P<rest>.*)$")
_READING = re.compile(r"^\*(?:Reading|Decision)[^*]*:\*\s*")
_DECISION = re.compile(r"^\*\*Decision[^*]*:\*\*\s*")
RULE_ID = re.compile(r"\b(?:CRITS|CRITTERS|CUBE|LUNGO)-\d+(?:\.\d+)*[a-z]?\b")


@dataclass(frozen=True)
class Rule:
    id: str
    section: str
    text: str  # the rule book's words; "" where the book is silent and the rule is Bestiary's own decision
    reading: str  # how Bestiary plays it; "" where it plays the book's words as written

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "section": self.section, "text": self.text, "reading": self.reading}


def rules_path(doc: str) -> Path:
    """The rules document `doc` (a file name such as "cube-creatures.md") of the installed package or checkout."""
    for root in (_PACKAGE_RULES, _SOURCE_RULES):
        if (root / doc).is_file():
            return root / doc
    raise BestiaryError(f"the rules document {doc} is not installed")


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] in "\"“" and text[-1] in "\"”":
        return text[1:-1].strip()
    return text


@dataclass
class _Draft:
    id: str
    section: str
    text: list[str]
    reading: list[str]

    def rule(self) -> Rule:
        text = _unquote(" ".join(self.text))
        reading = " ".join(self.reading).strip()
        decision = _DECISION.match(text)
        if decision and not reading:  # Bestiary's own rule: its words are the reading
            text, reading = "", text[decision.end():].strip()
        return Rule(self.id, self.section, text, reading)


def parse_rules(markdown: str) -> list[Rule]:
    """The rules of one rules document, in the document's order."""
    rules: list[Rule] = []
    section = ""
    draft: _Draft | None = None
    for raw in markdown.splitlines():
        line = raw.strip()
        start = _RULE_START.match(raw)
        ends_rule = raw.startswith("#") or start is not None or not line or not raw[:1].isspace()
        if draft is not None and ends_rule:  # a rule ends at a heading, the next rule, a blank line or the margin
            rules.append(draft.rule())
            draft = None
        if raw.startswith("#"):
            section = raw.lstrip("#").strip()
        elif start:
            draft = _Draft(start["id"], section, [start["rest"].strip()], [])
        elif draft is not None:
            reading = _READING.match(line)
            if reading:
                draft.reading.append(line[reading.end():])
            else:
                (draft.reading if draft.reading else draft.text).append(line)
    if draft is not None:
        rules.append(draft.rule())
    return rules


@cache
def rules_of(doc: str) -> tuple[Rule, ...]:
    """Every rule of one game's rules document, by file name ("critter-capture.md")."""
    return tuple(parse_rules(rules_path(doc).read_text(encoding="utf-8")))


def rule_index(doc: str) -> dict[str, Rule]:
    return {rule.id: rule for rule in rules_of(doc)}


def rule_ids_in(text: str) -> list[str]:
    """The rule ids a piece of text names, in order, each once."""
    return list(dict.fromkeys(RULE_ID.findall(text)))
