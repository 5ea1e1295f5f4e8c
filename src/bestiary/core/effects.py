"""Card effects as data: a keyword plus parameters in the card file, run by a small registered function.

A game keeps one EffectRegistry. Card schemas validate effect tables through it, so an unknown keyword
or a bad parameter is a card-file error naming the file, card and field; rules call `run` to apply one.

    effects = EffectRegistry("cube-creatures")

    @effects.register("deal-damage", amount=int, target=str)
    def deal_damage(state, source, amount, target): ...

    # in a card file:  effect = { keyword = "deal-damage", amount = 2, target = "guard" }
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Effect:
    keyword: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"keyword": self.keyword, **self.params}


@dataclass(frozen=True)
class _Registered:
    function: Callable[..., Any]
    params: Mapping[str, type]
    defaults: Mapping[str, Any]


class EffectRegistry:
    def __init__(self, game: str) -> None:
        self.game = game
        self._effects: dict[str, _Registered] = {}

    def register(self, keyword: str, defaults: Mapping[str, Any] | None = None,
                 **params: type) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Register the function for `keyword`; `params` name each parameter's type, `defaults` the
        optional ones."""
        def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
            if keyword in self._effects:
                raise ValueError(f"{self.game}: effect '{keyword}' registered twice")
            self._effects[keyword] = _Registered(function, dict(params), dict(defaults or {}))
            return function
        return decorate

    def keywords(self) -> list[str]:
        return sorted(self._effects)

    def parse(self, raw: Any) -> Effect:
        """An Effect from a card file's table; ValueError says what is wrong."""
        if isinstance(raw, Effect):
            return raw
        if not isinstance(raw, Mapping) or "keyword" not in raw:
            raise ValueError("an effect is a table with a 'keyword' and its parameters")
        keyword = raw["keyword"]
        spec = self._effects.get(keyword)
        if spec is None:
            raise ValueError(f"unknown effect keyword '{keyword}' (known: {', '.join(self.keywords())})")
        params = {k: v for k, v in raw.items() if k != "keyword"}
        for name in params:
            if name not in spec.params:
                raise ValueError(f"effect '{keyword}' has no parameter '{name}' "
                                 f"(parameters: {', '.join(spec.params) or 'none'})")
        for name, kind in spec.params.items():
            if name not in params:
                if name in spec.defaults:
                    params[name] = spec.defaults[name]
                    continue
                raise ValueError(f"effect '{keyword}' needs parameter '{name}' ({kind.__name__})")
            value = params[name]
            if kind is float and isinstance(value, int) and not isinstance(value, bool):
                value = params[name] = float(value)
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise ValueError(f"effect '{keyword}': parameter '{name}' must be {kind.__name__}, "
                                 f"not {value!r}")
        return Effect(keyword, params)

    def run(self, effect: Effect, *args: Any, **context: Any) -> Any:
        return self._effects[effect.keyword].function(*args, **context, **effect.params)
