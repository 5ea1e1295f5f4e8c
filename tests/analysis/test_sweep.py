"""Sweeps over game options and card fields."""

import tomllib

import pytest

from bestiary.analysis.simulate import configured_game
from bestiary.analysis.sweep import (
    Metric,
    Parameter,
    base_card_file,
    parse_parameter,
    run_sweep,
    specs_for,
    sweep_figure,
    sweep_markdown,
    sweep_says,
    to_toml,
)
from bestiary.core.errors import CardFileError, OptionError
from tests.analysis.conftest import critter_spec


def test_parse_parameter_reads_json_values():
    assert parse_parameter("rechoose_on_takeover=false,true") == Parameter("rechoose_on_takeover", (False, True))
    assert parse_parameter("first_player = 0, random").values == (0, "random")
    assert parse_parameter("card.brook-trout.size=1,10").card == ("brook-trout", "size")


@pytest.mark.parametrize(("text", "message"), [
    ("ecoregions", "NAME=v1,v2"), ("=1,2", "NAME=v1,v2"), ("ecoregions=1,,2", "empty value"),
    ("card.size=1,2", "card.<card id>.<field>"),
])
def test_parse_parameter_refuses_bad_text(text, message):
    with pytest.raises(OptionError, match=message):
        parse_parameter(text)


def test_option_values_are_checked_before_anything_runs():
    with pytest.raises(OptionError, match="has no option 'board_size'"):
        specs_for(critter_spec(), Parameter("board_size", (1, 2)))
    with pytest.raises(OptionError, match="5 players cannot play with 1 ecoregion deck"):
        specs_for(critter_spec(), Parameter("players", (4, 5)))


def test_card_values_are_checked_before_anything_runs():
    with pytest.raises(OptionError, match="no card 'dodo'"):
        specs_for(critter_spec(), Parameter("card.dodo.size", (1,)))
    with pytest.raises(OptionError, match="card 'brook-trout' has no field 'speed'"):
        specs_for(critter_spec(), Parameter("card.brook-trout.speed", (1,)))
    with pytest.raises(CardFileError, match=r"^the game's card file with card.brook-trout.size = 99:\d+, "
                                            r"card 'brook-trout', field 'size'"):
        specs_for(critter_spec(), Parameter("card.brook-trout.size", (99,)))


def test_card_sweep_changes_one_field_of_one_card():
    base = critter_spec()
    original = tomllib.loads(base_card_file(base))
    specs = specs_for(base, Parameter("card.brook-trout.size", (1, 10)))
    for spec, size in zip(specs, (1, 10), strict=True):
        changed = tomllib.loads(spec.card_file_text)
        trout = next(c for c in changed["cards"] if c["id"] == "brook-trout")
        assert trout["size"] == size
        assert [c for c in changed["cards"] if c["id"] != "brook-trout"] == \
            [c for c in original["cards"] if c["id"] != "brook-trout"]
        assert spec.labels == {"card.brook-trout.size": size}
        assert configured_game(spec).card_set_info()["hash"] != configured_game(base).card_set_info()["hash"]


def test_to_toml_round_trips_a_card_file():
    data = tomllib.loads(base_card_file(critter_spec()))
    assert tomllib.loads(to_toml(data)) == data
    tricky = {"title": 'quote " and \\ back', "set": {"id": "x"},
              "cards": [{"id": "a", "effect": {"keyword": "heal", "amount": 2}, "faces": [1, -1, "2X"],
                         "ok": True, "weight": 0.5}]}
    assert tomllib.loads(to_toml(tricky)) == tricky


def test_option_sweep_runs_each_value(tmp_path):
    parameter = Parameter("rechoose_on_takeover", (False, True))
    points = run_sweep(critter_spec(players=3, agents=("heuristic",)), parameter, 6, out_dir=tmp_path)
    assert [p.value for p in points] == [False, True]
    assert all(p.summary.games == 6 and p.card_effect is None for p in points)
    assert sorted(f.name for f in tmp_path.iterdir()) == ["rechoose_on_takeover=False.jsonl",
                                                          "rechoose_on_takeover=True.jsonl"]
    table = sweep_markdown(parameter, points)
    assert table.startswith("| rechoose_on_takeover | first-player win rate |")
    assert len([line for line in table.splitlines() if line.startswith("| ")]) == 3
    assert "What this says: From False to True (rechoose_on_takeover), the first player's win rate moves" in table
    assert "For seat fairness, the fairest setting is" in table
    figure = sweep_figure(parameter, points)
    assert len([ax for ax in figure.axes if ax.get_visible()]) == len(points[-1].metrics())  # paired ones too


def test_card_sweep_reports_the_swept_card():
    parameter = Parameter("card.brook-trout.commonness", (1, 10))
    points = run_sweep(critter_spec(players=2, agents=("heuristic",)), parameter, 12)
    assert [p.card_effect.card for p in points] == ["brook-trout", "brook-trout"]
    assert "swept card: win rate change, drawn a copy (same agent and seat)" in sweep_markdown(parameter, points)
    assert "the card's own effect goes from" in sweep_says([parameter], points)


def test_a_numeric_sweep_is_drawn_to_scale_with_the_swept_card_first():
    parameter = Parameter("card.brook-trout.size", (1, 2, 10))
    points = run_sweep(critter_spec(players=2, agents=("heuristic",)), parameter, 4)
    figure = sweep_figure(parameter, points)
    first = figure.axes[0]
    assert first.get_title().startswith("swept card:")
    assert list(first.get_xticks()) == [1.0, 2.0, 10.0]  # 2 sits next to 1, far from 10
    assert "(to scale)" in first.get_xlabel()
    assert all(ax.get_title() == "" or "(busy" not in ax.get_title() for ax in figure.axes)


def test_two_parameters_are_drawn_as_heatmaps_with_intervals():
    parameters = [Parameter("card.brook-trout.size", (1, 10)), Parameter("rechoose_on_takeover", (False, True))]
    points = run_sweep(critter_spec(players=3, agents=("heuristic",)), parameters, 3)
    figure = sweep_figure(parameters, points)
    heatmaps = [ax for ax in figure.axes if ax.get_images()]
    assert heatmaps and heatmaps[0].get_images()[0].get_array().shape == (2, 2)
    cell_texts = [t.get_text() for t in heatmaps[0].texts]
    assert len(cell_texts) == 4 and all("[" in text for text in cell_texts)


def test_metric_text():
    assert str(Metric(63.25)) == "63.2"
    assert str(Metric(63.25, low=60.0, high=66.5)) == "63.2 [60, 66.5]"
    assert str(Metric(None, True)) == "n/a"
    assert str(Metric(0.25, True, 0.2, 0.3)) == "25.0% [20.0%, 30.0%]"
    assert str(Metric(0.042, True, 0.016, 0.068, signed=True)) == "+4.2% [+1.6%, +6.8%]"
