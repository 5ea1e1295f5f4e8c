"""Critter capture's rules, one small function per rule of the rule book (ids in docs/rules/critter-capture.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal

from bestiary.games.critters import events

if TYPE_CHECKING:
    from bestiary.games.critters.state import CritterState

FIRST_PLAYER: Final = "first-player"
ACTIVE_DRAW: Final = "active-draw"
ACTIVE_CHOOSE: Final = "active-choose"
ACTIVE_FLIP: Final = "active-flip"
CHALLENGE_DRAW: Final = "challenge-draw"
CHALLENGE_FLIP: Final = "challenge-flip"
TIE_CHOOSE: Final = "tie-choose"
FINAL_CHOOSE: Final = "final-choose"
OVER: Final = "over"
# The phases, for type checking: each constant above is one of them.
Phase = Literal["first-player", "active-draw", "active-choose", "active-flip", "challenge-draw", "challenge-flip",
                "tie-choose", "final-choose", "over"]

CHANCE_PHASES = frozenset({FIRST_PLAYER, ACTIVE_FLIP, CHALLENGE_FLIP})
CHOICE_PHASES = frozenset({ACTIVE_CHOOSE, TIE_CHOOSE, FINAL_CHOOSE})
# The rules that say who acts in each phase and how, for refusals of actions out of turn.
PHASE_RULES = {FIRST_PLAYER: ("CRITTERS-7",), ACTIVE_DRAW: ("CRITTERS-8",), ACTIVE_CHOOSE: ("CRITTERS-9",),
               ACTIVE_FLIP: ("CRITTERS-10",), CHALLENGE_DRAW: ("CRITTERS-12",), CHALLENGE_FLIP: ("CRITTERS-14",),
               TIE_CHOOSE: ("CRITTERS-23",), FINAL_CHOOSE: ("CRITTERS-32",), OVER: ("CRITTERS-31", "CRITTERS-33")}


def start_round(state: CritterState) -> None:
    # CRITTERS-8: the starting player is the first active player of the round.
    state.active = state.start
    state.plays = 0
    state.phase = ACTIVE_DRAW
    state._log_later(events.round_started, state.round + 1, state.start)


def draw(state: CritterState, player: int, colour: int) -> None:
    # CRITTERS-8, CRITTERS-12: draw the top card of any colour deck, face down.
    state.pending = colour
    turn = state.round * state.game.num_players + state.plays + 1
    if state.phase == ACTIVE_DRAW:
        state.phase = ACTIVE_CHOOSE
        state._log_later(events.drew, player, colour, ("CRITTERS-8",), turn)
    else:
        state.phase = CHALLENGE_FLIP
        state._log_later(events.drew, player, colour, ("CRITTERS-12",), turn)


def choose_attribute(state: CritterState, player: int, attribute: int) -> None:
    if state.phase == FINAL_CHOOSE:
        # CRITTERS-32, CRITTERS-33: the chooser's attribute scores every corral.
        state.final_attribute = attribute
        state._log_later(events.chose_for_scoring, player, attribute)
        score_corrals(state)
        return
    # CRITTERS-9, CRITTERS-23: announced before the card is flipped, or afresh after a tie.
    state.attribute = attribute
    state._log_later(events.announced, player, attribute,
                     ("CRITTERS-9",) if state.phase == ACTIVE_CHOOSE else ("CRITTERS-23",))
    state.phase = ACTIVE_FLIP if state.phase == ACTIVE_CHOOSE else CHALLENGE_DRAW


def flip_active_card(state: CritterState, card: int) -> None:
    # CRITTERS-10: the active card is flipped and placed on the puck, chosen edge towards the challenger.
    take_from_deck(state, card)
    state.stack = [card]
    state.plays = 1
    state._log_later(events.flipped, state.game, state.active, card, "active")
    state.phase = CHALLENGE_DRAW


def flip_challenge_card(state: CritterState, card: int) -> None:
    # CRITTERS-14: the challenge card is flipped, its ability facing the active card.
    take_from_deck(state, card)
    challenger = state.challenger()
    state._log_later(events.flipped, state.game, challenger, card, "challenge")
    state.plays += 1
    resolve_challenge(state, challenger, card)
    if state.plays == state.game.num_players:
        end_round(state)
    elif state.phase != TIE_CHOOSE:
        state.phase = CHALLENGE_DRAW


def take_from_deck(state: CritterState, card: int) -> None:
    state.decks[state.pending].remove(card)  # type: ignore[index]
    state.pending = None


def resolve_challenge(state: CritterState, challenger: int, card: int) -> None:
    # CRITTERS-26: the challenge ability is checked before values are compared.
    if ability_takes_effect(state, card):
        kind = state.game.ability_kind[card]
        state._log_later(events.ability_took_effect, state.game, challenger, card, state.stack[-1])
        if kind == "trapped by":
            trapped_by(state, card)
        elif kind == "capture":
            capture(state, challenger, card)
        else:
            block(state, challenger, card)
    else:
        compare_values(state, challenger, card)


def ability_takes_effect(state: CritterState, card: int) -> bool:
    # CRITTERS-14, CRITTERS-15: only on a colour match with the active card.
    # CRITTERS-11: the active card's own ability is never looked at.
    return state.game.ability_colour[card] == state.game.colour[state.stack[-1]]


def trapped_by(state: CritterState, card: int) -> None:
    # CRITTERS-16: the active player corrals the challenge card; active player and card remain.
    corral(state, state.active, [card], "traps", ("CRITTERS-19", "CRITTERS-16"))


def capture(state: CritterState, challenger: int, card: int) -> None:
    # CRITTERS-17: the challenger corrals the active card and becomes active with their card.
    take_over(state, challenger, card, "captures", ("CRITTERS-19", "CRITTERS-17"))


def block(state: CritterState, challenger: int, card: int) -> None:
    # CRITTERS-18: the challenger corrals their own challenge card; active player and card remain.
    corral(state, challenger, [card], "blocks and keeps", ("CRITTERS-19", "CRITTERS-18"))


def compare_values(state: CritterState, challenger: int, card: int) -> None:
    # CRITTERS-20: no ability took effect, so the chosen values are compared.
    attribute = state.attribute
    assert attribute is not None
    mine, theirs = state.game.values[card][attribute], state.game.values[state.stack[-1]][attribute]
    state._log_later(events.compared, attribute, mine, theirs)
    if mine > theirs:
        take_over(state, challenger, card, "wins and takes", ("CRITTERS-19", "CRITTERS-21"))
    elif mine < theirs:
        corral(state, state.active, [card], "wins and takes", ("CRITTERS-19", "CRITTERS-22"))
    else:
        stack_tie(state, challenger, card)  # CRITTERS-23


def take_over(state: CritterState, challenger: int, card: int, verb: str, rules: tuple[str, ...]) -> None:
    # CRITTERS-17, CRITTERS-21: the active card and any cards under it go to the challenger's corral;
    # CRITTERS-27: the challenger takes the puck, the starting player token stays.
    corral(state, challenger, state.stack, verb, rules)
    state.stack = [card]
    state.active = challenger
    if state.game.options.rechoose_on_takeover and state.plays < state.game.num_players:
        state.phase = TIE_CHOOSE


def stack_tie(state: CritterState, challenger: int, card: int) -> None:
    # CRITTERS-23: equal values: the active card goes under the challenge card, which becomes active
    # with everything under it; its player chooses commonness or size afresh (CRITTERS-40: not on the
    # round's last play, where the round ends at once).
    state.stack.append(card)
    state.active = challenger
    state._log_later(events.tied, state.game, challenger, card, len(state.stack) - 1)
    if state.plays < state.game.num_players:
        state.phase = TIE_CHOOSE


def corral(state: CritterState, player: int, cards: list[int], verb: str, rules: tuple[str, ...]) -> None:
    # CRITTERS-19: won cards go face down into the winner's corral; `rules` name it and the rule that won them.
    state.corrals[player].extend(cards)
    state._log_later(events.corralled, state.game, player, tuple(cards), verb, rules)


def end_round(state: CritterState) -> None:
    # CRITTERS-28: the active card (and any cards under it) goes to the active player's corral.
    corral(state, state.active, state.stack, "keeps the active card", ("CRITTERS-19", "CRITTERS-28"))
    state.stack = []
    state.attribute = None
    state.round += 1
    # CRITTERS-31: the game ends when every card has been played.
    if state.round == state.rounds:
        begin_final_choice(state)
        return
    # CRITTERS-30: the player to the left of the previous starting player starts the next round.
    state.start = (state.start + 1) % state.game.num_players
    start_round(state)


def begin_final_choice(state: CritterState) -> None:
    # CRITTERS-32: the player with the fewest cards chooses; a tie goes to whoever played last.
    n = state.game.num_players
    order = [(state.start + k) % n for k in range(n)]  # the last round's playing order
    fewest = min(len(state.corrals[p]) for p in order)
    state.chooser = [p for p in order if len(state.corrals[p]) == fewest][-1]
    state.phase = FINAL_CHOOSE
    state._log_later(events.final_choice, state.chooser)


def score_corrals(state: CritterState) -> None:
    # CRITTERS-33: each player totals the chosen value over their corral; most points wins.
    attribute = state.final_attribute
    assert attribute is not None
    state.scores = [sum(state.game.values[c][attribute] for c in corral) for corral in state.corrals]
    state.phase = OVER
    state._log_later(events.scored, attribute, tuple(state.scores))
