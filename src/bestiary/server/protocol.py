"""The messages between the server and its clients, as pydantic models (docs/protocol.md explains them).

REST bodies and websocket messages share these models, so a third-party client or bot can validate
against the same schema (`GET /openapi.json` for REST; `protocol_schema()` for the websocket).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from bestiary.core.api import WindowKind

JSONObject = dict[str, Any]
MAX_NAME = 40
MAX_CHAT = 500
CHAT_KEPT = 100  # a room keeps its newest chat lines, this many
MAX_ACTION = 200
PRINTABLE = r"^[^\x00-\x1f\x7f]*$"  # no control characters (PostgreSQL cannot store NUL in text)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- REST ------------------------------------------------------------------------------------------
class SeatSpec(Strict):
    kind: Literal["human", "bot"] = "human"
    agent: str | None = Field(default=None, max_length=64, description="for a bot: random, heuristic, ...")


class CreateRoom(Strict):
    game: str = Field(max_length=64)
    options: JSONObject = Field(default_factory=dict, description="the game's options (players included)")
    seats: list[SeatSpec] | None = Field(default=None, description="one per player; missing seats are open human seats")
    window_seconds: float = Field(10.0, ge=0.5, le=600, description="how long a response window or race stays open")
    turn_seconds: float | None = Field(default=None, ge=1, le=86400, description=(
        "a person's time for an ordinary turn; when it runs out the game's heuristic moves for them (none: no clock)"))
    public: bool = Field(False, description="list the room in the lobby while it waits for players; a private room "
                                            "is reached only through its invite link")
    spectator_chat: bool = Field(False, description=(
        "pages watching without a seat may write in the chat too (otherwise only the seats write; everyone reads)"))


class JoinSeat(Strict):
    name: str = Field("", max_length=MAX_NAME, pattern=PRINTABLE, description="shown to everyone in the room")


class MoveRequest(Strict):
    action: str = Field(min_length=1, max_length=MAX_ACTION)
    version: int = Field(ge=0, strict=True, description="the state version the move was chosen against")


class SeatInfo(BaseModel):
    seat: int
    kind: Literal["human", "bot"]
    agent: str | None
    name: str | None
    taken: bool
    presence: Literal["open", "connected", "away", "computer"] = Field(default="open", description=(
        "open (no one took it), connected, away (no connection) or computer (a bot plays it)"))
    hand_over_at: datetime | None = Field(default=None, description=(
        "for an away seat: when (UTC) a computer takes over unless the player is back (none: held for ever)"))
    reclaimable: bool = Field(default=False, description=(
        "a computer plays the seat since its player was away; their token can claim it back"))


class RoomInfo(BaseModel):
    code: str
    game: str
    title: str
    options: JSONObject
    status: Literal["waiting", "playing", "finished"]
    seats: list[SeatInfo]
    window_seconds: float
    turn_seconds: float | None
    version: int
    result: JSONObject | None
    rematch: str | None
    public: bool = Field(False, description="listed in the lobby while it waits for players")
    watching: int = Field(default=0, description="how many pages watch the table without a seat")
    spectator_chat: bool = Field(False, description="spectators may write in the chat (chosen when the room was made)")


class TurnNotices(Strict):
    """Where a seat is told that it is their turn while no page of theirs is open (null: not told that way)."""
    email: str | None = Field(default=None, max_length=254, pattern=PRINTABLE)
    webhook: str | None = Field(default=None, max_length=500, pattern=PRINTABLE, description=(
        "an http(s) URL that is sent a POST with JSON {text, content, room, game, seat, link, unsubscribe}"))


class TurnNoticeSettings(BaseModel):
    """A seat's own turn notices, shown only to that seat's token."""
    email: str | None
    webhook: str | None
    email_available: bool = Field(description="whether this server sends e-mail (bestiary serve --smtp)")


class SeatToken(BaseModel):
    room: str
    seat: int
    token: str = Field(description="secret: send it with every move; it acts for this seat only")


class Window(BaseModel):
    kind: WindowKind
    players: list[int]
    opened_at_version: int
    seconds: float
    closes_in: float = Field(description="seconds left when this message was made")


class EventView(BaseModel):
    kind: str
    text: str
    data: JSONObject = Field(default_factory=dict)
    rules: list[str] = Field(default_factory=list, description="ids of the rules that made it happen")


class View(BaseModel):
    """What one seat (or a spectator, seat null) may see now."""

    room: RoomInfo
    seat: int | None
    version: int
    decision_kind: str
    to_act: list[int]
    legal_actions: list[str] = Field(description="the viewer's legal actions now (empty for spectators)")
    observation: JSONObject
    events: list[EventView] = Field(description="the event log as this viewer may see it, from `events_from`")
    events_from: int
    window: Window | None
    turn_closes_in: float | None = Field(description="seconds left on the turn clock of the player to act, if any")
    take_back: TakeBackView | None = Field(default=None, description=(
        "for a seat during the game: whether it may take back its last move (its own, this turn, nothing drawn, "
        "rolled or revealed since), and if not why"))


class TakeBackView(BaseModel):
    allowed: bool = Field(description="whether this seat may take back its last move now")
    why: str = Field(description="when it may not: why, in a few words")


class ReplayView(BaseModel):
    """A finished or running game at one step, as the viewer may see it."""

    step: int
    steps: int
    observation: JSONObject
    events: list[EventView]
    decisions: list[int] = Field(default_factory=list, description=(
        "the steps at which a replay pauses: the start, and after each player's decision with the chance outcomes "
        "it caused"))


class ReviewStatus(BaseModel):
    """A finished game's review (docs/review.md, *In the browser*): asked for, under way, made, or failed."""

    status: Literal["none", "running", "done", "failed"] = Field(description=(
        "none: not asked for; running: being made (done of total steps); done: `review` holds it; failed: "
        "`message` says why (asking again tries again)"))
    done: int = 0
    total: int = 0
    message: str | None = None
    review: JSONObject | None = Field(default=None, description=(
        "the review as the viewer may see it: other seats' moves in the words the replay shows"))


class ErrorBody(BaseModel):
    error: str
    message: str


# -- websocket: client to server -------------------------------------------------------------------
class Hello(Strict):
    type: Literal["hello"]
    token: str | None = Field(default=None, max_length=100, description="a seat token; none to watch")
    events_seen: int = Field(0, ge=0, description="events already shown (on a reconnect)")


class Move(Strict):
    type: Literal["move"]
    action: str = Field(min_length=1, max_length=MAX_ACTION)
    version: int = Field(ge=0, strict=True)  # a JSON integer, never a numeric string
    ref: str | None = Field(default=None, max_length=64, description="echoed in the answer")


class TakeBack(Strict):
    """Take back your last move (allowed as the view's `take_back` says)."""
    type: Literal["take_back"]
    version: int = Field(ge=0, strict=True, description="the state version the take-back was asked at")
    ref: str | None = Field(default=None, max_length=64, description="echoed in the answer")


class TakeBackRequest(Strict):
    version: int = Field(ge=0, strict=True, description="the state version the take-back was asked at")


class Chat(Strict):
    type: Literal["chat"]
    text: str = Field(min_length=1, max_length=MAX_CHAT)
    name: str = Field("", max_length=MAX_NAME, pattern=PRINTABLE, description=(
        "a spectator's name for this line, where the room allows spectators to chat (empty: 'Spectator'); a seat's "
        "lines carry its seat's name and ignore this"))


class Ping(Strict):
    type: Literal["ping"]


ClientMessage = Annotated[Hello | Move | TakeBack | Chat | Ping, Field(discriminator="type")]
client_message = TypeAdapter(ClientMessage)


# -- websocket: server to client -------------------------------------------------------------------
class Welcome(BaseModel):
    type: Literal["welcome"] = "welcome"
    seat: int | None
    view: View


class StateMessage(BaseModel):
    type: Literal["state"] = "state"
    view: View


class Accepted(BaseModel):
    type: Literal["accepted"] = "accepted"
    ref: str | None
    version: int = Field(description="the version after the move")


class ChatLine(BaseModel):
    type: Literal["chat"] = "chat"
    seat: int | None = Field(description="the seat that wrote it; null: a spectator (where the room allows it)")
    name: str = Field(description="the seat's name, or the name a spectator gave: plain text, as `text`")
    text: str = Field(description="plain text, never markup: show it as text")


class ChatHistory(BaseModel):
    """Sent after each welcome: the room's kept chat lines, oldest first (the newest CHAT_KEPT at most)."""
    type: Literal["chat_history"] = "chat_history"
    lines: list[ChatLine]


class Watching(BaseModel):
    """Sent to everyone when a page starts or stops watching without a seat."""
    type: Literal["watching"] = "watching"
    count: int


class Notice(BaseModel):
    """What happened at the table outside the game's rules: a computer took a seat, a turn clock ran out."""
    type: Literal["notice"] = "notice"
    text: str


class ErrorMessage(BaseModel):
    type: Literal["error"] = "error"
    error: str = Field(description="illegal, stale, not-your-turn, not-started, bad-message, bad-token, ...")
    message: str
    ref: str | None = None


class Pong(BaseModel):
    type: Literal["pong"] = "pong"


ServerMessage = Annotated[Welcome | StateMessage | Accepted | ChatLine | ChatHistory | Watching | Notice
                          | ErrorMessage | Pong,
                          Field(discriminator="type")]


def protocol_schema() -> JSONObject:
    """JSON Schema of every websocket message, both ways."""
    return {"client": TypeAdapter(ClientMessage).json_schema(), "server": TypeAdapter(ServerMessage).json_schema()}
