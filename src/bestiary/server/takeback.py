"""Taking back a move, where the rules of fair play allow it (as Board Game Arena does): a player may take
back their own last moves of the turn they are still playing, one at a time, while nothing since the turn
began was drawn or rolled, no other player acted, and the move showed no one anything hidden.

Decided from the game API alone, for any game: a chance outcome or another seat in the history ends what
can be taken back; a move that logged a private event revealed something; and a move revealed something
to a player when, replayed in worlds that player cannot tell from the real one (`State.determinize`), it
is refused or leaves that player seeing something else than in the real game (their observation or their
share of the log); in a game of perfect information (`GameInfo.information`) only private events are
looked for, since nothing else is hidden. The move is also judged in worlds the mover cannot tell from the
real one, and refused if it reveals something in any: a refusal must not itself tell the mover something
hidden. The worlds are drawn from the room's seed and the version, so every worker and every restart answers
alike.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bestiary.core.api import CHANCE, Action, Event, State
from bestiary.core.errors import BestiaryError

WORLDS = 3  # worlds sampled per player: a revealing move changes what its player sees in nearly all of them


@dataclass(frozen=True)
class Verdict:
    """Whether the seat may take back its last move now; `why` names the reason it may not, and what it
    would take back when it may (the public log lines of that move)."""

    allowed: bool
    why: str
    taken_back: tuple[Event, ...] = ()


def refusal(why: str) -> Verdict:
    return Verdict(False, why)


def judge(before: State | None, after: State, seat: int, seed: int) -> Verdict:
    """May `seat` take back the last move that led from `before` to `after` (`after` is the room's state,
    `before` the position just before its last move, None where the room does not hold it: the last move
    was not one that can be taken back)?"""
    to_act = after.players_to_act()
    if after.decision_kind() != "turn" or to_act != [seat]:
        if not to_act:
            return refusal("no one is to act now")
        who = ", ".join(f"P{p + 1}" for p in to_act)
        return refusal(f"only the player whose turn it is may take back a move, during that turn ({who} to act)")
    history = after.history_since(after.history_length() - 1) if after.history_length() else []
    if not history:
        return refusal("nothing has been played yet")
    last_player, _ = history[0]
    if last_player == CHANCE:
        return refusal("a chance event (a draw, a roll or a shuffle) happened since: it cannot be undone")
    if last_player != seat:
        return refusal(f"the last move was P{last_player + 1}'s: you may take back only your own moves, while no "
                       "one else has acted since")
    if before is None or before.history_length() != after.history_length() - 1:
        return refusal("that move cannot be taken back")
    action = after.history_since(before.history_length())[0][1]
    logged_before = len(before.all_events())
    new_events = after.all_events()[logged_before:]
    if any(event.audience is not None for event in new_events):
        return refusal("that move revealed hidden information")
    if after.game.info.information == "perfect":  # nothing is hidden, so nothing can be revealed
        return Verdict(True, "", tuple(new_events))
    rng = random.Random(f"take back {seed} {after.history_length()}")
    if reveals(before, after, action, seat, rng, logged_before, WORLDS):
        return refusal("that move revealed hidden information")
    # The same move in worlds the mover cannot tell from this one: were it to reveal something there, a
    # refusal here alone would tell the mover which world this is. So it is refused in all of them (each
    # looked at from one world of each player's: a cheaper look than the real game's).
    for _ in range(WORLDS):
        world = before.determinize(seat, rng)
        moved = world.clone()
        try:
            moved.apply_action(str(action), player=seat)
        except BestiaryError:
            return refusal("that move revealed hidden information")
        if moved.is_chance_node() or reveals(world, moved, action, seat, rng, logged_before, 1):
            return refusal("that move revealed hidden information")
    return Verdict(True, "", tuple(new_events))


def reveals(before: State, after: State, action: Action, seat: int, rng: random.Random, logged_before: int,
            worlds: int) -> bool:
    """Whether `seat`'s `action`, from `before` (whose log holds `logged_before` events) to `after`, showed
    anyone something hidden: a private event, or a player who sees something else in one of `worlds` worlds
    they cannot tell from `before`."""
    new_events = after.all_events()[logged_before:]
    if any(event.audience is not None for event in new_events):
        return True
    return any(shows_something(before, after, action, seat, player, rng, new_events, logged_before, worlds)
               for player in range(after.game.num_players))


def shows_something(before: State, after: State, action: Action, seat: int, player: int, rng: random.Random,
                    new_events: list[Event], logged_before: int, worlds: int) -> bool:
    """Whether `seat`'s `action` from `before` told `player` something they did not know: in some world
    `player` cannot tell from `before`, the same action is refused, or `player` sees another position or
    other log lines after it than in the real game (`new_events`: the move's own)."""
    seen = after.observation(player)
    logged = [event for event in new_events if event.visible_to(player)]
    for _ in range(worlds):
        world = before.determinize(player, rng)
        try:
            world.apply_action(str(action), player=seat)
        except BestiaryError:
            return True  # it can only be played in some of the worlds: playing it showed which
        if world.observation(player) != seen:
            return True
        if [event for event in world.all_events()[logged_before:] if event.visible_to(player)] != logged:
            return True
    return False
