"""Errors Bestiary raises to its users: each says what was wrong and where."""

from __future__ import annotations


class BestiaryError(Exception):
    """Base of every error that Bestiary raises on purpose."""


class UnknownGameError(BestiaryError, KeyError):
    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class OptionError(BestiaryError, ValueError):
    """A game option that is unknown or out of range."""


class IllegalActionError(BestiaryError, ValueError):
    """An action that the rules do not allow now; the state is unchanged.

    `rules` names the rules that forbid it, by their ids in the game's rules document; the message ends with
    those the reason does not name already: "not now: the attack is required (CUBE-31)".
    """

    def __init__(self, action: object, player: int | None, reason: str, rules: tuple[str, ...] = ()) -> None:
        self.action = action
        self.player = player
        self.reason = reason
        self.rules = tuple(rules)
        who = "" if player is None or player < 0 else f" by P{player + 1}"
        unnamed = [rule for rule in self.rules if rule not in reason]
        named = f" ({', '.join(unnamed)})" if unnamed else ""
        super().__init__(f"illegal action '{action}'{who}: {reason}{named}")


class ActionParseError(BestiaryError, ValueError):
    """Text that names no action of this game."""


class UnreachableActionError(IllegalActionError, ActionParseError):
    """Text that names a real move of the game that no position ever allows (a move longer than any piece
    goes): no action object reads it, yet the rules say why it is refused."""


class StateFormatError(BestiaryError, ValueError):
    """JSON that does not describe a valid state of the game it names."""


class CardFileError(BestiaryError, ValueError):
    """A card file that cannot be read or breaks the card schema."""

    def __init__(self, path: str, message: str, *, card: str | None = None,
                 field: str | None = None, line: int | None = None) -> None:
        self.path = path
        self.card = card
        self.field = field
        self.line = line
        where = path + (f":{line}" if line else "")
        parts = [where]
        if card:
            parts.append(f"card '{card}'")
        if field:
            parts.append(f"field '{field}'")
        super().__init__(", ".join(parts) + f": {message}")


class RecordError(BestiaryError, ValueError):
    """A game record that cannot be read or does not replay."""


class ScenarioError(BestiaryError, ValueError):
    """A scenario file that cannot be read."""


class ValueFileError(BestiaryError, ValueError):
    """A value file (fitted weights of a game's features) that cannot be read or does not fit the game."""

    def __init__(self, path: str, message: str, *, field: str | None = None, line: int | None = None) -> None:
        self.path = path
        self.field = field
        self.line = line
        where = path + (f":{line}" if line else "")
        super().__init__(where + (f", field '{field}'" if field else "") + f": {message}")
