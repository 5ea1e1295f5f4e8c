"""Post-game reviews: a finished room's review, asked for from its end screen, kept with the room so that it
is made once and survives a restart (server/reviews.py).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "reviews",
        sa.Column("room_code", sa.String(32), sa.ForeignKey("rooms.code", ondelete="CASCADE"), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("settings", sa.JSON, nullable=False),
        sa.Column("views", sa.JSON, nullable=True),
        sa.Column("message", sa.Text, nullable=True),
        sa.Column("asked_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("reviews")
