from typing import Any

import numpy as np

CODES: dict[str, Any]

def advance(ints: np.ndarray, arrays: tuple[np.ndarray, ...], engine: Any, streams: Any, actions: np.ndarray | None,
            games: np.ndarray, seat: int, others: bool, /) -> None: ...
def legal_mask(ints: np.ndarray, arrays: tuple[np.ndarray, ...], games: np.ndarray, out: np.ndarray, /) -> None: ...
def observation(ints: np.ndarray, arrays: tuple[np.ndarray, ...], viewers: np.ndarray, out: np.ndarray, /) -> None: ...
