from typing import Any

from bestiary.core.api import Action

class TurnTables:
    def __init__(self, spec: dict[str, Any], /) -> None: ...
    def turn_actions(self, state: Any, deploys: tuple[Action, ...], /) -> list[Action]: ...
