"""Private rooms and people's seats: a room is listed in the lobby only when made public, and a seat remembers
that a person sat in it (so a rematch keeps it for them after a computer took over).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:  # rooms made before were all listed while waiting
        batch.add_column(sa.Column("public", sa.Boolean, nullable=False, server_default=sa.true()))
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("person", sa.Boolean, nullable=False, server_default=sa.false()))
    op.execute("UPDATE seats SET person = (token_hash IS NOT NULL)")


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("person")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("public")
