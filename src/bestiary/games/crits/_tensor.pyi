from typing import Any

import numpy as np

class TensorTables:
    def __init__(self, spec: dict[str, Any], /) -> None: ...
    def body(self, state: Any, viewer: int, out: np.ndarray, attacker: int, target: int, next_to_place: int,
             /) -> None: ...
