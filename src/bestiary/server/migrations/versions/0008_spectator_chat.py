"""Spectator chat: a room may let the pages watching without a seat write in its chat (chosen when it is made;
rooms made before keep chat to their seats), and a kept chat line's seat is null when a spectator wrote it.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # never a batch (copy and drop) on rooms: on SQLite, dropping the old rooms table would cascade to every
    # room's seats, moves and chat; SQLite adds a column in place
    op.add_column("rooms", sa.Column("spectator_chat", sa.Boolean, nullable=False, server_default=sa.false()))
    with op.batch_alter_table("chat_lines") as batch:  # no table refers to chat_lines: copying it is safe
        batch.alter_column("seat", existing_type=sa.Integer, nullable=True)


def downgrade() -> None:
    op.execute("DELETE FROM chat_lines WHERE seat IS NULL")  # a seat-only chat has no place for a spectator's line
    with op.batch_alter_table("chat_lines") as batch:
        batch.alter_column("seat", existing_type=sa.Integer, nullable=False)
    op.drop_column("rooms", "spectator_chat")
