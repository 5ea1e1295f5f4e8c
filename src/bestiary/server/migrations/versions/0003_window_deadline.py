"""Window deadline: an open response window or race keeps the time it had left across a restart.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("window_opened_at", sa.Integer, nullable=True))
        batch.add_column(sa.Column("window_closes_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("window_closes_at")
        batch.drop_column("window_opened_at")
