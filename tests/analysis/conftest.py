"""Small simulation runs shared by the analysis tests (module-scoped so each is played once)."""

import pytest

from bestiary.analysis.backends import simulate
from bestiary.analysis.simulate import SimulationSpec


def critter_spec(players=4, agents=("heuristic", "random"), seed=11, **options):
    return SimulationSpec("critter-capture", {"players": players, **options}, tuple(agents), seed)


@pytest.fixture(scope="session")
def critter_records():
    """24 four-player games, heuristic against random, played in this process."""
    return list(simulate(critter_spec(), 24))
