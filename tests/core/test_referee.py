"""The referee's race model (core/referee.py), on Lungo's insect swat (LUNGO-51, LUNGO-53)."""

from __future__ import annotations

import random

from bestiary.core.api import Action, State
from bestiary.core.referee import Referee, VirtualClock
from tests.games.lungo.test_terminal_race import swat_race


class Fixed:
    """A computer seat that always answers `answer` (or its first legal action) after `delay` seconds."""

    def __init__(self, answer: str, delay: float) -> None:
        self.answer, self.delay, self.asked = answer, delay, 0

    def choose(self, state: State, player: int, rng: random.Random) -> Action:
        self.asked += 1
        legal = state.legal_actions(player)
        return next((a for a in legal if str(a) == self.answer), legal[0])

    def reaction(self, state: State, player: int, rng: random.Random) -> float:
        return self.delay


def test_the_quickest_racer_wins_and_the_slower_one_is_never_asked() -> None:
    """LUNGO-53: the first swat wins the race."""
    state = swat_race("dew-mantis")
    slow, quick = Fixed("swat", 0.5), Fixed("swat", 0.3)
    referee = Referee(1, [slow, quick])
    assert [a.player for a in referee.arrivals(state)] == [1, 0]
    assert referee.step(state) is not None
    assert state.history()[-1][0] == 1 and str(state.history()[-1][1]) == "swat"
    assert slow.asked == 0 and state.decision_kind() != "race"


def test_a_pass_takes_only_its_sender_out_and_the_others_times_stand() -> None:
    """LUNGO-53: a pass takes only its sender out of the race; the slower racer still swats, at its time."""
    state = swat_race("dew-mantis")
    clock = VirtualClock()
    referee = Referee(1, [Fixed("swat", 0.5), Fixed("pass", 0.3)], clock)
    referee.step(state)
    assert [str(a) for _, a in state.history()[-1:]] == ["pass"] and clock.time() == 0.3
    assert [(a.at, a.player) for a in referee.arrivals(state)] == [(0.5, 0)]  # not drawn again
    referee.step(state)
    assert (state.history()[-1][0], str(state.history()[-1][1])) == (0, "swat") and clock.time() == 0.5


def test_a_person_is_never_chosen_for() -> None:
    state = swat_race("dew-mantis")
    referee = Referee(1, [None, Fixed("pass", 0.3)])
    assert referee.step(state) == (1, state.history()[-1][1])
    assert referee.step(state) is None  # the person is left to answer


def test_chance_is_drawn_from_the_seed_and_the_step_alone() -> None:
    state = swat_race("cinder-wisp")
    for player in state.players_to_act():
        state.apply_action("pass", player=player)
    assert state.is_chance_node()
    first = Referee(5, [None, None]).chance_outcome(state)
    other = Referee(5, [None, None])
    other.rng("chance", 0).random()  # draws made elsewhere do not move this one
    assert other.chance_outcome(state) == first
