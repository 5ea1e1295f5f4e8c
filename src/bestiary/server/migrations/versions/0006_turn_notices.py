"""Turn notices: a seat's e-mail address or webhook, to be told when it is their turn while away, with the
token of its unsubscribe link and the turn it last told of.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "turn_notices",
        sa.Column("room_code", sa.String(32), sa.ForeignKey("rooms.code", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("address", sa.Text, nullable=False),
        sa.Column("token", sa.String(64), nullable=False, unique=True),
        sa.Column("link_base", sa.Text, nullable=False),
        sa.Column("notified_turn", sa.Integer, nullable=True),
    )


def downgrade() -> None:
    op.drop_table("turn_notices")
