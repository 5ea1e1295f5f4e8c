"""Creatures of Lungo."""

from bestiary.games.lungo.game import CreaturesOfLungo

__all__ = ["CreaturesOfLungo"]
