"""Creatures of Lungo's phases of play and its chance jobs: the words that the state, the flow of play, the
battles and the rules share."""

from __future__ import annotations

from typing import Final, Literal, NamedTuple

SETUP: Final = "setup"
TURN_DRAW: Final = "turn-draw"
PLAY: Final = "play"
TARGET: Final = "target"
RESPONSE: Final = "response"
CHOOSE: Final = "battle-choose"
FIGHT: Final = "battle-fight"
DICE: Final = "dice-battle"
SWAT_PLACE: Final = "swat-place"
SWAT_RACE: Final = "swat-race"
WINNINGS_DRAW: Final = "battle-winnings"
TOKEN_MOMENT: Final = "token-moment"
TOKEN_RACE: Final = "token-race"
OVER: Final = "over"
# The phases, for type checking: each constant above is one of them.
Phase = Literal["setup", "turn-draw", "play", "target", "response", "battle-choose", "battle-fight", "dice-battle",
                "swat-place", "swat-race", "battle-winnings", "token-moment", "token-race", "over"]
PHASES = (SETUP, TURN_DRAW, PLAY, TARGET, RESPONSE, CHOOSE, FIGHT, DICE, SWAT_PLACE, SWAT_RACE, WINNINGS_DRAW,
          TOKEN_MOMENT, TOKEN_RACE, OVER)
RACE_PHASES = frozenset({SWAT_RACE, TOKEN_MOMENT, TOKEN_RACE})
SIMULTANEOUS_PHASES = RACE_PHASES | {CHOOSE}
SELF_ADVANCING = frozenset({SETUP, TURN_DRAW, FIGHT, DICE, WINNINGS_DRAW})  # phases that move on once no job is due
# LUNGO-56: the phases whose one decider is offered a grab among their actions, and in which a token moment
# opens for the others when their goals are met (option token_moment="eligible")
OFFERING_PHASES = frozenset({PLAY, TARGET, RESPONSE})
TURN_ENDS = "turn-ends"  # a token moment's `resume` when it came in as a turn ended

# The kinds of chance job.
GOAL, DEAL, DRAW, TURN_DRAW_JOB, STEAL, DISCARD, SWAT, ROLL, TOP = range(9)
JOB_NAMES = ("goal", "deal", "draw", "turn-draw", "steal", "discard", "swat", "roll", "top")
UNSEEN, OTHER, BATTLE = -1, 0, 1  # the back of the draw pile's top card (LUNGO-12): not yet shown, or what it shows
DRAW_JOBS = frozenset({DEAL, DRAW, TURN_DRAW_JOB})  # the jobs that take a card from the draw pile


class Job(NamedTuple):
    """A chance job due: a card dealt, drawn or picked, a die rolled, the top card's back shown."""

    kind: int  # one of GOAL to TOP
    player: int  # whom it is for
    other: int = 0  # the other player it involves (whom a card is stolen from), else 0
