"""Reports: statistics on hand-made records, and the HTML page with its plots from a real run."""

import random
import sys

import pytest

from bestiary.analysis.report import Report, report_from_files
from bestiary.analysis.results import ResultsError, write_results
from bestiary.analysis.summary import GroupSummary, summarise
from tests.analysis.conftest import critter_spec


def record(winners, first=0, cards=None, length=10, scores=None, agents=("a", "b")):
    return {"players": 2, "agents": list(agents), "winners": winners, "first_player": first, "length": length,
            "lead_changes": 1, "scores": scores, "card_events": {"play": cards or {}}, "event_values": {}}


def test_seat_agent_and_card_statistics_by_hand():
    records = [record([0], cards={"0": ["x"], "1": ["y"]}, scores=[10, 5]),
               record([1], first=1, cards={"1": ["x"]}, agents=("b", "a")),
               record([0, 1], cards={"0": ["y", "y"]}, length=14)]
    group = summarise(records)[2]
    # game 1: seat 0 first and wins; game 2: seat 1 first and wins; game 3: shared
    assert [r.wins for r in group.position_rates()] == [2.5, 0.5]
    # agent "a" sits in the winning seat of games 1 and 2 and shares game 3
    assert {agent: rate.wins for agent, rate in group.agent_rates().items()} == {"a": 2.5, "b": 0.5}
    assert group.shared_wins == 0 and group.draws == 1  # both seats of two won: a draw, not a shared win
    assert group.length_stats()["mean"] == pytest.approx(34 / 3)
    assert group.margins == [0.5]
    effects = {e.card: e for e in group.card_effects("play")}
    # agent a always moved first here: x is compared within (a, first) only, 2 seats with (2 wins) against
    # the one seat of a, first, without it (half a win); b's seats never had x, so they do not count
    assert (effects["x"].with_card.wins, effects["x"].with_card.games) == (2.0, 2)
    assert (effects["x"].without.wins, effects["x"].without.games) == (0.5, 1)
    assert effects["x"].difference == pytest.approx(0.5)
    # y in both strata: (a, first) 0.5 - 1.0 and (b, second) 0 - 0.25, each weighted 2 * 1 / 3
    assert effects["y"].difference == pytest.approx(-0.375)
    assert group.card_counts["play"]["y"] == 3


def test_a_card_an_agent_likes_is_not_credited_with_the_agent_s_wins():
    """The confounded reading: a strong agent, which wins 90 %, mostly holds "pet"; the card does nothing.
    Its holders win far more often than other seats, but within each agent and seat it shows no effect."""
    group = GroupSummary(2)
    holder_wins = holder_seats = 0
    for game in range(800):
        strong = game % 2  # seats alternate, so every agent plays every position
        agents = ("strong", "weak") if strong == 0 else ("weak", "strong")
        winner = strong if game % 10 else 1 - strong
        holders = {}
        if game % 8 < 6:
            holders[str(strong)] = ["pet"]
        if game % 8 in (0, 3):
            holders[str(1 - strong)] = ["pet"]
        for seat in holders:
            holder_seats += 1
            holder_wins += int(seat) == winner
        group.add(record([winner], first=0, cards=holders, agents=agents))
    assert holder_wins / holder_seats > 0.65  # what the uncontrolled comparison saw
    effect = group.card_effects("play")[0]
    assert effect.effect.strata == 4
    assert not effect.flagged and effect.low < 0 < effect.high
    assert group.agent_gap() > 0.5
    text = Report([{"game": "g", "options": {}}], {2: group}, ["play"]).markdown()
    assert "Warning: the agents' win rates differ by 80%" in text
    assert "same agent in the same turn position" in text


def test_a_strong_card_is_flagged_and_a_neutral_one_is_not():
    group = GroupSummary(2)
    rng = random.Random(5)
    for game in range(400):
        winner = game % 2
        # "ace" goes to the winner 90 % of the time, "dud" to either seat whoever wins
        ace_seat = winner if game % 10 else 1 - winner
        dud_seat = rng.randrange(2)
        group.add(record([winner], first=game // 2 % 2, cards={str(ace_seat): ["ace"], str(dud_seat): ["dud"]}))
    effects = {e.card: e for e in group.card_effects("play")}
    assert effects["ace"].flagged and effects["ace"].low > 0
    assert not effects["dud"].flagged and effects["dud"].low < 0 < effects["dud"].high


def test_score_kinds_are_left_out_unless_asked_for_and_then_carry_a_warning():
    records = [{**record([0], cards={"0": ["x"], "1": ["y"]}), "score_kinds": ["play"]},
               {**record([1], cards={"1": ["x"], "0": ["y"]}), "score_kinds": ["play"]}]
    groups = summarise(records)
    assert groups[2].card_kinds() == []
    assert "Cards by win contribution" not in Report([{}], groups).markdown()
    asked = Report([{}], groups, ["play"]).markdown()
    assert "Warning: 'play' events are the score itself" in asked


def test_drama_shows_n_a_when_no_event_moves_a_score():
    group = summarise([{**record([0]), "lead_changes": None}, {**record([1]), "lead_changes": None}])
    text = Report([{}], group).markdown()
    assert group[2].drama() is None
    assert "Drama: n/a" in text and "lead changes a game" not in text
    assert "drama" not in Report([{}], group).figures()  # no plot of zeros


@pytest.fixture(scope="module")
def report_files(tmp_path_factory, critter_records):
    folder = tmp_path_factory.mktemp("report")
    path = folder / "run.jsonl"
    write_results(path, critter_spec().header(), critter_records)
    return path


def test_markdown_summary(report_files):
    text = report_from_files([report_files]).markdown()
    assert "## 4 players: 24 games" in text
    assert "| seat | win rate [95 % CI] | vs fair |" in text
    assert "| heuristic | 48 |" in text and "| random | 48 |" in text
    assert "### Cards by what chance gave a seat: drawn" in text
    assert "### Associations: cards in 'flip' events" not in text  # flips are the draws themselves
    assert "### Associations: cards in 'ability' events (what a seat chose)" in text
    assert "Game length, as the rule book counts it: 48.0 turns [48.0, 48.0], 12.0 rounds [12.0, 12.0]." in text
    assert "Finishing places by seat in turn order" in text and "| 1 | " in text


def test_html_report_embeds_its_plots(report_files, tmp_path):
    report = report_from_files([report_files], card_kinds=["flip"])
    page = report.html()
    assert page.count('src="data:image/png;base64,') == len(report.pngs()) >= 5
    assert "<table>" in page and "Balance report: critter-capture" in page
    saved = report.save_plots(tmp_path / "plots")
    assert {p.name for p in saved} == {"seat-advantage.png", "game-length.png", "drama.png", "agents.png",
                                       "decisions.png", "cards-drawn-4p.png", "cards-flip-4p.png"}
    for stem, (caption, says) in report.captions().items():  # a caption in words, not the file name
        assert caption != stem and len(caption.split()) > 4 and says.endswith(".")
        assert f"<strong>{caption}</strong>" in page.replace("&#x27;", "'")
    tables = 5  # seats, agents, decisions, the drawn cards, the flip cards
    assert page.count("What this says:") == len(saved) + tables  # under every plot and every table
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in saved)


def test_report_refuses_mixed_games_and_empty_runs(tmp_path, report_files):
    other = tmp_path / "other.jsonl"
    write_results(other, {**critter_spec().header(), "game": "cube-creatures"}, [])
    with pytest.raises(ResultsError, match="different games"):
        report_from_files([report_files, other])
    variant = tmp_path / "variant.jsonl"
    write_results(variant, critter_spec(rechoose_on_takeover=True).header(), [])
    with pytest.raises(ResultsError, match="different options, agents or cards"):
        report_from_files([report_files, variant])
    with pytest.raises(ResultsError, match="no game records"):
        report_from_files([tmp_path / "other.jsonl"])
    with pytest.raises(ResultsError, match=r"no card events of kind 'flp' in the results \(kinds: ability, corral,"):
        report_from_files([report_files], card_kinds=["flp"])
    with pytest.raises(ResultsError, match="no results files"):
        report_from_files([])


def test_report_without_card_events():
    group = summarise([record([0]), record([1])])
    text = Report([{"game": "g", "options": {}}], group).markdown()
    assert "Cards by win contribution" not in text


def test_plots_without_matplotlib_say_how_to_install_it(monkeypatch, report_files):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # as if matplotlib were not installed
    with pytest.raises(ResultsError, match=r"pip install 'bestiary\[analysis\]'"):
        report_from_files([report_files]).html()


def test_the_seat_plot_title_fits_with_one_player_count(critter_records):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from bestiary.analysis.report import seat_figure

    figure = seat_figure(summarise(critter_records))
    renderer = FigureCanvasAgg(figure).get_renderer()
    figure.draw(renderer)
    box = figure._suptitle.get_window_extent(renderer)
    assert box.x0 >= 0 and box.x1 <= figure.bbox.width


def test_event_keys_read_as_words():
    group = summarise([{**record([0]), "event_values": {"compare.active": {"3": 2, "5": 1}}}])
    text = Report([{}], group).markdown()
    assert "compare events by active: 3 66.7%, 5 33.3%" in text and "compare.active" not in text


def test_no_card_is_called_strongest_on_a_figure_within_chance_or_from_a_few_seats():
    from bestiary.analysis.report import card_says

    rng = random.Random(3)
    # "rare" is held by one winning seat only; the others are coin flips
    records = [record([0], cards={"0": ["rare"]})] + [
        record([rng.randrange(2)], cards={str(s): [rng.choice("abc")] for s in range(2)}) for _ in range(60)]
    group = summarise(records)[2]
    effects = group.card_effects("play")
    rare = next(e for e in effects if e.card == "rare")
    assert rare.with_card.games == 1 and not rare.flagged  # one seat: never flagged, whatever its figure
    text = card_says(group, effects, "play")
    assert text.startswith("No card of") and "within its interval of zero" in text
    assert "association" in text
