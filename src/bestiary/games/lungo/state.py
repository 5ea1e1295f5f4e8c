"""Creatures of Lungo's state: the piles, hands, goals and what lies in front of each player."""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np

from bestiary.core.api import CHANCE, JSON, SIMULTANEOUS, TERMINAL, Action, State
from bestiary.core.errors import StateFormatError
from bestiary.core.state_format import card_indices
from bestiary.games.lungo import battles, events, flow, phases, rules, tensor
from bestiary.games.lungo.actions import Boost, Commit, DealGoal, DrawCard, PickCard, Play, Roll, Target, TopCard, Word
from bestiary.games.lungo.view import card_view

if TYPE_CHECKING:
    from bestiary.games.lungo.game import CreaturesOfLungo

INT_FIELDS = ("active", "turns", "tokens", "loser", "target", "drawer", "champion", "position", "placer",
              "misses")
CARD_FIELDS = ("pending", "battle")  # a card id, or null
# The rules that say who acts in each phase and how, for refusals of actions out of turn or out of phase.
PHASE_RULES = {phases.SETUP: ("LUNGO-22", "LUNGO-24"), phases.TURN_DRAW: ("LUNGO-30",),
               phases.PLAY: ("LUNGO-30", "LUNGO-31"), phases.TARGET: ("LUNGO-63",), phases.RESPONSE: ("LUNGO-72",),
               phases.CHOOSE: ("LUNGO-39",), phases.FIGHT: ("LUNGO-43",), phases.DICE: ("LUNGO-49",),
               phases.SWAT_PLACE: ("LUNGO-51",), phases.SWAT_RACE: ("LUNGO-53",), phases.WINNINGS_DRAW: ("LUNGO-73",),
               phases.TOKEN_MOMENT: ("LUNGO-61",), phases.TOKEN_RACE: ("LUNGO-57",), phases.OVER: ("LUNGO-60",)}
# The rule by which a card leaves your hand, for each action that names one.
CARD_RULES: dict[type, tuple[str, ...]] = {Play: ("LUNGO-31",), Commit: ("LUNGO-39",), Boost: ("LUNGO-40",)}


class LungoState(State):
    game: CreaturesOfLungo

    def __init__(self, game: CreaturesOfLungo, seed: int | None) -> None:
        super().__init__(game, seed)
        n = game.num_players
        self.phase = phases.SETUP
        self.active = game.options.first_player
        self.turns = 0
        self.pile: list[int] = list(range(len(game.cards)))  # LUNGO-23, LUNGO-58: unordered
        self.top = phases.UNSEEN  # LUNGO-12: what the top card's back shows
        self.discard: list[int] = []
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.goals: list[int] = [-1] * n
        self.spare_goals: list[int] = list(range(len(game.goal_cards)))
        self.afflictions: list[list[int]] = [[] for _ in range(n)]
        self.tokens = n - 1  # LUNGO-19
        self.takers: list[int] = []
        self.unnoticed = -1  # the first taker, while a discreet grab goes unnoticed (LUNGO-57)
        self.loser = -1
        self.passed: list[bool] = [False] * n
        self.offered: list[bool] = [False] * n  # LUNGO-56: eligible players already offered a grab
        self.resume = ""  # the phase a token moment that came in at once goes back to (LUNGO-56)
        self.jobs: list[tuple[int, int, int]] = []
        self.pending = -1  # the card being played
        self.target = -1
        self.battle = -1
        self.drawer = -1
        self.choices: list[list[int]] = [[] for _ in range(n)]
        self.chosen: list[bool] = [False] * n
        self.order: list[int] = []
        self.champion = -1
        self.position = 0
        self.rolls: list[int] = [0] * n
        self.rollers: list[int] = []
        self.central: list[int] = []
        self.in_swat: list[bool] = [False] * n
        self.placer = -1
        self.misses = 0

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

    def decision_kind(self) -> str:
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
        if jobs[0][0] in phases.DRAW_JOBS:  # the commonest: a draw lists the whole pile (LUNGO-58)
            pile = self.drawable()
            if len(pile) > 1:
                rows = self.game.draw_rows.get(len(pile)) or self.game.draw_outcomes(len(pile))
                return list(itemgetter(*pile)(rows))  # the rows picked in one call, not one index each
            return rows_at(self.game.draw_outcomes(len(pile)), pile)
        if jobs[0][0] == phases.TOP:  # LUNGO-12: the new top card's back
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
        if jobs and jobs[0][0] in phases.DRAW_JOBS and self.pile:
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
        if jobs[0][0] in phases.DRAW_JOBS:  # the commonest: a card of the pile
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
        game = self.game
        n = game.num_players
        revealed = self.phase != phases.CHOOSE  # LUNGO-39, LUNGO-42: face down until all have chosen
        choices: list[Any] = []
        for p in range(n):
            cards = self.choices[p]
            if revealed or p == player:
                choices.append([card_view(game, c) for c in cards])
            else:
                choices.append({"face_down": len(cards), "chosen": self.chosen[p]})
        return {
            "game": game.info.name, "viewer": player, "players": n, "phase": self.phase,
            "decision": self.decision_kind(), "to_act": self.players_to_act(),
            "active_player": self.active, "turn": self.turns, "turn_limit": game.options.turn_limit,
            "draw_pile": len(self.pile),
            # LUNGO-12: whether the top card's back shows a battle card (None: no back shown)
            "battle_on_top": None if self.top == phases.UNSEEN else self.top == phases.BATTLE,
            "discard": [card_view(game, c) for c in self.discard],
            "hand_sizes": [len(h) for h in self.hands],
            "hand": None if player is None else [card_view(game, c) for c in sorted(self.hands[player])],
            "goal": None if player is None or self.goals[player] < 0 else game.goal_view(self.goals[player]),
            "goal_met": None if player is None else rules.goal_met(self, player),
            "in_front": [[card_view(game, c) for c in front] for front in self.afflictions],
            **self._token_view(player),
            "loser": None if self.loser < 0 else self.loser,
            "pending_card": None if self.pending < 0 else card_view(game, self.pending),
            "target": None if self.target < 0 else self.target,
            "battle": None if self.battle < 0 else {
                "card": card_view(game, self.battle), "drawer": self.drawer, "choices": choices,
                "order": list(self.order), "champion": None if self.champion < 0 else self.champion,
                "rolls": list(self.rolls), "rolling": list(self.rollers),
                "central_pile": [card_view(game, c) for c in self.central],
                "in_swat": list(self.in_swat), "placer": None if self.placer < 0 else self.placer},
            "returns": self.returns() if self.phase == phases.OVER else None,
        }

    def _token_view(self, player: int | None) -> JSON:
        # LUNGO-57 (option token_grab="discreet"): a grab nobody has noticed is known to its taker alone.
        if self.unnoticed >= 0 and player != self.unnoticed:
            return {"tokens_left": self.tokens + 1, "token_takers": [p for p in self.takers if p != self.unnoticed]}
        return {"tokens_left": self.tokens, "token_takers": list(self.takers)}

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

    # -- copying and (de)serialising ----------------------------------------------------------
    def _copy_into(self, other: LungoState) -> None:
        other.phase = self.phase
        other.active = self.active
        other.turns = self.turns
        other.pile = self.pile.copy()
        other.top = self.top
        other.discard = self.discard.copy()
        other.hands = [h.copy() for h in self.hands]
        other.goals = self.goals.copy()
        other.spare_goals = self.spare_goals.copy()
        other.afflictions = [f.copy() for f in self.afflictions]
        other.tokens = self.tokens
        other.takers = self.takers.copy()
        other.unnoticed = self.unnoticed
        other.loser = self.loser
        other.passed = self.passed.copy()
        other.offered = self.offered.copy()
        other.resume = self.resume
        other.jobs = self.jobs.copy()
        other.pending = self.pending
        other.target = self.target
        other.battle = self.battle
        other.drawer = self.drawer
        other.choices = [c.copy() for c in self.choices]
        other.chosen = self.chosen.copy()
        other.order = self.order.copy()
        other.champion = self.champion
        other.position = self.position
        other.rolls = self.rolls.copy()
        other.rollers = self.rollers.copy()
        other.central = self.central.copy()
        other.in_swat = self.in_swat.copy()
        other.placer = self.placer
        other.misses = self.misses

    def _to_dict(self) -> JSON:
        ids = self.game.ids
        goal_ids = self.game.goal_ids

        def cards(items: list[int]) -> list[str]:
            return [ids[c] for c in items]

        return {
            "phase": self.phase, **{key: getattr(self, key) for key in INT_FIELDS},
            **{key: None if getattr(self, key) < 0 else ids[getattr(self, key)] for key in CARD_FIELDS},
            "pile": cards(self.pile), "top": self.top, "discard": cards(self.discard),
            "hands": [cards(h) for h in self.hands],
            "goals": [None if g < 0 else goal_ids[g] for g in self.goals],
            "spare_goals": sorted(goal_ids[g] for g in self.spare_goals),
            "in_front": [cards(f) for f in self.afflictions],
            "takers": list(self.takers), "unnoticed": self.unnoticed, "passed": list(self.passed),
            "offered": list(self.offered), "resume": self.resume,
            "jobs": [[phases.JOB_NAMES[k], p, o] for k, p, o in self.jobs],
            "choices": [cards(c) for c in self.choices], "chosen": list(self.chosen),
            "order": list(self.order), "rolls": list(self.rolls), "rollers": list(self.rollers),
            "central": cards(self.central), "in_swat": list(self.in_swat),
        }

    @classmethod
    def from_dict(cls, game: CreaturesOfLungo, raw: JSON, seed: int | None) -> LungoState:
        state = cls(game, seed)
        n = game.num_players
        phase = raw["phase"]
        if phase not in phases.PHASES:
            raise StateFormatError(f"'phase' must be one of {', '.join(phases.PHASES)}, not {phase!r}")
        state.phase = phase
        for key in INT_FIELDS:
            value = raw[key]
            if not isinstance(value, int) or isinstance(value, bool) or value < -1:
                raise StateFormatError(f"'{key}' must be an integer (-1 for none), not {value!r}")
            setattr(state, key, value)
        for key in ("active", "loser", "target", "drawer", "champion", "placer"):
            if getattr(state, key) >= n:
                raise StateFormatError(f"'{key}' must be a seat below {n}")
        seen: set[int] = set()
        state.pile = sorted(card_indices(game.index_of, raw["pile"], "pile", seen))
        state.top = raw.get("top", phases.UNSEEN)
        if state.top not in (phases.UNSEEN, phases.OTHER, phases.BATTLE):
            raise StateFormatError("'top' must be -1 (no back shown), 0 (the top card is no battle card) or 1 (a "
                                   f"battle card), not {state.top!r}")
        if state.top != phases.UNSEEN and not state.drawable():
            raise StateFormatError(f"'top' says the top card is {'a' if state.top else 'no'} battle card, but the "
                                   "draw pile holds none such")
        state.discard = card_indices(game.index_of, raw["discard"], "discard", seen)
        def cards(ids: Any, where: str) -> list[int]:
            return card_indices(game.index_of, ids, where, seen)

        state.hands = _per_player(raw, "hands", n, cards)
        state.afflictions = _per_player(raw, "in_front", n, cards)
        state.choices = _per_player(raw, "choices", n, cards)
        state.central = card_indices(game.index_of, raw["central"], "central", seen)
        for key in CARD_FIELDS:
            value = raw[key]
            setattr(state, key, -1 if value is None else card_indices(game.index_of, [value], key, seen)[0])
        if len(seen) != len(game.cards):
            missing = [game.ids[c] for c in range(len(game.cards)) if c not in seen]
            raise StateFormatError(f"every card must be somewhere exactly once; missing: {', '.join(missing[:5])}")
        goal_seen: set[int] = set()
        state.goals = [-1 if g is None else _goal(game, g, goal_seen) for g in _list(raw, "goals", n)]
        state.spare_goals = sorted(_goal(game, g, goal_seen) for g in raw["spare_goals"])
        state.takers = [_seat(p, n, "takers") for p in raw["takers"]]
        state.unnoticed = -1 if raw.get("unnoticed", -1) == -1 else _seat(raw["unnoticed"], n, "unnoticed")
        state.passed = [bool(b) for b in _list(raw, "passed", n)]
        state.offered = [bool(b) for b in raw["offered"]] if "offered" in raw else [False] * n
        if len(state.offered) != n:
            raise StateFormatError(f"'offered' must be a list of {n} entries, one per player")
        state.resume = raw.get("resume", "")
        if state.resume not in ("", phases.TURN_ENDS, *phases.OFFERING_PHASES):
            raise StateFormatError(f"'resume' must be empty, {phases.TURN_ENDS!r} or one of "
                                   f"{', '.join(sorted(phases.OFFERING_PHASES))}, not {state.resume!r}")
        state.chosen = [bool(b) for b in _list(raw, "chosen", n)]
        state.in_swat = [bool(b) for b in _list(raw, "in_swat", n)]
        state.rolls = [int(r) for r in _list(raw, "rolls", n)]
        state.order = [_seat(p, n, "order") for p in raw["order"]]
        state.rollers = [_seat(p, n, "rollers") for p in raw["rollers"]]
        jobs = []
        for job in raw["jobs"]:
            if not isinstance(job, list) or len(job) != 3 or job[0] not in phases.JOB_NAMES:
                raise StateFormatError(f"a job is [kind, player, other] with kind one of "
                                       f"{', '.join(phases.JOB_NAMES)}; got {job!r}")
            jobs.append((phases.JOB_NAMES.index(job[0]), _seat(job[1], n, "jobs"), _seat(job[2], n, "jobs")))
        state.jobs = jobs
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


def _list(raw: JSON, key: str, n: int) -> list[Any]:
    value = raw[key]
    if not isinstance(value, list) or len(value) != n:
        raise StateFormatError(f"'{key}' must be a list of {n} entries, one per player")
    return value


def _per_player(raw: JSON, key: str, n: int, read: Any) -> list[list[int]]:
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
