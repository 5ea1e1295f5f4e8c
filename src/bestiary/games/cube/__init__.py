"""Cube Creatures."""

from bestiary.games.cube.game import CubeCreatures

__all__ = ["CubeCreatures"]
