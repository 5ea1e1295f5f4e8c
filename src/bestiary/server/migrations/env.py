"""Alembic environment: runs on the connection `bestiary.server.db.upgrade` passes in."""

from alembic import context

from bestiary.server.db import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
