"""The Ray backend on a local Ray started by the test gives the records of the local backend."""

import pytest

from bestiary.analysis.backends import simulate
from tests.analysis.conftest import critter_spec

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'bestiary[ray]')")


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_ray_backend_matches_the_local_backend(local_ray, critter_records):
    assert list(simulate(critter_spec(), 24, jobs=2, backend="ray")) == critter_records
