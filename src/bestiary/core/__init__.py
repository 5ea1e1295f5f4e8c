"""The game-independent core: the game API, chance, cards, records and scenarios."""
