"""Creatures of Lungo's rules on the table: what may be played, goals and the tokens (ids in
docs/rules/creatures-of-lungo.md). The order of play is in flow.py, battles in battles.py, card effects in
effects.py."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bestiary.games.lungo import events
from bestiary.games.lungo.phases import OVER, TOKEN_MOMENT, TOKEN_RACE

if TYPE_CHECKING:
    from bestiary.games.lungo.game import CreaturesOfLungo
    from bestiary.games.lungo.state import LungoState

def left_of(state: LungoState, player: int) -> int:
    # LUNGO-43, LUNGO-74: "left" is the next seat.
    return (player + 1) % state.game.num_players


def playable(game: CreaturesOfLungo, card: int, afflicted: bool) -> bool:
    """LUNGO-9, LUNGO-30: action cards, poison and antidotes are played in your own turn; a cure needs
    something in front of you."""
    if game.kinds[card] == "poison":
        return True
    effect = game.effects[card]
    if effect is None or game.is_response[card]:
        return False
    if effect.keyword in ("cleanse", "pass-affliction"):
        return afflicted
    return True


# -- goals and tokens ---------------------------------------------------------------------------------
def goal_met(state: LungoState, player: int) -> bool:
    # LUNGO-8, LUNGO-64: every requirement of the goal is met by cards in hand.
    goal = state.goals[player]
    if goal < 0:
        return False
    hand = state.hands[player]
    for count, fitting in state.game.goal_tables[goal]:  # noqa: SIM110  (a loop: a generator costs calls)
        if len(fitting.intersection(hand)) < count:
            return False
    return True


def may_take_token(state: LungoState, player: int) -> bool:
    # LUNGO-16, LUNGO-56: the goal met, nothing in front of you, no token yet.
    return player not in state.takers and not state.afflictions[player] and goal_met(state, player)


def take_token(state: LungoState, player: int) -> None:
    if state.unnoticed >= 0:
        # LUNGO-57: reaching for a token, a player sees one is missing
        notice_missing_token(state, player)
        if state.phase == OVER:
            return
    first = not state.takers
    state.takers.append(player)
    state.tokens -= 1
    if first and state.game.discreet_grabs and state.phase != TOKEN_MOMENT:
        # LUNGO-57 (option token_grab="discreet"): the game goes on until someone notices
        state.unnoticed = player
        state._log_later(events.discreet_token, player)
        return
    if first:
        # LUNGO-21, LUNGO-57: the first taker is the winner; everyone else races for the rest.
        state._log_later(events.first_token, player)
    else:
        state._log_later(events.grabbed_token, player)
    race_for_the_rest(state)


def race_for_the_rest(state: LungoState) -> None:
    if state.tokens == 0:
        state.loser = next(p for p in range(state.game.num_players) if p not in state.takers)
        state._log_later(events.left_without_token, state.loser)
        state.phase = OVER
    else:
        state.phase = TOKEN_RACE


def notice_missing_token(state: LungoState, noticer: int) -> None:
    """LUNGO-57: an unnoticed grab is seen; the race for the other tokens begins."""
    taker = state.unnoticed
    state.unnoticed = -1
    state._log_later(events.noticed_token, noticer, taker)
    race_for_the_rest(state)


def undo_unnoticed_grab(state: LungoState) -> None:
    """A sampled world in which the unnoticed grab has not happened (for a player who has not seen it)."""
    state.takers.remove(state.unnoticed)
    state.tokens += 1
    state.unnoticed = -1


def offer_token_when_eligible(state: LungoState, decider: int, resume: str) -> bool:
    """LUNGO-56 (option token_moment="eligible"): "at any time": when a player's goal has just been met and
    they are not the one deciding now (who is offered the grab among their own actions), a token moment opens
    at once, a race in which everyone is asked, so that it shows nobody whose goal it is. `resume` is the phase
    to go back to when everyone has passed (TURN_ENDS: the turn passes on). Whether it opened."""
    offered = state.offered
    newly = False
    for player in range(state.game.num_players):
        if not may_take_token(state, player):
            offered[player] = False
        elif not offered[player]:
            offered[player] = True
            newly = newly or player != decider
    if not newly:
        return False
    state.resume = resume
    state.phase = TOKEN_MOMENT
    state.passed = [False] * state.game.num_players
    return True
