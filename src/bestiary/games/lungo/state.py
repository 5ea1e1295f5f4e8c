"""Creatures of Lungo's state: the piles, hands, goals and what lies in front of each player."""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np

from bestiary.core.api import CHANCE, JSON, SIMULTANEOUS, TERMINAL, Action, DecisionKind, State
from bestiary.core.errors import StateFormatError
from bestiary.core.fields import FieldReader, StateFields, read_fields, state_field
from bestiary.core.state_format import card_indices
from bestiary.games.lungo import battles, events, flow, observe, phases, rules, tensor
from bestiary.games.lungo.actions import Boost, Commit, DealGoal, DrawCard, PickCard, Play, Roll, Target, TopCard, Word

if TYPE_CHECKING:
    from bestiary.games.lungo.game import CreaturesOfLungo

# The rules that say who acts in each phase and how, for refusals of actions out of turn or out of phase.
PHASE_RULES = {phases.SETUP: ("LUNGO-22", "LUNGO-24"), phases.TURN_DRAW: ("LUNGO-30",),
               phases.PLAY: ("LUNGO-30", "LUNGO-31"), phases.TARGET: ("LUNGO-63",), phases.RESPONSE: ("LUNGO-72",),
               phases.CHOOSE: ("LUNGO-39",), phases.FIGHT: ("LUNGO-43",), phases.DICE: ("LUNGO-49",),
               phases.SWAT_PLACE: ("LUNGO-51",), phases.SWAT_RACE: ("LUNGO-53",), phases.WINNINGS_DRAW: ("LUNGO-73",),
               phases.TOKEN_MOMENT: ("LUNGO-61",), phases.TOKEN_RACE: ("LUNGO-57",), phases.OVER: ("LUNGO-60",)}
# The rule by which a card leaves your hand, for each action that names one.
CARD_RULES: dict[type, tuple[str, ...]] = {Play: ("LUNGO-31",), Commit: ("LUNGO-39",), Boost: ("LUNGO-40",)}


def _cards(state: LungoState, cards: list[int]) -> list[str]:
    return [state.game.ids[c] for c in cards]


def _card_lists(state: LungoState, lists: list[list[int]]) -> list[list[str]]:
    return [_cards(state, cards) for cards in lists]


def _optional_card(state: LungoState, card: int) -> str | None:
    return None if card < 0 else state.game.ids[card]


def _number(reader: FieldReader, key: str) -> int:
    value = reader.raw[key]
    if not isinstance(value, int) or isinstance(value, bool) or value < -1:
        raise StateFormatError(f"'{key}' must be an integer (-1 for none), not {value!r}")
    return value


def _seat_or_none(reader: FieldReader, key: str) -> int:
    value = _number(reader, key)
    if value >= reader.players:
        raise StateFormatError(f"'{key}' must be a seat below {reader.players}")
    return value


def _read_card(reader: FieldReader, key: str) -> int:
    value = reader.raw[key]
    return -1 if value is None else card_indices(reader.game.index_of, [value], key, reader.seen)[0]


def _read_cards(reader: FieldReader, key: str) -> list[int]:
    return card_indices(reader.game.index_of, reader.raw[key], key, reader.seen)


def _read_card_lists(reader: FieldReader, key: str) -> list[list[int]]:
    return _per_player(reader.raw, key, reader.players,
                       lambda ids, where: card_indices(reader.game.index_of, ids, where, reader.seen))


def _read_phase(reader: FieldReader, key: str) -> str:
    phase = reader.raw[key]
    if phase not in phases.PHASES:
        raise StateFormatError(f"'phase' must be one of {', '.join(phases.PHASES)}, not {phase!r}")
    return str(phase)


def _read_top(reader: FieldReader, key: str) -> int:
    top = reader.raw.get(key, phases.UNSEEN)
    if top not in (phases.UNSEEN, phases.OTHER, phases.BATTLE):
        raise StateFormatError("'top' must be -1 (no back shown), 0 (the top card is no battle card) or 1 (a "
                               f"battle card), not {top!r}")
    pile = reader.state.pile
    if top != phases.UNSEEN and not any(reader.game.is_battle[c] == top for c in pile):
        raise StateFormatError(f"'top' says the top card is {'a' if top else 'no'} battle card, but the "
                               "draw pile holds none such")
    return int(top)


def _read_goals(reader: FieldReader, key: str) -> list[int]:
    goals = _list(reader.raw, key, reader.players)
    seen: set[int] = set()
    return [-1 if g is None else _goal(reader.game, g, seen) for g in goals]


def _read_spare_goals(reader: FieldReader, key: str) -> list[int]:
    seen = {g for g in reader.state.goals if g >= 0}
    return sorted(_goal(reader.game, g, seen) for g in reader.raw[key])


def _read_seats(reader: FieldReader, key: str) -> list[int]:
    return [_seat(p, reader.players, key) for p in reader.raw[key]]


def _read_unnoticed(reader: FieldReader, key: str) -> int:
    value = reader.raw.get(key, -1)
    return -1 if value == -1 else _seat(value, reader.players, key)


def _read_flags(reader: FieldReader, key: str) -> list[bool]:
    return [bool(b) for b in _list(reader.raw, key, reader.players)]


def _read_offered(reader: FieldReader, key: str) -> list[bool]:
    n = reader.players
    offered = [bool(b) for b in reader.raw[key]] if key in reader.raw else [False] * n
    if len(offered) != n:
        raise StateFormatError(f"'offered' must be a list of {n} entries, one per player")
    return offered


def _read_resume(reader: FieldReader, key: str) -> str:
    resume = reader.raw.get(key, "")
    if resume not in ("", phases.TURN_ENDS, *phases.OFFERING_PHASES):
        raise StateFormatError(f"'resume' must be empty, {phases.TURN_ENDS!r} or one of "
                               f"{', '.join(sorted(phases.OFFERING_PHASES))}, not {resume!r}")
    return str(resume)


def _write_jobs(state: LungoState, jobs: list[phases.Job]) -> list[list[Any]]:
    return [[phases.JOB_NAMES[job.kind], job.player, job.other] for job in jobs]


def _read_jobs(reader: FieldReader, key: str) -> list[phases.Job]:
    n, jobs = reader.players, []
    for job in reader.raw[key]:
        if not isinstance(job, list) or len(job) != 3 or job[0] not in phases.JOB_NAMES:
            raise StateFormatError(f"a job is [kind, player, other] with kind one of "
                                   f"{', '.join(phases.JOB_NAMES)}; got {job!r}")
        jobs.append(phases.Job(phases.JOB_NAMES.index(job[0]), _seat(job[1], n, "jobs"), _seat(job[2], n, "jobs")))
    return jobs


def _read_rolls(reader: FieldReader, key: str) -> list[int]:
    return [int(r) for r in _list(reader.raw, key, reader.players)]


def _per_seat(value: Any) -> Callable[[LungoState], list[Any]]:
    return lambda state: [value] * state.game.num_players


def _empty_per_seat(state: LungoState) -> list[list[int]]:
    return [[] for _ in range(state.game.num_players)]


def _empty(state: LungoState) -> list[Any]:
    return []


class LungoState(StateFields, State):
    game: CreaturesOfLungo

    phase: phases.Phase = state_field(phases.SETUP, read=_read_phase)
    active: int = state_field(lambda state: state.game.options.first_player, read=_seat_or_none)
    turns: int = state_field(0, read=_number)
    tokens: int = state_field(lambda state: state.game.num_players - 1, read=_number)  # LUNGO-19
    loser: int = state_field(-1, read=_seat_or_none)
    target: int = state_field(-1, read=_seat_or_none)
    drawer: int = state_field(-1, read=_seat_or_none)
    champion: int = state_field(-1, read=_seat_or_none)
    position: int = state_field(0, read=_number)
    placer: int = state_field(-1, read=_seat_or_none)
    misses: int = state_field(0, read=_number)
    pending: int = state_field(-1, write=_optional_card, read=_read_card)  # the card being played
    battle: int = state_field(-1, write=_optional_card, read=_read_card)
    # LUNGO-23, LUNGO-58: unordered, so kept sorted.
    pile: list[int] = state_field(lambda state: list(range(len(state.game.cards))), write=_cards,
                                  read=lambda reader, key: sorted(_read_cards(reader, key)))
    top: int = state_field(phases.UNSEEN, read=_read_top)  # LUNGO-12: what the top card's back shows
    discard: list[int] = state_field(_empty, write=_cards, read=_read_cards)
    hands: list[list[int]] = state_field(_empty_per_seat, write=_card_lists, read=_read_card_lists)
    goals: list[int] = state_field(_per_seat(-1), write=lambda state, goals: [
        None if g < 0 else state.game.goal_ids[g] for g in goals], read=_read_goals)
    spare_goals: list[int] = state_field(lambda state: list(range(len(state.game.goal_cards))), write=lambda state,
                                         spare: sorted(state.game.goal_ids[g] for g in spare), read=_read_spare_goals)
    afflictions: list[list[int]] = state_field(_empty_per_seat, key="in_front", write=_card_lists,
                                               read=_read_card_lists)
    takers: list[int] = state_field(_empty, read=_read_seats)
    # The first taker, while a discreet grab goes unnoticed (LUNGO-57).
    unnoticed: int = state_field(-1, read=_read_unnoticed)
    passed: list[bool] = state_field(_per_seat(False), read=_read_flags)
    # LUNGO-56: eligible players already offered a grab.
    offered: list[bool] = state_field(_per_seat(False), read=_read_offered)
    # The phase a token moment that came in at once goes back to (LUNGO-56).
    resume: str = state_field("", read=_read_resume)
    jobs: list[phases.Job] = state_field(_empty, write=_write_jobs, read=_read_jobs)
    choices: list[list[int]] = state_field(_empty_per_seat, write=_card_lists, read=_read_card_lists)
    chosen: list[bool] = state_field(_per_seat(False), read=_read_flags)
    order: list[int] = state_field(_empty, read=_read_seats)
    rolls: list[int] = state_field(_per_seat(0), read=_read_rolls)
    rollers: list[int] = state_field(_empty, read=_read_seats)
    central: list[int] = state_field(_empty, write=_cards, read=_read_cards)
    in_swat: list[bool] = state_field(_per_seat(False), read=_read_flags)

    # -- whose move --------------------------------------------------------------------------
    def current_player(self) -> int:
        if self.jobs:
            return CHANCE
        phase = self.phase
        if phase == phases.OVER:
            return TERMINAL
        if phase in phases.SIMULTANEOUS_PHASES:
            return SIMULTANEOUS
        if phase == phases.RESPONSE:
            return self.target
        return self.active

    # Whether chance jobs are due, and the phase, answer these, which every playout loop asks at each step.
    def is_terminal(self) -> bool:
        return not self.jobs and self.phase == phases.OVER

    def is_chance_node(self) -> bool:
        return bool(self.jobs)

    def players_to_act(self) -> list[int]:
        if self.jobs:
            return []
        phase = self.phase
        if phase == phases.PLAY:
            return [self.active]
        if phase == phases.TOKEN_MOMENT or phase == phases.SWAT_RACE:  # the seats that have not passed
            waiting = []
            for seat, passed in enumerate(self.passed):
                if not passed:
                    waiting.append(seat)
            return waiting
        if phase == phases.OVER:
            return []
        if phase == phases.CHOOSE:
            return seats_without(self.chosen)
        if phase == phases.TOKEN_RACE:
            return [p for p in range(self.game.num_players) if p not in self.takers]
        if phase == phases.RESPONSE:
            return [self.target]
        return [self.active]

    def decision_kind(self) -> DecisionKind:
        if self.jobs:
            return "chance"
        phase = self.phase
        if phase in phases.RACE_PHASES:
            return "race"  # LUNGO-53, LUNGO-57: the first to act wins
        if phase == phases.RESPONSE:
            return "response"
        return super().decision_kind()

    def _legal_actions(self, player: int) -> Sequence[Action]:
        game = self.game
        phase = self.phase
        if phase == phases.PLAY:
            playable = game.playable[bool(self.afflictions[player])]
            plays = game.play_actions
            out: list[Action] = []
            for card in sorted(self.hands[player]):
                if playable[card]:
                    out.append(plays[card])
            if rules.may_take_token(self, player):
                out.append(game.grab)
            out.append(game.end_turn)
            return out
        if phase == phases.TOKEN_MOMENT:
            return game.grab_or_pass if rules.may_take_token(self, player) else game.pass_only
        if phase == phases.TARGET:
            return self._or_grab(player, [game.target_actions[p] for p in range(game.num_players) if p != player])
        if phase == phases.RESPONSE:
            return self._or_grab(player, [*(game.play_actions[c] for c in sorted(self.hands[player])
                                            if game.is_response[c]), game.pass_])
        if phase == phases.CHOOSE:  # everyone chooses at once: no grab in the middle of it (LUNGO-56)
            if not self.choices[player]:
                return [game.commit_actions[c] for c in sorted(battles.commit_options(self, player))]
            return [*(game.boost_actions[c] for c in sorted(battles.boost_options(self, player))), game.done]
        if phase == phases.SWAT_RACE:
            return self._or_grab(player, list(game.swat_or_pass))
        if phase == phases.TOKEN_RACE:
            return game.grab_only
        return ()

    def _or_grab(self, player: int, actions: list[Action]) -> list[Action]:
        # LUNGO-56: "at any time": whenever a player is asked to decide, a met goal lets them grab a token.
        if rules.may_take_token(self, player):
            actions.append(self.game.grab)
        return actions

    def _illegal_reason(self, action: Action, player: int) -> tuple[str, tuple[str, ...]]:
        game, phase = self.game, self.phase
        card = game.index_of.get(getattr(action, "card", ""), -1)
        if card >= 0 and card not in self.hands[player] and isinstance(action, Play | Commit | Boost):
            return f"{game.ids[card]} is not in your hand", CARD_RULES[type(action)]
        if isinstance(action, Play) and phase == phases.PLAY:
            return f"{game.ids[card]} cannot be played now", self._unplayable_rules(card)
        if isinstance(action, Play) and phase == phases.RESPONSE:
            return f"{game.ids[card]} does not answer a card aimed at you", ("LUNGO-72",)
        if isinstance(action, Play):
            return "cards are played in your own turn, after your draw", ("LUNGO-9", "LUNGO-30")
        if isinstance(action, Word) and action.text == "grab token" and phase != phases.CHOOSE:
            return "a token needs your goal met and no poison or toxic slime in front of you", \
                ("LUNGO-16", "LUNGO-56")
        if isinstance(action, Commit) and phase == phases.CHOOSE:
            return "you must put down a creature if you hold one (any card otherwise), from your hand", \
                ("LUNGO-41",)
        if isinstance(action, Boost) and phase == phases.CHOOSE:
            return "only a power card of your creature's species, or a mutant gene with a creature, goes with " \
                   "it", ("LUNGO-40", "LUNGO-70")
        reason, _ = super()._illegal_reason(action, player)
        return reason, self._turn_rules()

    def _unplayable_rules(self, card: int) -> tuple[str, ...]:
        """The rule that keeps a card in hand from being played in its owner's turn."""
        kind, effect = self.game.kinds[card], self.game.effects[card]
        if kind in ("creature", "mutant"):
            return ("LUNGO-2",)
        if kind in ("power", "gene"):
            return ("LUNGO-7", "LUNGO-10")
        if self.game.is_response[card]:
            return ("LUNGO-72",)
        if effect is not None and effect.keyword in ("cleanse", "pass-affliction"):
            return ("LUNGO-17",)  # a cure needs something in front of you
        return ("LUNGO-9",)

    def _turn_rules(self) -> tuple[str, ...]:
        return PHASE_RULES[self.phase]

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        jobs = self.jobs
        if not jobs:
            return []
        if jobs[0].kind in phases.DRAW_JOBS:  # the commonest: a draw lists the whole pile (LUNGO-58)
            pile = self.drawable()
            if len(pile) > 1:
                rows = self.game.draw_rows.get(len(pile)) or self.game.draw_outcomes(len(pile))
                return list(itemgetter(*pile)(rows))  # the rows picked in one call, not one index each
            return rows_at(self.game.draw_outcomes(len(pile)), pile)
        if jobs[0].kind == phases.TOP:  # LUNGO-12: the new top card's back
            other, battle = flow.top_odds(self)
            tops = self.game.top_actions
            return [(tops[shown], p) for shown, p in ((0, other), (1, battle)) if p > 0]
        table, pool = self._chance_pool()
        if table is self.game.draw_actions:
            return rows_at(self.game.draw_outcomes(len(pool)), pool)
        p = 1.0 / len(pool)
        return [(table[c], p) for c in pool]

    def drawable(self) -> list[int]:
        """The cards of the draw pile the next draw may take: those whose back matches the top card's (LUNGO-12),
        or the whole pile while no back is shown (option battle_backs="hidden")."""
        if self.top == phases.UNSEEN:
            return self.pile
        battle, shown = self.game.is_battle, self.top
        return [c for c in self.pile if battle[c] == shown]

    def _sample_chance_outcome(self, rng: random.Random) -> Action:
        jobs = self.jobs
        if jobs and jobs[0].kind in phases.DRAW_JOBS and self.pile:
            # LUNGO-58: every card of the pile is as likely to come; one is drawn without listing them all
            pile = self.drawable()
            return self.game.draw_actions[pile[rng.randrange(len(pile))]]
        return super()._sample_chance_outcome(rng)

    def _chance_pool(self) -> tuple[Sequence[Action], Sequence[int]]:
        """The due chance job's outcome table, and the positions in it that may come up, in listed order,
        which is ascending (the pile and the spare goals are kept sorted)."""
        kind, player, other = self.jobs[0]
        game = self.game
        if kind in phases.DRAW_JOBS:
            return game.draw_actions, self.drawable()
        if kind == phases.TOP:
            return game.top_actions, [shown for shown, p in enumerate(flow.top_odds(self)) if p > 0]
        if kind == phases.GOAL:
            return game.goal_actions, self.spare_goals
        if kind == phases.ROLL:
            return game.roll_actions, range(len(game.roll_actions))
        if kind in (phases.STEAL, phases.DISCARD) or (kind == phases.SWAT and self.hands[player]):
            return game.pick_actions, sorted(self.hands[other if kind == phases.STEAL else player])
        return game.draw_actions, self.drawable()  # a swat from the draw pile once the hand is empty (LUNGO-52)

    def _is_possible_outcome(self, outcome: Action) -> bool:
        # A look-up by index, not a scan of the list: a draw has as many outcomes as the pile has cards.
        jobs = self.jobs
        if not jobs:
            return False
        if jobs[0].kind in phases.DRAW_JOBS:  # the commonest: a card of the pile
            table: Sequence[Action] = self.game.draw_actions
            pool: Sequence[int] = self.drawable()
        else:
            table, pool = self._chance_pool()
        position = outcome.index - table[0].index
        if not 0 <= position < len(table):
            return False
        listed = table[position]
        if not (listed is outcome or listed == outcome):
            return False
        at = bisect_left(pool, position)
        return at < len(pool) and pool[at] == position

    def _apply(self, action: Action, player: int) -> None:
        game = self.game
        # The commonest actions are tested first: draws, then words (pass, end turn). Their exact type is
        # compared (a plain identity test; isinstance would be a call apiece).
        if type(action) is DrawCard:
            flow.apply_draw(self, action.index)  # a draw's index is its card's
        elif type(action) is Word:
            self._apply_word(action.text, player)
        elif type(action) is Play:
            card = game.index_of[action.card]
            if self.phase == phases.RESPONSE:
                flow.respond(self, player, card)
            else:
                flow.play_card(self, player, card)
        elif type(action) is Target:
            flow.choose_target(self, player, action.seat)
        elif type(action) is PickCard:
            flow.apply_pick(self, game.index_of[action.card])
        elif type(action) is Commit:
            battles.commit(self, player, game.index_of[action.card])
        elif type(action) is Roll:
            flow.apply_roll(self, action.pips)
        elif type(action) is DealGoal:
            self._deal_goal(game.goal_index[action.goal])
        elif type(action) is Boost:
            battles.boost(self, player, game.index_of[action.card])
        elif type(action) is TopCard:
            flow.show_top(self, action.battle)
        flow.settle(self)

    def _deal_goal(self, goal: int) -> None:
        _, player, _ = self.jobs.pop(0)
        self.goals[player] = goal
        self.spare_goals.remove(goal)
        self._log_later(events.goal_dealt, player)
        self._log_later(events.goal_shown, self.game, player, goal)

    def _apply_word(self, word: str, player: int) -> None:
        phase = self.phase
        if word == "pass":
            if phase == phases.TOKEN_MOMENT:
                flow.pass_token_moment(self, player)
            elif phase == phases.RESPONSE:
                flow.decline_response(self, player)
            else:  # the swat race
                battles.let_pass(self, player)
        elif word == "end turn":
            self._log_later(events.ended_turn, player)
            flow.end_turn(self)
        elif word == "grab token":
            rules.take_token(self, player)
        elif word == "done":
            battles.choice_done(self, player)
        else:
            battles.swat(self, player)

    # -- results -----------------------------------------------------------------------------
    def returns(self) -> list[float]:
        # LUNGO-60: the first taker +1, the loser -1, everyone else 0; no result at the limit.
        out = [0.0] * self.game.num_players
        if self.phase == phases.OVER and self.takers:
            out[self.takers[0]] = 1.0
            out[self.loser] = -1.0
        return out

    def result(self) -> JSON:
        out = super().result()
        if self.takers and self.loser >= 0:
            out["ranking"] = [*self.takers, self.loser]
            out["winner"] = self.takers[0]
            out["loser"] = self.loser
        return out

    # -- views -------------------------------------------------------------------------------
    def observation(self, player: int | None) -> JSON:
        return observe.observation(self, player)

    def observation_tensor(self, player: int) -> np.ndarray:
        return tensor.observe(self, player)

    def determinize(self, player: int, rng: random.Random) -> LungoState:
        """Resample what `player` cannot see: other hands, face-down battle cards, the pile, other goals."""
        other = self.clone()
        n = self.game.num_players
        hidden_choices = self.phase == phases.CHOOSE
        others = [p for p in range(n) if p != player]
        # Battle cards are never held, so they stay in the pile, which keeps the top card's back true (LUNGO-12).
        battle = self.game.is_battle
        kept = [c for c in self.pile if battle[c]]
        pool = [c for c in self.pile if not battle[c]]
        for p in others:
            pool += self.hands[p]
            if hidden_choices:
                pool += self.choices[p]
        rng.shuffle(pool)
        for p in others:
            size = len(self.hands[p])
            other.hands[p], pool = pool[:size], pool[size:]
            if hidden_choices:
                size = len(self.choices[p])
                other.choices[p], pool = pool[:size], pool[size:]
        other.pile = sorted(pool + kept)
        goals = [self.goals[p] for p in others if self.goals[p] >= 0] + self.spare_goals
        rng.shuffle(goals)
        for p in others:
            if self.goals[p] >= 0:
                other.goals[p] = goals.pop()
        other.spare_goals = sorted(goals)
        for p in others:  # LUNGO-56: whether a grab was offered tells whose goal is met; as the sample has it
            other.offered[p] = rules.may_take_token(other, p)
        if other.unnoticed >= 0 and other.unnoticed != player:
            rules.undo_unnoticed_grab(other)  # a grab `player` has not noticed may not have happened
        return other

    # -- (de)serialising (copying and writing come from the field declarations) ----------------------
    @classmethod
    def from_dict(cls, game: CreaturesOfLungo, raw: JSON, seed: int | None) -> LungoState:
        state = cls(game, seed)
        reader = read_fields(state, raw)
        if len(reader.seen) != len(game.cards):
            missing = [game.ids[c] for c in range(len(game.cards)) if c not in reader.seen]
            raise StateFormatError(f"every card must be somewhere exactly once; missing: {', '.join(missing[:5])}")
        return state


def rows_at(rows: Sequence[tuple[Action, float]], positions: Sequence[int]) -> list[tuple[Action, float]]:
    """The rows at these positions, picked in one call rather than one index operation each (a draw lists the
    whole pile)."""
    if len(positions) < 2:  # itemgetter needs a position, and of one it gives the row, not a tuple of rows
        return [rows[at] for at in positions]
    return list(itemgetter(*positions)(rows))


def seats_without(flags: list[bool]) -> list[int]:
    """The seats whose flag is not set (who have not chosen, not passed), in seat order."""
    out = []
    for seat, flag in enumerate(flags):
        if not flag:
            out.append(seat)
    return out


def _list(raw: Mapping[str, Any], key: str, n: int) -> list[Any]:
    value = raw[key]
    if not isinstance(value, list) or len(value) != n:
        raise StateFormatError(f"'{key}' must be a list of {n} entries, one per player")
    return value


def _per_player(raw: Mapping[str, Any], key: str, n: int, read: Any) -> list[list[int]]:
    return [read(v, f"{key}[{p}]") for p, v in enumerate(_list(raw, key, n))]


def _seat(value: Any, n: int, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < n:
        raise StateFormatError(f"'{where}': {value!r} is not a seat from 0 to {n - 1}")
    return value


def _goal(game: CreaturesOfLungo, goal_id: Any, seen: set[int]) -> int:
    index = game.goal_index.get(goal_id) if isinstance(goal_id, str) else None
    if index is None or index in seen:
        raise StateFormatError(f"goal {goal_id!r} is unknown or dealt twice")
    seen.add(index)
    return index
