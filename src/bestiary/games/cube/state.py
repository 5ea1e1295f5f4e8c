"""Cube Creatures' state: the shared deck, hands, battlefields with damage and upgrades, victory piles."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from bestiary.core.api import CHANCE, JSON, TERMINAL, Action, DecisionKind, State
from bestiary.core.chance import ShuffleSource
from bestiary.core.errors import StateFormatError
from bestiary.core.fields import OBJECT, FieldReader, StateFields, integer, last_seat, one_of, read_fields, state_field
from bestiary.games.cube import flow, observe, rules, tensor
from bestiary.games.cube.actions import (
    Attach,
    Attack,
    ChangeGuard,
    EndTurn,
    FirstPlayer,
    Pass,
    Play,
    React,
    Roll,
    Target,
    UsePower,
)
from bestiary.games.cube.flow import CHANCE_PHASES, MAIN, PARTS, PLACE, RESPOND, TARGET
from bestiary.games.cube.rules import CREATURE, NO_CARD, OVER, REACTION, UPGRADE, WEAPON

if TYPE_CHECKING:
    from bestiary.games.cube.game import CubeCreatures

DETERMINIZE_TRIES = 50
PLAYER_PHASES = frozenset({MAIN, PLACE, TARGET})  # one player, the current one, decides
# The rules that say who acts in each phase and how, for refusals of actions out of turn or out of phase.
PHASE_RULES = {flow.FIRST_PLAYER: ("CUBE-17",), PLACE: ("CUBE-16",), MAIN: ("CUBE-19",), TARGET: ("CUBE-59",),
               RESPOND: ("CUBE-51",), flow.ROLL: ("CUBE-39",), OVER: ("CUBE-46",)}
# The rule of each kind of action (a Play of a creature card; an action card is CUBE-26).
ACTION_RULES: dict[type, tuple[str, ...]] = {
    Play: ("CUBE-22",), Attach: ("CUBE-27",), UsePower: ("CUBE-30",), ChangeGuard: ("CUBE-34",),
    Attack: ("CUBE-37",), EndTurn: ("CUBE-55",), Target: ("CUBE-59",), React: ("CUBE-47",), Pass: ("CUBE-51",)}


# -- reading a saved state back, refusing anything a game could not reach (a scenario may leave cards out of
# play, but may not hold a card twice) ---------------------------------------------------------------------
def _check_read(state: CubeState) -> None:
    game, phase = state.game, state.phase
    for p, field in enumerate(state.fields):
        if not 1 <= state.limits[p] <= rules.MAX_SPOTS or len(field) > state.limits[p]:
            raise StateFormatError(f"battlefields[{p}]: {len(field)} creatures, limit {state.limits[p]} "
                                   f"(limits run from 1 to {rules.MAX_SPOTS})")
    attacking = phase == flow.ROLL or (phase == flow.RESPOND and state.window == "attack")
    if attacking and (state.attacker == NO_CARD or state.defender == NO_CARD):
        raise StateFormatError(f"phase '{phase}' needs an 'attacker' and a 'defender'")
    if phase == flow.TARGET and (state.pending == NO_CARD or state.pending_kind not in ("action", "power")):
        raise StateFormatError("phase 'target' needs 'pending' (the card) and 'pending_kind' (action or power)")
    if phase == flow.RESPOND:
        if state.window not in ("attack", "action", "power") or not state.responders:
            raise StateFormatError("phase 'respond' needs 'window' (attack, action or power) and 'responders'")
        if any(not 0 <= p < game.num_players for p in state.responders):
            raise StateFormatError("'responders' must be seats")
    if phase == rules.OVER and not state.winners:
        raise StateFormatError("phase 'over' needs 'winners'")
    if phase in (flow.MAIN, flow.PLACE, flow.TARGET) and state.out[state.current]:
        raise StateFormatError(f"P{state.current + 1} is out of the game and cannot be the current player")


def _per_player(reader: FieldReader, key: str) -> list[Any]:
    value = reader.raw[key]
    if not isinstance(value, list) or len(value) != reader.players:
        raise StateFormatError(f"'{key}' must be a list with one entry per player ({reader.players})")
    return value


def _table(reader: FieldReader, key: str) -> dict[str, Any]:
    value = reader.raw[key]
    if not isinstance(value, dict):
        raise StateFormatError(f"'{key}' must be a table of card id = value")
    return value


def _read_cards(reader: FieldReader, names: Any, where: str, card_type: int | None = None) -> list[int]:
    if not isinstance(names, list):
        raise StateFormatError(f"'{where}' must be a list of card ids")
    game, out = reader.game, []
    for name in names:
        card = game.index_of.get(name) if isinstance(name, str) else None
        if card is None:
            raise StateFormatError(f"'{where}': no card with id {name!r}")
        if card in reader.seen:
            raise StateFormatError(f"'{where}': card {name} appears twice in the state")
        if card_type is not None and game.ctype[card] != card_type:
            raise StateFormatError(f"'{where}': {name} is a {game.cards[card].type} card")
        reader.seen.add(card)
        out.append(card)
    return out


def _creature_in_play(reader: FieldReader, name: Any, where: str) -> int:
    card = reader.game.index_of.get(name) if isinstance(name, str) else None
    if card is None or card not in {c for field in reader.state.fields for c in field}:
        raise StateFormatError(f"'{where}': {name!r} is not a creature on a battlefield")
    return int(card)


def _read_damage(reader: FieldReader, key: str) -> list[int]:
    damage = [0] * len(reader.game.cards)
    for name, amount in _table(reader, key).items():
        creature = _creature_in_play(reader, name, key)
        if not isinstance(amount, int) or amount < 0:
            raise StateFormatError(f"damage.{name}: must be a whole number of at least 0, not {amount!r}")
        damage[creature] = amount
    return damage


def _read_upgrades(reader: FieldReader, key: str) -> list[int]:
    game, slots = reader.game, [NO_CARD] * len(reader.game.cards)
    for name, upgrade in _table(reader, key).items():
        creature = _creature_in_play(reader, name, key)
        card = _read_cards(reader, [upgrade], f"{key}.{name}", UPGRADE)[0]
        if (game.kind[card] == WEAPON) != (key == "weapons"):
            wanted = "a weapon" if key == "weapons" else "armor"
            raise StateFormatError(f"{key}.{name}: {upgrade} is not {wanted}")
        slots[creature] = card
    return slots


def _read_used_powers(reader: FieldReader, key: str) -> list[bool]:
    used = [False] * len(reader.game.cards)
    for name in reader.raw[key]:
        used[_creature_in_play(reader, name, key)] = True
    return used


def _read_parts(reader: FieldReader, key: str) -> int:
    used = reader.raw[key]
    if not isinstance(used, list) or any(part not in PARTS for part in used):
        raise StateFormatError(f"'used_this_turn' lists main-phase parts ({', '.join(PARTS)})")
    return sum(1 << PARTS.index(part) for part in set(used))


def _read_optional_card(reader: FieldReader, key: str) -> int:
    name = reader.raw[key]
    if name is None:
        return NO_CARD
    card = reader.game.index_of.get(name) if isinstance(name, str) else None
    if card is None:
        raise StateFormatError(f"'{key}': no card with id {name!r}")
    return int(card)


def _read_shuffles(reader: FieldReader, key: str) -> ShuffleSource:
    shuffles = reader.raw[key]
    return ShuffleSource(int(shuffles["seed"]), int(shuffles["count"]))


def _names(state: CubeState, cards: list[int]) -> list[str]:
    return [state.game.ids[c] for c in cards]


def _name_lists(state: CubeState, lists: list[list[int]]) -> list[list[str]]:
    return [_names(state, cards) for cards in lists]


def _optional_name(state: CubeState, card: int) -> str | None:
    return None if card == NO_CARD else state.game.ids[card]


def _on_field(state: CubeState) -> list[int]:
    return [c for field in state.fields for c in field]


def _write_upgrades(state: CubeState, slots: list[int]) -> dict[str, str]:
    ids = state.game.ids
    return {ids[c]: ids[slots[c]] for c in _on_field(state) if slots[c] != NO_CARD}


def _per_card(value: Any) -> Callable[[CubeState], list[Any]]:
    return lambda state: [value] * len(state.game.cards)


def _per_seat(value: Any) -> Callable[[CubeState], list[Any]]:
    return lambda state: [value] * state.game.num_players


def _empty_per_seat(state: CubeState) -> list[list[int]]:
    return [[] for _ in range(state.game.num_players)]


def _empty(state: CubeState) -> list[Any]:
    return []


class CubeState(StateFields, State):
    game: CubeCreatures

    phase: flow.Phase = state_field(flow.PLACE, read=one_of(flow.PHASES))
    turn: int = state_field(0, read=integer(0, 10**6))
    current: int = state_field(0, read=integer(0, last_seat))
    first: int = state_field(0, read=integer(0, last_seat))
    deck: list[int] = state_field(_empty, write=lambda state, deck: _names(state, deck[::-1]),  # the top card last
                                  read=lambda reader, key: _read_cards(reader, reader.raw[key], key)[::-1])
    discard: list[int] = state_field(_empty, write=_names,
                                     read=lambda reader, key: _read_cards(reader, reader.raw[key], key))
    hands: list[list[int]] = state_field(_empty_per_seat, write=_name_lists, read=lambda reader, key: [
        _read_cards(reader, h, f"{key}[{p}]") for p, h in enumerate(_per_player(reader, key))])
    # The Guard first (CUBE-12).
    fields: list[list[int]] = state_field(_empty_per_seat, key="battlefields", write=_name_lists,
                                          read=lambda reader, key: [_read_cards(reader, f, f"{key}[{p}]", CREATURE)
                                                                    for p, f in enumerate(_per_player(reader, key))])
    # Per card index: what lies on a creature in play (CUBE-44 damage, CUBE-27 upgrades, CUBE-33 power).
    damage: list[int] = state_field(_per_card(0), write=lambda state, damage: {
        state.game.ids[c]: damage[c] for c in _on_field(state) if damage[c]}, read=_read_damage)
    weapon: list[int] = state_field(_per_card(NO_CARD), key="weapons", write=_write_upgrades, read=_read_upgrades)
    armor: list[int] = state_field(_per_card(NO_CARD), write=_write_upgrades, read=_read_upgrades)
    used: list[bool] = state_field(_per_card(False), key="used_powers", write=lambda state, used: [
        state.game.ids[c] for c in _on_field(state) if used[c]], read=_read_used_powers)
    victory: list[list[int]] = state_field(_empty_per_seat, write=_name_lists, read=lambda reader, key: [
        _read_cards(reader, v, f"{key}[{p}]", CREATURE) for p, v in enumerate(_per_player(reader, key))])
    limits: list[int] = state_field(_per_seat(rules.BATTLEFIELD_LIMIT),
                                    read=lambda reader, key: [int(x) for x in _per_player(reader, key)])
    out: list[bool] = state_field(_per_seat(False), read=lambda reader, key: [  # CUBE-54
        bool(x) for x in _per_player(reader, key)])
    # The main-phase parts used this turn (flow.DID_*).
    done: int = state_field(0, key="used_this_turn", write=lambda state, done: [
        part for bit, part in enumerate(PARTS) if done & (1 << bit)], read=_read_parts)
    boost: int = state_field(0, read=integer(0, 100))
    attack_any: bool = state_field(False, read=lambda reader, key: bool(reader.raw[key]))
    # The action card or creature whose effect is under way.
    pending: int = state_field(NO_CARD, write=_optional_name, read=_read_optional_card)
    pending_kind: str = state_field("", write=lambda state, kind: kind or None,
                                    read=lambda reader, key: reader.raw[key] or "")
    pending_target: int = state_field(NO_CARD, write=_optional_name, read=_read_optional_card)
    cancelled: bool = state_field(False, read=lambda reader, key: bool(reader.raw[key]))
    attacker: int = state_field(NO_CARD, write=_optional_name, read=_read_optional_card)
    defender: int = state_field(NO_CARD, write=_optional_name, read=_read_optional_card)
    prevented: bool = state_field(False, read=lambda reader, key: bool(reader.raw[key]))
    reduce: int = state_field(0, read=integer(0, 100))
    # What the open response window answers: attack, action or power.
    window: str = state_field("", write=lambda state, window: window or None,
                              read=lambda reader, key: reader.raw[key] or "")
    responders: list[int] = state_field(_empty, read=lambda reader, key: [int(p) for p in reader.raw[key]])
    last_roll: str | None = state_field(None)
    winners: list[int] | None = state_field(None, read=lambda reader, key: None if reader.raw[key] is None
                                            else [int(p) for p in reader.raw[key]])
    shuffles: ShuffleSource = state_field(lambda state: ShuffleSource(state.seed), copy=OBJECT, write=lambda state,
                                          shuffles: {"seed": shuffles.seed, "count": shuffles.count},
                                          read=_read_shuffles)

    # -- whose move --------------------------------------------------------------------------
    def current_player(self) -> int:
        phase = self.phase
        if phase == RESPOND:
            return self.responders[0]
        if phase in PLAYER_PHASES:
            return self.current
        if phase == OVER:
            return TERMINAL
        return CHANCE

    # The phase alone answers these, which every playout loop asks at each step.
    def is_terminal(self) -> bool:
        return self.phase == OVER

    def is_chance_node(self) -> bool:
        return self.phase in CHANCE_PHASES

    def players_to_act(self) -> list[int]:
        phase = self.phase
        if phase == RESPOND:
            return self.responders.copy()
        if phase in PLAYER_PHASES:
            return [self.current]
        return []

    def decision_kind(self) -> DecisionKind:
        return "response" if self.phase == flow.RESPOND else super().decision_kind()

    def _legal_actions(self, player: int) -> Sequence[Action]:
        phase = self.phase
        if phase == MAIN:
            return flow.main_actions(self, player)
        if phase == RESPOND:
            return flow.reaction_actions(self, player)
        if phase == TARGET:
            return flow.target_actions(self, player)
        plays = self.game.play_actions
        return [plays[c] for c in sorted(rules.creatures_in_hand(self, player))]

    def _illegal_reason(self, action: Action, player: int) -> tuple[str, tuple[str, ...]]:
        game, phase = self.game, self.phase
        card = game.index_of.get(getattr(action, "card", ""), NO_CARD)
        if card != NO_CARD and card not in self.hands[player] and phase in (flow.MAIN, PLACE, RESPOND):
            return f"{game.ids[card]} is not in your hand", self._action_rules(action, card)
        if phase == flow.MAIN and flow.must_play_creature(self, player):
            return "your battlefield is empty: play a creature first", ("CUBE-20", "CUBE-25")
        if isinstance(action, Play) and phase == flow.MAIN and game.ctype[card] == CREATURE:
            if self.done & flow.DID_CREATURE:
                return "you have already played a creature this turn", ("CUBE-22",)
            return f"your battlefield is full ({self.limits[player]} creatures)", ("CUBE-23",)
        if isinstance(action, Play) and phase == flow.MAIN:
            if self.done & flow.DID_ACTION:
                return "you have already played an action card this turn", ("CUBE-26",)
            return "it has nothing to act on now", ("CUBE-58",)
        if isinstance(action, Attach) and phase == flow.MAIN:
            if self.done & flow.DID_UPGRADE:
                return "you have already played an upgrade this turn", ("CUBE-27",)
            if action.spot < len(self.fields[player]):
                return "that creature already has " + ("a weapon" if game.kind[card] == WEAPON else "armor"), \
                    ("CUBE-28",)
            return "there is no creature in that spot", ("CUBE-27",)
        if isinstance(action, UsePower) and phase == flow.MAIN:
            if self.done & flow.DID_POWER:
                return "you have already used a creature power this turn", ("CUBE-30",)
            field = self.fields[player]
            if action.spot < len(field) and self.used[field[action.spot]]:
                return "that creature's power has been used (once per game)", ("CUBE-32",)
            if action.spot >= len(field):
                return "there is no creature in that spot", ("CUBE-31",)
            return "it has nothing to act on now", ("CUBE-58",)
        if isinstance(action, ChangeGuard) and phase == flow.MAIN:
            if self.done & flow.DID_GUARD:
                return "you have already changed your Guard this turn", ("CUBE-34",)
            return "there is no creature in that spot to swap with", ("CUBE-34",)
        if isinstance(action, EndTurn) and phase == flow.MAIN:
            return "an attack is possible, and the attack is required", ("CUBE-37",)
        if isinstance(action, Attack) and phase == flow.MAIN:
            return "no such attack: one of your creatures attacks an opponent's Guard (any creature only when a " \
                   "card says so)", ("CUBE-35", "CUBE-38")
        reason, _ = super()._illegal_reason(action, player)
        return reason, self._turn_rules() + self._action_rules(action, card)

    def _action_rules(self, action: Action, card: int) -> tuple[str, ...]:
        """The rule of the kind of action `action` is (for a card, the kind of card it plays)."""
        if isinstance(action, Play) and card != NO_CARD and self.game.ctype[card] != CREATURE:
            return ("CUBE-26",)
        return ACTION_RULES.get(type(action), ())

    def _turn_rules(self) -> tuple[str, ...]:
        return PHASE_RULES[self.phase]

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        if self.phase == flow.ROLL:
            return list(self.game.roll_outcomes)
        if self.phase == flow.FIRST_PLAYER:
            return list(self.game.first_player_outcomes)
        return []

    def _is_possible_outcome(self, outcome: Action) -> bool:
        # The outcomes are whole tables, each outcome at the place its index names: the very object listed
        # is found there without comparing it with the others.
        table: tuple[Action, ...]
        if self.phase == flow.ROLL:
            table = self.game.roll_actions
        elif self.phase == flow.FIRST_PLAYER:
            table = self.game.first_player_actions
        else:
            return False
        position = outcome.index - table[0].index
        return (0 <= position < len(table) and table[position] is outcome) or outcome in table

    def _apply(self, action: Action, player: int) -> None:
        # The commonest actions are tested first: passes, attacks, rolls, plays. Their exact type is compared
        # (a plain identity test; isinstance would be a call apiece).
        game = self.game
        if type(action) is Pass:
            flow.pass_window(self, player)
        elif type(action) is Attack:
            flow.declare_attack(self, player, action.target_player, action.target_spot, action.spot)
        elif type(action) is Roll:
            flow.roll_attack(self, action.face)
        elif type(action) is Play:
            card = game.index_of[action.card]
            if self.phase == PLACE:
                flow.place_at_setup(self, player, card)
            elif game.ctype[card] == CREATURE:
                flow.play_creature(self, player, card)
            else:
                flow.play_action_card(self, player, card)
        elif type(action) is EndTurn:
            flow.end_turn(self, player)
        elif type(action) is React:
            flow.react(self, player, game.index_of[action.card])
        elif type(action) is Target:
            flow.choose_target(self, player, action.player, action.spot)
        elif type(action) is Attach:
            flow.attach(self, player, game.index_of[action.card], action.spot)
        elif type(action) is UsePower:
            flow.use_power(self, player, action.spot)
        elif type(action) is ChangeGuard:
            flow.swap_guard(self, player, action.spot)
        elif type(action) is FirstPlayer:
            flow.choose_first_player(self, action.seat)

    # -- results -----------------------------------------------------------------------------
    def returns(self) -> list[float]:
        # CUBE-10, CUBE-56: the winner gets 1; winners of a shared win get 1/k each.
        n = self.game.num_players
        if self.winners is None:
            return [0.0] * n
        share = 1.0 / len(self.winners)
        return [share if p in self.winners else 0.0 for p in range(n)]

    def result(self) -> JSON:
        out = super().result()
        out.update(winners=self.winners, victory=[len(pile) for pile in self.victory], turns=self.turn)
        return out

    # -- views -------------------------------------------------------------------------------
    def observation(self, player: int | None) -> JSON:
        return observe.observation(self, player)

    def observation_tensor(self, player: int) -> np.ndarray:
        return tensor.observe(self, player)

    def determinize(self, player: int, rng: random.Random) -> CubeState:
        # CUBE-60: the other hands and the deck are one pool of cards `player` cannot see; deal it afresh,
        # keeping hand sizes, so that everyone asked in an open window still could be asked (CUBE-51).
        sampled = self.clone()
        others = [p for p in range(self.game.num_players) if p != player]
        pool = sampled.deck + [c for p in others for c in sampled.hands[p]]
        sizes = [len(sampled.hands[p]) for p in others]
        askers = [p for p in sampled.responders if p != player]
        for _ in range(DETERMINIZE_TRIES):
            rng.shuffle(pool)
            start = 0
            for p, size in zip(others, sizes, strict=True):
                sampled.hands[p] = pool[start:start + size]
                start += size
            sampled.deck = pool[start:]
            if all(flow.in_window(sampled, p, sampled.window) for p in askers):
                break
        else:
            give_reactions(sampled, player, askers, rng)
        # Future reshuffles must not be foreseeable from the real game's seed.
        sampled.shuffles = ShuffleSource(rng.getrandbits(62))
        return sampled

    # -- (de)serialising (copying and writing come from the field declarations) ----------------------
    @classmethod
    def from_dict(cls, game: CubeCreatures, raw: JSON, seed: int | None) -> CubeState:
        state = cls(game, seed)
        read_fields(state, raw)
        _check_read(state)
        return state


def give_reactions(sampled: CubeState, viewer: int, askers: list[int], rng: random.Random) -> None:
    """Swap a fitting reaction into each asked hand that lacks one, from the deck or from a hand that is
    neither the viewer's nor an asked one (the rare case where rejection sampling found none)."""
    game = sampled.game
    for player in askers:
        if flow.in_window(sampled, player, sampled.window):
            continue
        places = [sampled.deck] + [sampled.hands[q] for q in range(game.num_players)
                                   if q != viewer and q not in askers]
        for place in places:
            fits = [i for i, c in enumerate(place)
                    if game.ctype[c] == REACTION and flow.reaction_applies(sampled, c, sampled.window)]
            if fits:
                i, j = rng.choice(fits), rng.randrange(len(sampled.hands[player]))
                place[i], sampled.hands[player][j] = sampled.hands[player][j], place[i]
                break
