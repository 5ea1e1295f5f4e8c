"""The rules as the terminal tells them: one rule in full, a rule in a line, the events and refusals that name
them, and the prompt's help for each game."""

from __future__ import annotations

import re
import textwrap

from bestiary.core.api import Event, Game
from bestiary.core.errors import BestiaryError
from bestiary.core.rulebook import Rule, rule_index

SHORT_TEXT = 110  # characters of a rule's words shown beside a refusal; `rule ID` shows the rest
FIRST_SENTENCE = re.compile(r"^(.+?[.!?])(?:\s|$)")


def rules_of_game(game: Game) -> dict[str, Rule]:
    """Every rule of the game by id; empty when its rules document is not installed."""
    try:
        return rule_index(game.info.rules_doc)
    except BestiaryError:
        return {}


def find_rule(rules: dict[str, Rule], wanted: str) -> Rule | None:
    """The rule an id names, written as in the rule book ('CUBE-31'), in small letters, or as its number
    alone ('31')."""
    wanted = wanted.strip().upper()
    if wanted in rules:
        return rules[wanted]
    prefix = next(iter(rules), "").split("-")[0]
    return rules.get(f"{prefix}-{wanted}")


def words_of(rule: Rule) -> str:
    """The rule's own words: the book's, or Bestiary's reading where the book is silent."""
    return rule.text or rule.reading


def short_text(rule: Rule) -> str:
    """A rule in a few words for a line beside a refusal or an event: its first sentence, shortened."""
    words = words_of(rule).strip('"“” ')
    first = FIRST_SENTENCE.match(words)
    sentence = first.group(1) if first else words
    return sentence if len(sentence) <= SHORT_TEXT else sentence[:SHORT_TEXT - 1].rstrip() + "…"


def rule_line(rule: Rule) -> str:
    return f"{rule.id}: {short_text(rule)}"


def rule_in_full(rule: Rule, width: int = 100) -> str:
    """A rule as plain text wrapped at `width`: its id and section, the book's words and Bestiary's reading."""
    lines = [f"{rule.id} ({rule.section})"]
    plain = rule.reading.replace("**", "")  # the document's bold marks of a Decision
    wrap = textwrap.TextWrapper(width=max(40, width), initial_indent="  ", subsequent_indent="  ")
    if rule.text:
        lines += wrap.wrap(f"Rule book: {rule.text}")
    if rule.reading:
        lines += wrap.wrap(f"Bestiary's reading: {plain}")
    return "\n".join(lines)


def explain_rules(ids: tuple[str, ...], rules: dict[str, Rule], width: int = 100) -> list[str]:
    """Each rule named, in full; an id the rules document lacks is said plainly."""
    out = []
    for rule_id in ids:
        rule = rules.get(rule_id)
        out.append(rule_in_full(rule, width) if rule is not None else f"{rule_id} (not in this game's rule book)")
    return out


def why_event(number: int, event: Event, rules: dict[str, Rule], width: int = 100) -> str:
    """What `why` prints: the event, then every rule that made it happen, in full."""
    head = f"{number}. {event.text}"
    if not event.rules:
        return head + "\n  No rule is named for this line."
    return "\n".join([head, "Because of:", *explain_rules(event.rules, rules, width)])


PROMPT_HELP = (
    "Type the number or the text of an action.\n"
    "  list / list WORD  every action, or those starting with WORD\n"
    "  board             the table again\n"
    "  why / why N       the rules behind the last line of the log, or line N\n"
    "  rule ID           a rule in full (e.g. 'rule {example}')\n"
    "  help              this help\n"
    "  quit              leave the game")


def prompt_help(game: Game) -> str:
    """The prompt's help: the commands every game has, then the game's own words (its cards, its board)."""
    rules = rules_of_game(game)
    example = next(iter(rules), "1")
    own = game.terminal_help()
    return PROMPT_HELP.format(example=example) + ("\n" + own if own else "")
