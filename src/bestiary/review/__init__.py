"""The post-game review: each decision's error, each chance event's luck, each player's summary and the win
probability after every step of a game record (docs/review.md)."""

from bestiary.review.review import (
    CLASSES,
    ChanceEvent,
    Decision,
    PlayerSummary,
    Review,
    ReviewSettings,
    review_record,
)

__all__ = ["CLASSES", "ChanceEvent", "Decision", "PlayerSummary", "Review", "ReviewSettings", "review_record"]
