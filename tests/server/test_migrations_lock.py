"""Several workers starting at once on an empty PostgreSQL database: one migrates, the others wait for it, and
every one starts (before the lock, two workers migrating together crashed one in three starts)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import create_engine, text

from bestiary.server.db import open_database
from tests.server.conftest import POSTGRES_ENV, postgres_url

STARTS = 4  # workers starting at once
ROUNDS = 3  # each on an emptied database


def test_workers_starting_together_migrate_once_and_all_start() -> None:
    url = postgres_url()
    if url is None:
        pytest.skip(f"no PostgreSQL server: set {POSTGRES_ENV} (.ci/server-services.sh starts one)")
    for _ in range(ROUNDS):
        postgres_url()  # the schema dropped again
        with ThreadPoolExecutor(STARTS) as starting:
            engines = list(starting.map(lambda _: open_database(url), range(STARTS)))  # an error is raised here
        for engine in engines:
            engine.dispose()
        engine = create_engine(url)
        with engine.connect() as connection:
            versions = connection.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
            tables = connection.execute(text("SELECT count(*) FROM information_schema.tables "
                                             "WHERE table_name IN ('rooms', 'seats', 'moves')")).scalar_one()
        engine.dispose()
        assert len(versions) == 1
        assert tables == 3
