from collections.abc import Sequence
from typing import TypeGuard, TypeVar

T = TypeVar("T")

def is_listed(item: object, items: Sequence[T], /) -> TypeGuard[T]: ...
