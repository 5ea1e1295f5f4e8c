"""The post-game review checked against what it must find: planted errors, forced moves, net luck, the same
review for the same seed, and luck named where luck decides (docs/review.md, *Validation*)."""

from __future__ import annotations

import json
import math
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from typer.testing import CliRunner

import bestiary
from bestiary.agents.base import HeuristicAgent, RandomAgent, make_agent
from bestiary.agents.match import play_match
from bestiary.cli.main import app
from bestiary.core.api import CHANCE
from bestiary.core.record import GameRecord, record_of, replay, save_record
from bestiary.review import Review, ReviewSettings, review_record
from bestiary.review.report import review_html, verdict
from bestiary.review.review import ChanceEvent, Decision, PlayerSummary, classify
from tests.review.planted import Finding, findings, planted_game, seat_decisions

CHEAP = ReviewSettings(sims=24, candidates=4, luck_outcomes=6, depth=4)


def heuristic_record(name: str, seed: int, players: int = 2, **options: int) -> GameRecord:
    game = bestiary.load_game(name, players=players, **options)
    return record_of(play_match(game, [HeuristicAgent() for _ in range(players)], seed))


@pytest.fixture(scope="module")
def critter_reviews() -> dict[int, Review]:
    """Two critter capture games between heuristic players, reviewed cheaply, shared by the tests of luck."""
    return {seed: review_record(heuristic_record("critter-capture", seed), CHEAP, seed=seed) for seed in (1, 2)}


def planted_cube_findings(seed: int) -> Finding:
    game = bestiary.load_game("cube-creatures", players=2, win_at=3)
    planted = planted_game(game, make_agent("ismcts:hard"), [HeuristicAgent()], 0, 0.15, seed)
    # the planting seat's decisions, exactly as the whole review weighs them (checked below, in
    # test_the_same_record_and_seed_give_the_same_review), without the time the rest of the review takes
    return findings(seat_decisions(planted.record, ReviewSettings(sims=128), seed, planted.seat), planted)


def test_planted_random_moves_lose_far_more_and_top_the_error_list() -> None:
    # Cube Creatures to three defeated creatures (short games, for CI): seat 1 plays the hard search except at
    # about one decision in seven, chosen by a seeded coin, where it plays a uniformly random legal move.
    # The three games are played and reviewed side by side, on CI's two cores.
    planted_losses: list[float] = []
    other_losses: list[float] = []
    top: list[bool] = []
    with ProcessPoolExecutor(2) as pool:
        games = list(pool.map(planted_cube_findings, (3, 4, 5)))
    for found in games:
        assert found.planted_loss, "the coin planted random moves in every game"
        planted_losses += found.planted_loss
        other_losses += found.other_loss
        top += found.top[:max(1, len(found.planted_loss) // 2)]
    planted_mean = sum(planted_losses) / len(planted_losses)
    other_mean = sum(other_losses) / len(other_losses)
    assert planted_mean > 4 * other_mean, (planted_mean, other_mean)
    # A random move is sometimes as good as the best (docs/review.md): the top half of the seat's list, as
    # long as half the planted moves, is still mostly planted.
    assert sum(top) > len(top) / 2, top


def test_forced_decisions_lose_nothing_and_only_they_are_forced() -> None:
    record = heuristic_record("creatures-of-lungo", 2)
    review = review_record(record, CHEAP, seed=1)
    forced = [d for d in review.decisions if d.kind == "forced"]
    assert forced, "a Lungo game has forced decisions"
    decisions = {d.step: d for d in review.decisions}
    before = replay(record, upto=0)
    for step, (actor, text) in enumerate(record.actions):
        if actor == CHANCE:
            before.apply_action(text)
            continue
        decision = decisions.pop(step)
        assert decision.player == actor
        one = len(before.legal_actions(decision.player)) == 1
        assert (decision.kind == "forced") == one
        if one:
            assert decision.loss == 0 and decision.action == decision.best
        assert (decision.loss >= 0 and math.isclose(decision.loss, decision.value_best - decision.value_chosen,
                                                   abs_tol=1e-12)) or decision.loss == 0
        before.apply_action(text, player=actor)
    assert not decisions, "every decision of the review is a step of the record"


@pytest.mark.parametrize("name", ["crits-creatures", "critter-capture"])
def test_net_luck_sums_to_zero_for_every_chance_event(name: str, critter_reviews: dict[int, Review]) -> None:
    if name == "critter-capture":
        review = critter_reviews[1]
    else:
        review = review_record(heuristic_record(name, 5), ReviewSettings(sims=8, candidates=2, luck_outcomes=4,
                                                                         depth=0), seed=2)
    assert review.chance
    assert any(abs(x) > 1e-6 for event in review.chance for x in event.luck), "luck is measured, not all zero"
    for event in review.chance:
        assert abs(math.fsum(event.luck)) < 1e-9
        assert [x - y for x, y in zip(event.own_luck, event.luck, strict=True)] == \
            pytest.approx([math.fsum(event.own_luck) / 2] * 2)
    assert abs(math.fsum(p.luck for p in review.players)) < 1e-9


def test_the_same_record_and_seed_give_the_same_review() -> None:
    record = heuristic_record("cube-creatures", 8, win_at=3)
    settings = ReviewSettings(sims=8, candidates=3, luck_outcomes=3, depth=0)
    review = review_record(record, settings, seed=4)
    first = review.to_json()
    assert review_record(record, settings, seed=4).to_json() == first
    assert review_record(record, settings, seed=4, jobs=2).to_json() == first  # whatever the worker count
    assert review_record(record, settings, seed=5).to_json() != first  # the seed does drive the playouts
    # one seat's decisions weighed alone are the review's own (tests/review/planted.py)
    for seat in (0, 1):
        assert seat_decisions(record, settings, 4, seat) == [d for d in review.decisions if d.player == seat]


def test_critter_capture_summary_says_luck_decides(critter_reviews: dict[int, Review]) -> None:
    for review in critter_reviews.values():
        found = verdict(review)
        assert found.luck_weighs_more, (found.luck_moved, found.errors_cost)
        assert found.sentences[0].startswith("Luck decides this game more than play")


def summary(player: int, luck: float, result: float) -> PlayerSummary:
    return PlayerSummary(player, 1, 1, 0.0, luck, result, result - luck, {})


def test_verdict_names_play_where_errors_outweigh_luck_and_who_luck_carried() -> None:
    decisions = [Decision(0, 1, "a", "b", 0.3, 0.6, 0.3, "blunder", 3)]
    chance = [ChanceEvent(1, "d6 3", [0.05, -0.05], [0.1, 0.0])]
    played = Review("toy", [summary(0, 0.05, 1.0), summary(1, -0.05, 0.0)], decisions, chance, [[0.5, 0.5]] * 2,
                    CHEAP, 0)
    assert verdict(played).sentences[0].startswith("Play decides this game more than luck")
    assert "stays ahead with the luck taken out" in verdict(played).sentences[1]
    lucky = Review("toy", [summary(0, 0.7, 1.0), summary(1, -0.7, 0.0)], [],
                   [ChanceEvent(1, "d6 6", [0.7, -0.7], [0.7, -0.7])], [[0.5, 0.5]] * 2, CHEAP, 0)
    assert "P2 comes out ahead" in verdict(lucky).sentences[1]


def test_classes_follow_the_thresholds() -> None:
    assert classify(0.0, 1, True) == "forced"
    assert classify(0.0, 3, True) == "best"
    assert [classify(x, 3, False) for x in (0.01, 0.03, 0.07, 0.2)] == ["good", "inaccuracy", "mistake", "blunder"]


def test_the_command_writes_the_json_and_the_page(tmp_path: Path) -> None:
    game = bestiary.load_game("critter-capture", players=2)
    path = tmp_path / "game.json"
    save_record(record_of(play_match(game, [HeuristicAgent(), RandomAgent()], 3), ["heuristic", "random"]), path)
    out, page = tmp_path / "review.json", tmp_path / "review.html"
    result = CliRunner().invoke(app, ["review", str(path), "--json", str(out), "--html", str(page), "--sims", "8",
                                      "--seed", "3"], terminal_width=200)
    assert result.exit_code == 0, result.output
    review = json.loads(out.read_text())
    assert set(review) == {"game", "players", "decisions", "chance", "win_probability"}
    assert set(review["players"][0]) == {"player", "decisions", "error_rate", "luck", "result", "luck_adjusted"}
    assert set(review["decisions"][0]) == {"step", "player", "action", "best", "value_chosen", "value_best", "loss",
                                           "class"}
    assert set(review["chance"][0]) == {"step", "outcome", "luck"}
    steps = len(json.loads(path.read_text())["actions"])
    assert len(review["win_probability"]) == steps and all(len(row) == 2 for row in review["win_probability"])
    assert review["win_probability"][-1] == [1.0, 0.0] or review["win_probability"][-1] == [0.0, 1.0] or \
        review["win_probability"][-1] == [0.5, 0.5]
    text = page.read_text()
    assert "<svg" in text and "Win probability" in text and "P1 heuristic" in text
    assert "P1:" in result.output and "luck" in result.output


def test_a_bad_record_is_refused_with_its_reason(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"format": "bestiary-record/1", "game": "critter-capture"}')
    result = CliRunner().invoke(app, ["review", str(path)], terminal_width=200)
    assert result.exit_code == 2 and "field 'rules_version'" in result.output
    assert CliRunner().invoke(app, ["review", str(path), "--sims", "0"]).exit_code == 2


def test_the_page_explains_the_costliest_decision() -> None:
    record = heuristic_record("cube-creatures", 9, win_at=3)
    review = review_record(record, CHEAP, seed=1)
    page = review_html(review, record, explain=1)
    if any(d.loss > 0 for d in review.decisions):
        assert "Played <b>" in page and "best was" in page and "after the best move" in page
    else:
        assert "No decision lost anything" in page
