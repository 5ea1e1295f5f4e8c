"""Teaching routes: every game's rules as data and as a page, the computer levels and the option rules for the
lobby, and the guided first game (`/learn/{game}`), replayed from the learner's moves at each request so that
the server keeps nothing between them."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter
from fastapi.responses import FileResponse, JSONResponse
from pydantic import BaseModel, Field, StringConstraints

from bestiary.core.errors import BestiaryError, IllegalActionError
from bestiary.core.registry import game_class, list_games
from bestiary.core.rulebook import rule_ids_in, rules_of
from bestiary.server.protocol import ErrorBody
from bestiary.tutorial import MAX_MOVES, Tutorial, teaching_of

WEB = Path(__file__).resolve().parent.parent / "web"

router = APIRouter()

MoveText = Annotated[str, StringConstraints(max_length=200)]


class RuleView(BaseModel):
    id: str
    section: str
    text: str = Field(description="the rule book's words; empty where Bestiary decided what the book leaves open")
    reading: str = Field(description="how Bestiary plays it; empty where it plays the book's words as written")


class TeachingView(BaseModel):
    game: str
    title: str
    computers: dict[str, str] = Field(description="the agent behind each level: easy, medium, hard")
    option_rules: dict[str, list[str]] = Field(description="the rule ids each game option changes")
    lessons: dict[str, str] = Field(description="rules in plain words for people new to the game, by rule id")
    more_options: list[str] = Field(description="options for designers and experienced players, shown apart")
    tutorial: bool = Field(description="whether the game has a guided first game at /learn/{game}")


class LearnRequest(BaseModel):
    moves: list[MoveText] = Field(default_factory=list, max_length=MAX_MOVES,
                                  description="the learner's moves so far, as returned by the last answer")
    move: MoveText | None = Field(default=None, description="the learner's next move")


def not_found(game: str) -> JSONResponse:
    return JSONResponse({"error": "not-found", "message": f"no game named '{game}' (games: "
                                                         f"{', '.join(list_games())})"}, status_code=404)


@router.get("/api/games/{game}/rules", response_model=list[RuleView], responses={404: {"model": ErrorBody}})
async def game_rules(game: str) -> Any:
    """Every rule of the game's rule book, in the book's order: its id, section, text and Bestiary's reading."""
    if game not in list_games():
        return not_found(game)
    try:
        return [rule.to_dict() for rule in rules_of(game_class(game).info.rules_doc)]
    except BestiaryError:
        return JSONResponse({"error": "not-found", "message": f"{game} has no rules document"}, status_code=404)


@router.get("/api/games/{game}/teaching", response_model=TeachingView, responses={404: {"model": ErrorBody}})
async def game_teaching(game: str) -> Any:
    """The game's computer levels, the rules its options change, and its rules in plain words."""
    if game not in list_games():
        return not_found(game)
    cls = game_class(game)
    options = {name: rule_ids_in(spec.description or "") for name, spec in cls.Options.model_fields.items()}
    teaching = teaching_of(game)
    return TeachingView(game=game, title=cls.info.title, computers=dict(teaching.computers),
                        option_rules={name: ids for name, ids in options.items() if ids},
                        lessons=dict(teaching.lessons), more_options=list(teaching.more_options),
                        tutorial=teaching.has_tutorial)


@router.post("/api/learn/{game}", responses={status: {"model": ErrorBody} for status in (404, 409, 422)})
async def learn(game: str, request: LearnRequest) -> Any:
    """The guided first game after the learner's `moves` and `move`. A refused `move` answers 409, its message
    ending with the ids of the rules that forbid it; moves that do not replay answer 422."""
    if game not in list_games():
        return not_found(game)
    return await asyncio.to_thread(_learn, game, request)


def _learn(game: str, request: LearnRequest) -> Any:
    if not teaching_of(game).has_tutorial:
        return JSONResponse({"error": "not-found", "message": f"{game} has no guided first game yet"},
                            status_code=404)
    try:
        tutorial = Tutorial.replayed(game, request.moves)
    except BestiaryError as error:
        return JSONResponse({"error": "bad-request", "message": str(error)}, status_code=422)
    if request.move is not None:
        try:
            tutorial.play(request.move)
        except IllegalActionError as error:  # the reason and the ids of the rules that forbid the move
            unnamed = [rule for rule in error.rules if rule not in error.reason]
            return JSONResponse({"error": "illegal", "message": f"Not allowed: {error.reason}"
                                 + (f" ({', '.join(unnamed)})" if unnamed else "")}, status_code=409)
        except BestiaryError as error:
            return JSONResponse({"error": "illegal", "message": str(error)}, status_code=409)
    return tutorial.to_dict()


@router.get("/rules/{game}", include_in_schema=False)
async def rules_page(game: str) -> FileResponse:
    return FileResponse(WEB / "rules.html")


@router.get("/learn/{game}", include_in_schema=False)
async def learn_page(game: str) -> FileResponse:
    return FileResponse(WEB / "learn.html")
