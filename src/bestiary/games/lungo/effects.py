"""Creatures of Lungo's card effects as data: what action cards (LUNGO-63) and a battle's winnings (LUNGO-47)
do, each keyword a small function registered with the card files' parser (cards.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bestiary.games.lungo import events
from bestiary.games.lungo.cards import ACTION_EFFECTS, WINNINGS
from bestiary.games.lungo.phases import DISCARD, DRAW, PLAY, STEAL, Job

if TYPE_CHECKING:
    from bestiary.games.lungo.state import LungoState

# -- action card effects (LUNGO-63) -------------------------------------------------------------------
@ACTION_EFFECTS.register("draw", count=int)
def effect_draw(state: LungoState, player: int, target: int, count: int) -> None:
    state.jobs.extend(Job(DRAW, player) for _ in range(count))


@ACTION_EFFECTS.register("steal")
def effect_steal(state: LungoState, player: int, target: int) -> None:
    state.jobs.append(Job(STEAL, player, target))


@ACTION_EFFECTS.register("discard-random")
def effect_discard_random(state: LungoState, player: int, target: int) -> None:
    state.jobs.append(Job(DISCARD, target))


@ACTION_EFFECTS.register("swap-hands")
def effect_swap_hands(state: LungoState, player: int, target: int) -> None:
    # LUNGO-17: poison and toxic slime go with the hand.
    hands, front = state.hands, state.afflictions
    hands[player], hands[target] = hands[target], hands[player]
    front[player], front[target] = front[target], front[player]
    state._log_later(events.swapped_hands, player, target)


@ACTION_EFFECTS.register("pass-affliction")
def effect_pass_affliction(state: LungoState, player: int, target: int) -> None:
    card = state.afflictions[player].pop()
    state.afflictions[target].append(card)
    state._log_later(events.affliction_passed, state.game, player, card, target)


@ACTION_EFFECTS.register("cleanse", all=bool)
def effect_cleanse(state: LungoState, player: int, target: int, all: bool) -> None:
    # LUNGO-17: an antidote or certain action cards remove poison and toxic slime.
    front = state.afflictions[player]
    removed = front[:] if all else front[-1:]
    del front[len(front) - len(removed):]
    state.discard.extend(removed)
    state._log_later(events.cleansed, state.game, player, tuple(removed))


@ACTION_EFFECTS.register("cancel")
def effect_cancel(state: LungoState, player: int, target: int) -> None:
    state._log_later(events.cancelled, state.game, state.pending)
    state.discard.append(state.pending)
    state.pending = -1
    state.target = -1
    state.phase = PLAY


# -- battle winnings (LUNGO-47) -----------------------------------------------------------------------
@WINNINGS.register("take-played", defaults={"draw": 0}, which=str, draw=int)
def take_played(state: LungoState, winner: int, which: str, draw: int) -> None:
    # LUNGO-47: mutant genes are never winnings; the rest as the card says.
    if which not in ("creatures", "all"):
        raise ValueError(f"take-played: which must be 'creatures' or 'all', not '{which}'")
    game = state.game
    taken = []
    for player, cards in enumerate(state.choices):
        kept = [c for c in cards if game.kinds[c] != "gene" and (which == "all" or game.is_creature[c])]
        taken += kept
        state.choices[player] = [c for c in cards if c not in kept]
    state.hands[winner].extend(taken)
    if taken:
        state._log_later(events.took_played, game, winner, tuple(taken))
    state.jobs.extend(Job(DRAW, winner) for _ in range(draw))


@WINNINGS.register("draw", count=int)
def winnings_draw(state: LungoState, winner: int, count: int) -> None:
    state._log_later(events.winnings_drawn, winner, count)
    state.jobs.extend(Job(DRAW, winner) for _ in range(count))


@WINNINGS.register("lose-random", count=int)
def lose_random(state: LungoState, loser: int, count: int) -> None:
    state._log_later(events.lost_random, loser, count)
    state.jobs.extend(Job(DISCARD, loser) for _ in range(count))


@WINNINGS.register("take-pile")
def take_pile(state: LungoState, winner: int) -> None:
    # LUNGO-67: battle cards and toxic slime in the won pile cannot be held and are discarded.
    game = state.game
    kept = [c for c in state.central if not game.is_battle[c] and game.kinds[c] != "slime"]
    state.hands[winner].extend(kept)
    state.central = [c for c in state.central if c not in kept]
    state._log_later(events.took_pile, winner, len(kept))
