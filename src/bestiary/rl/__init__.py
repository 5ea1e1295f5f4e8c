"""Research adapters: Bestiary games as PettingZoo, Gymnasium and OpenSpiel environments (docs/rl.md).

Each adapter lives in its own module and needs the `rl` extra (`pip install 'bestiary[rl]'`):
`bestiary.rl.pettingzoo`, `bestiary.rl.gymnasium`, `bestiary.rl.vector` (many games stepped together),
`bestiary.rl.batched` (many games held as arrays, for games with a batched engine), `bestiary.rl.openspiel`.
This package itself, and `bestiary.rl.table`, need only numpy.
"""
