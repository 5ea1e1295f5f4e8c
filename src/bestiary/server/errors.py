"""How the server refuses: a refusal the client caused, with a message meant for its user."""

from __future__ import annotations

UNAVAILABLE = "the database is not answering, so nothing was changed; try again in a moment"


class ServerError(Exception):
    """A refusal the client caused; the message is meant for its user."""

    def __init__(self, error: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.error = error
        self.message = message
        self.status = status
