from collections.abc import Sequence
from typing import TypeGuard, TypeVar

import numpy as np

from bestiary.core.api import Action

T = TypeVar("T")

def is_listed(item: object, items: Sequence[T], /) -> TypeGuard[T]: ...
def mark_indices(mask: np.ndarray, actions: Sequence[Action], /) -> None: ...
