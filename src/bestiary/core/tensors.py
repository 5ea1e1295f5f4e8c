"""Observation tensors laid out as named fields, one after another in a flat float32 vector."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

Layout = Sequence[tuple[str, int]]  # (field name, number of values), in order


def layout_shape(layout: Layout) -> tuple[int, ...]:
    return (sum(size for _, size in layout),)


def split_layout(layout: Layout, values: np.ndarray) -> dict[str, np.ndarray]:
    """Views of a tensor's fields by name (writing to a view writes to the tensor)."""
    fields: dict[str, np.ndarray] = {}
    start = 0
    for name, size in layout:
        fields[name] = values[start:start + size]
        start += size
    return fields
