"""A guided first game: the learner against an easy computer on a fixed deal, each rule told in plain words the
first time an event names it, the heuristic's move suggested, and "why?" at any step.

The words come from each game's `teaching.toml` (in the game's package): `[tutorial]` the deal (players, seed,
options) and a welcome, `[computers]` the agents behind "easy", "medium" and "hard", `[lessons]` a rule id's
plain words, `[moves]` what a move does, keyed by its first words ("draw", "choose size"). A lesson is told
when an event's `rules` first name its id, never by a script of the deal, so the same words teach any deal.
The terminal (`bestiary learn`) and the browser (`/learn/{game}`, through server/teaching.py) use this one
engine. A tutorial is rebuilt from its moves (the same moves always give the same game), so the server keeps
nothing between requests.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from bestiary.agents import HeuristicAgent, SeatView, make_agent
from bestiary.agents.pacing import PASS
from bestiary.core.api import Action, Game, State
from bestiary.core.chance import sample_chance
from bestiary.core.errors import BestiaryError
from bestiary.core.registry import game_class, load_game
from bestiary.core.rulebook import Rule, rule_index
from bestiary.core.tomlfile import read_toml

LEARNER = 0  # the learner sits first
LEVELS = ("easy", "medium", "hard")
MAX_MOVES = 2000  # a tutorial replayed from more moves than this is refused: no game of one is that long


class TeachingFileError(BestiaryError, ValueError):
    """A game's teaching.toml that cannot be read or breaks its shape."""

    def __init__(self, path: str, message: str, *, line: int | None = None) -> None:
        super().__init__(f"{path}{f':{line}' if line else ''}: {message}")


@dataclass(frozen=True)
class Teaching:
    """One game's words for people and its tutorial deal."""

    game: str
    welcome: str  # what the game is about and how to win, in a few short sentences
    players: int
    seed: int
    options: Mapping[str, Any]
    computers: Mapping[str, str]  # "easy" / "medium" / "hard" -> agent spec
    lessons: Mapping[str, str]  # rule id -> plain words
    moves: Mapping[str, str]  # the first words of a move's text -> what that move does
    more_options: tuple[str, ...] = ()  # options for designers and experienced players, folded away in the lobby

    @property
    def has_tutorial(self) -> bool:
        """Whether the game has a guided first game (a game without a teaching.toml has only computer levels)."""
        return bool(self.welcome)

    def computer_level(self, agent: str) -> str | None:
        """"easy", "medium" or "hard" for the agent of that level, else None."""
        return next((level for level, spec in self.computers.items() if spec == agent), None)

    def move_words(self, action: str) -> str | None:
        """What a move does, from the longest `[moves]` key its text starts with; `{1}`, `{2}`… in the words
        stand for the move's first, second… word after its first ("move B3 C5": {1} is B3)."""
        words = action.split()
        for size in range(len(words), 0, -1):
            found = self.moves.get(" ".join(words[:size]))
            if found is not None:
                for number, word in enumerate(words[1:], start=1):
                    found = found.replace(f"{{{number}}}", word)
                return found
        return None


def teaching_path(game: str) -> Path:
    package = game_class(game).__module__.rpartition(".")[0]
    return Path(str(resources.files(package) / "teaching.toml"))


def _text(table: Mapping[str, Any], key: str, fail: Any) -> str:
    value = table.get(key)
    if not isinstance(value, str) or not value.strip():
        raise fail(f"'{key}' must be a non-empty string")
    return " ".join(value.split())


def default_computers(game: str) -> dict[str, str]:
    """Levels for a game that names none: no search, its heuristic, and the strongest search for its kind of
    information (docs/agents.md)."""
    search = "mcts" if game_class(game).info.information == "perfect" else "ismcts"
    return {"easy": "random", "medium": "heuristic", "hard": f"{search}:hard"}


@cache
def teaching_of(game: str) -> Teaching:
    """The game's teaching data, checked: lessons name rules of its rules document, computers are agents, the
    tutorial deal loads. A game without a teaching.toml gets the default computer levels and no tutorial."""
    path = teaching_path(game)
    if not path.exists():
        cls = game_class(game)
        return Teaching(game, "", min(cls.info.player_counts), 0, {}, default_computers(game), {}, {})

    def fail(message: str, line: int | None = None) -> TeachingFileError:
        return TeachingFileError(str(path), message, line=line)

    _, data = read_toml(path, fail)
    unknown = set(data) - {"tutorial", "computers", "lessons", "moves", "lobby"}
    if unknown:
        raise fail(f"unknown tables: {', '.join(sorted(unknown))}")
    tutorial = data.get("tutorial", {})
    players, seed, options = tutorial.get("players"), tutorial.get("seed"), tutorial.get("options", {})
    if not isinstance(players, int) or not isinstance(seed, int) or not isinstance(options, dict):
        raise fail("[tutorial] needs players (an integer), seed (an integer) and options (a table)")
    try:
        load_game(game, players=players, **options)
    except BestiaryError as error:
        raise fail(f"[tutorial] deal: {error}") from None
    computers = data.get("computers", {})
    if sorted(computers) != sorted(LEVELS):
        raise fail(f"[computers] must name exactly {', '.join(LEVELS)}")
    for level, spec in computers.items():
        try:
            make_agent(spec)
        except BestiaryError as error:
            raise fail(f"[computers] {level}: {error}") from None
    rules = rule_index(game_class(game).info.rules_doc) if data.get("lessons") else {}
    lessons = {rule: _text(data.get("lessons", {}), rule, fail) for rule in data.get("lessons", {})}
    strangers = [rule for rule in lessons if rule not in rules]
    if strangers:
        raise fail(f"[lessons] names rules its rules document does not have: {', '.join(strangers)}")
    moves = {move: _text(data.get("moves", {}), move, fail) for move in data.get("moves", {})}
    more_options = data.get("lobby", {}).get("more_options", [])
    strangers = [name for name in more_options if name not in game_class(game).Options.model_fields]
    if not isinstance(more_options, list) or strangers:
        raise fail(f"[lobby] more_options must list options of the game; it has none named {', '.join(strangers)}")
    return Teaching(game, _text(tutorial, "welcome", fail), players, seed, options, dict(computers), lessons, moves,
                    tuple(more_options))


@dataclass(frozen=True)
class Explanation:
    """A rule, for people: its plain words (the rule book's where no lesson was written) and the book's own."""

    rule: str
    words: str
    text: str
    reading: str

    def to_dict(self) -> dict[str, str]:
        return {"rule": self.rule, "words": self.words, "text": self.text, "reading": self.reading}


@dataclass(frozen=True)
class Told:
    """An event as the learner saw it, with the rules it names told for the first time."""

    text: str
    rules: tuple[str, ...]
    lessons: tuple[Explanation, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "rules": list(self.rules), "lessons": [lesson.to_dict() for lesson in self.lessons]}


@dataclass
class Tutorial:
    """One guided game. `play(text)` makes the learner's move; the computer, the dice and the shuffles move
    until the learner must act again or the game ends."""

    game_name: str
    teaching: Teaching = field(init=False)
    game: Game = field(init=False)
    state: State = field(init=False)
    told: list[Told] = field(init=False, default_factory=list)
    moves: list[str] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self.teaching = teaching_of(self.game_name)
        if not self.teaching.has_tutorial:
            raise BestiaryError(f"{self.game_name} has no guided first game yet")
        self.game = load_game(self.game_name, players=self.teaching.players, **self.teaching.options)
        self.rules: dict[str, Rule] = rule_index(self.game.info.rules_doc)
        self.state = self.game.new_initial_state(seed=self.teaching.seed)
        self._chance = random.Random(f"bestiary-tutorial/chance/{self.teaching.seed}")
        self._computer = make_agent(self.teaching.computers["easy"])
        self._computer_rng = random.Random(f"bestiary-tutorial/computer/{self.teaching.seed}")
        self._explained: set[str] = set()
        self._advance()

    @classmethod
    def replayed(cls, game: str, moves: Sequence[str]) -> Tutorial:
        """The tutorial after the learner's `moves`; a move that is not legal raises, naming its step."""
        if len(moves) > MAX_MOVES:
            raise BestiaryError(f"a tutorial is at most {MAX_MOVES} moves long")
        tutorial = cls(game)
        for step, move in enumerate(moves, start=1):
            try:
                tutorial.play(move)
            except BestiaryError as error:
                raise BestiaryError(f"move {step} of the tutorial ('{move}') is refused: {error}") from None
        return tutorial

    @property
    def finished(self) -> bool:
        return self.state.is_terminal()

    def legal(self) -> list[str]:
        """The learner's moves now (none once the game is over)."""
        if self.finished or LEARNER not in self.state.players_to_act():
            return []
        return [self.state.action_to_string(action) for action in self.state.legal_actions(LEARNER)]

    def suggestion(self) -> str | None:
        """The move the game's heuristic would make for the learner now."""
        legal = self.state.legal_actions(LEARNER) if self.legal() else []
        if not legal:
            return None
        rng = random.Random(f"bestiary-tutorial/coach/{self.teaching.seed}/{len(self.moves)}")
        return self.state.action_to_string(HeuristicAgent().act(SeatView(self.state, LEARNER), rng))

    def play(self, text: str) -> None:
        """The learner's move, by its text; a refused move changes nothing and raises with the rule's reason."""
        if self.finished:
            raise BestiaryError("the game is over")
        action = self.state.parse_action(text)
        self.state.apply_action(action, player=LEARNER)
        self.moves.append(self.state.action_to_string(action))
        self._advance()

    def explain(self, rule: str) -> Explanation:
        """A rule in plain words, with the rule book's text and reading."""
        found = self.rules.get(rule)
        if found is None:
            raise BestiaryError(f"{self.game_name} has no rule {rule}")
        words = self.teaching.lessons.get(rule) or found.reading or found.text
        return Explanation(rule, words, found.text, found.reading)

    def why(self) -> list[Explanation]:
        """Why things are as they are: the rules behind the latest events, newest first."""
        seen: list[str] = []
        for told in reversed(self.told):
            seen += [rule for rule in told.rules if rule not in seen]
            if len(seen) >= 3:
                break
        return [self.explain(rule) for rule in seen]

    def result(self) -> str:
        """The end in words: who won."""
        returns = self.state.returns()
        best = max(returns)
        if returns.count(best) == len(returns):
            return "It's a draw."
        if returns[LEARNER] == best:
            return "You won!" if returns.count(best) == 1 else "You share the win!"
        return "The computer won this time."

    def _advance(self) -> None:
        """Dice, shuffles and the computer move until the learner has a choice to make or the game is over.
        In races and windows the learner is asked first: a first game is played without a clock."""
        state = self.state
        while not state.is_terminal():
            kind = state.decision_kind()
            to_act = state.players_to_act()
            if kind == "chance":
                state.apply_action(sample_chance(state, self._chance))
            elif LEARNER in to_act and (passing := self._only_pass(state)) is not None:
                state.apply_action(passing, player=LEARNER)
            elif LEARNER in to_act:
                break
            else:
                player = to_act[0]
                action: Action = self._computer.act(SeatView(state, player), self._computer_rng)
                state.apply_action(action, player=player)
        self._tell()

    @staticmethod
    def _only_pass(state: State) -> Action | None:
        """The learner's pass when passing is all they may do (a window, a race they cannot join): made for them,
        as a table's pacing does, so that a first game asks only real questions."""
        legal = state.legal_actions(LEARNER)
        return legal[0] if len(legal) == 1 and str(legal[0]) == PASS else None

    def _tell(self) -> None:
        for event in self.state.events(LEARNER)[len(self.told):]:
            rules = tuple(event.rules)
            fresh = [rule for rule in rules if rule not in self._explained and rule in self.rules]
            self._explained.update(fresh)
            lessons = tuple(self.explain(rule) for rule in fresh if rule in self.teaching.lessons)
            self.told.append(Told(event.text, rules, lessons))

    def to_dict(self) -> dict[str, Any]:
        """What a page shows of the tutorial now (the learner's view only)."""
        suggestion = self.suggestion()
        return {
            "game": self.game_name, "title": self.game.info.title, "welcome": self.teaching.welcome,
            "players": self.game.num_players, "learner": LEARNER, "moves": list(self.moves),
            "observation": self.state.observation(LEARNER), "legal_actions": self.legal(),
            "decision_kind": self.state.decision_kind(), "to_act": self.state.players_to_act(),
            "suggestion": suggestion,
            "suggestion_words": self.teaching.move_words(suggestion) if suggestion else None,
            "events": [told.to_dict() for told in self.told],
            "why": [explanation.to_dict() for explanation in self.why()],
            "finished": self.finished, "result": self.result() if self.finished else None,
            "returns": self.state.returns() if self.finished else None,
            "computer": self.teaching.computers["easy"],
        }
