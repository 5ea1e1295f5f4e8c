"""The post-game review: every decision's error, every chance event's luck, each player's summary and the win
probability after every step of a game record.

Everything is estimated from the player's own information (estimate.py): a decision is weighed as its player
could see the position, a die or a draw is lucky or not as each player could see it. The review is a pure
function of the record, the settings and the seed: every playout draws from a seed derived from the review's
seed and the step, so the same record and seed give the same review, whatever the number of worker processes.

**Decisions.** A decision with one legal action is `forced` (loss 0). Otherwise the heuristic's best
`candidates` moves and the move played are weighed by sequential halving with common random numbers (the
`hard` search's root, agents/search.py), the move played and the heuristic's first kept to the end. If a move
other than the one played comes out best, the two are weighed again on fresh samples (so the best is not
judged on the very samples that picked it, which would flatter it): the loss is the mean paired difference;
where the fresh samples do not find the best ahead by `margin` standard errors of the paired differences, no
move is clearly better and the move played counts as best (loss 0): a review that reported every difference
its samples happen to show would invent errors where the moves are as good as each other.

**Chance.** Each player's luck of a chance event is its value after the outcome less its expected value over
the outcomes (all of them where they are few, else a sample drawn by their odds), each estimated on the same
seeds. Each player's value comes from its own information, so the players' lucks need not cancel; the review
reports **net luck**: a player's luck less the mean of all players' lucks, which sums to zero over the players
of every event (in two-player games one player's net luck is the other's loss of it).

**Win probability.** Each player's value after every step, from its own information, on the same seeds at
every step (so the curve moves by what the steps change, not by the draws of its samples).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field

from bestiary.agents.tournament import winners_share
from bestiary.core.api import CHANCE, Action, State
from bestiary.core.errors import OptionError
from bestiary.core.record import GameRecord, replay
from bestiary.review.estimate import Estimator, paired_error, paired_mean, seeds

# Classes of a decision by the share of the point it lost (docs/review.md: how they were chosen).
GOOD = 0.02  # up to this: good (within what the estimate cannot tell apart from the best)
INACCURACY = 0.05  # up to this: inaccuracy
MISTAKE = 0.10  # up to this: mistake; above: blunder
CLASSES = ("forced", "best", "good", "inaccuracy", "mistake", "blunder")


@dataclass(frozen=True)
class ReviewSettings:
    """How hard a review looks. `sims`: playouts weighing one decision's moves."""

    sims: int = 80
    candidates: int = 8  # the heuristic's best moves weighed, besides the one played
    luck_sims: int = 0  # playouts per outcome and player at a chance event (0: sims / 12, at least 4)
    luck_outcomes: int = 12  # outcomes weighed at a chance event: all of them where there are no more
    graph_sims: int = 0  # playouts per step and player for the win probability (0: sims / 12, at least 4)
    depth: int = 10  # playout steps at least before the game's value scores a playout
    margin: float = 1.5  # standard errors by which the best move must beat the move played to count as better

    def __post_init__(self) -> None:
        for name in ("sims", "candidates", "luck_outcomes"):
            if getattr(self, name) < 1:
                raise OptionError(f"review setting {name} must be at least 1, not {getattr(self, name)}")
        for name in ("luck_sims", "graph_sims", "depth", "margin"):
            if getattr(self, name) < 0:
                raise OptionError(f"review setting {name} must not be negative, not {getattr(self, name)}")

    @property
    def chance_samples(self) -> int:
        return self.luck_sims or max(4, self.sims // 12)

    @property
    def graph_samples(self) -> int:
        return self.graph_sims or max(4, self.sims // 12)


@dataclass(frozen=True)
class Decision:
    step: int
    player: int
    action: str
    best: str
    value_chosen: float
    value_best: float
    loss: float
    kind: str  # one of CLASSES
    legal: int  # how many legal actions the player had

    def to_json(self) -> dict[str, object]:
        return {"step": self.step, "player": self.player, "action": self.action, "best": self.best,
                "value_chosen": round(self.value_chosen, 4), "value_best": round(self.value_best, 4),
                "loss": round(self.loss, 4), "class": self.kind}


@dataclass(frozen=True)
class ChanceEvent:
    step: int
    outcome: str
    luck: list[float]  # net luck, one per player: sums to zero
    own_luck: list[float]  # each player's luck as it saw the event, before the mean is taken off

    def to_json(self) -> dict[str, object]:
        return {"step": self.step, "outcome": self.outcome, "luck": [round(x, 4) for x in self.luck]}


@dataclass(frozen=True)
class StepReview:
    step: int
    decision: Decision | None
    chance: ChanceEvent | None
    win_probability: list[float]


@dataclass(frozen=True)
class PlayerSummary:
    player: int
    decisions: int  # every decision the player made, forced ones included
    unforced: int
    error_rate: float | None  # mean loss per decision that was not forced; None without any
    luck: float  # the sum of the player's net luck
    result: float | None  # the player's share of the point; None for an unfinished game
    luck_adjusted: float | None  # result less luck
    counts: dict[str, int] = field(default_factory=dict)  # decisions by class

    def to_json(self) -> dict[str, object]:
        def rounded(x: float | None) -> float | None:
            return None if x is None else round(x, 4)

        return {"player": self.player, "decisions": self.decisions, "error_rate": rounded(self.error_rate),
                "luck": round(self.luck, 4), "result": rounded(self.result),
                "luck_adjusted": rounded(self.luck_adjusted)}


@dataclass(frozen=True)
class Review:
    game: str
    players: list[PlayerSummary]
    decisions: list[Decision]
    chance: list[ChanceEvent]
    win_probability: list[list[float]]
    settings: ReviewSettings
    seed: int

    def to_json(self) -> dict[str, object]:
        """The review as the JSON that `bestiary review --json` writes (docs/review.md)."""
        return {"game": self.game, "players": [p.to_json() for p in self.players],
                "decisions": [d.to_json() for d in self.decisions], "chance": [c.to_json() for c in self.chance],
                "win_probability": [[round(x, 4) for x in row] for row in self.win_probability]}

    def settings_json(self) -> dict[str, object]:
        return {**asdict(self.settings), "seed": self.seed}


def classify(loss: float, legal: int, chosen_is_best: bool) -> str:
    if legal <= 1:
        return "forced"
    if chosen_is_best:
        return "best"
    if loss <= GOOD:
        return "good"
    if loss <= INACCURACY:
        return "inaccuracy"
    if loss <= MISTAKE:
        return "mistake"
    return "blunder"


def step_rng(seed: int, step: int, purpose: str) -> random.Random:
    return random.Random(f"bestiary-review/{seed}/{step}/{purpose}")


class StepReviewer:
    """Reviews the steps of one game, one at a time, each from the state before it."""

    def __init__(self, estimator: Estimator, settings: ReviewSettings, seed: int) -> None:
        self.estimator = estimator
        self.settings = settings
        self.seed = seed
        self.players = estimator.game.num_players
        # the same seeds at every step, so the curve moves by what the steps change (module docstring)
        self.graph_seeds = seeds(random.Random(f"bestiary-review/{seed}/graph"), settings.graph_samples)
        self.viewers = list(range(self.players)) if estimator.hidden else [0]

    def review(self, before: State, step: int, actor: int, action: Action) -> StepReview:
        after = before.clone()
        after.apply_action(action, player=None if actor == CHANCE else actor)
        chance = decision = None
        if actor == CHANCE:
            chance = self.chance_event(before, after, step, action)
        else:
            decision = self.decision(before, step, actor, action)
        return StepReview(step, decision, chance, self.win_probability(after))

    def own_values(self, state: State, sample_seeds: Sequence[int]) -> list[float]:
        """Each player's value of `state` from its own information."""
        if not self.estimator.hidden:
            return self.estimator.value(state, 0, sample_seeds)
        return [self.estimator.value(state, player, sample_seeds)[player] for player in range(self.players)]

    def win_probability(self, after: State) -> list[float]:
        if after.is_terminal():
            return winners_share(after.returns())
        return self.own_values(after, self.graph_seeds)

    def chance_event(self, before: State, after: State, step: int, outcome: Action) -> ChanceEvent:
        outcomes = before.chance_outcomes()
        limit = self.settings.luck_outcomes
        rng = step_rng(self.seed, step, "chance")
        if len(outcomes) <= limit:
            weighed = [(o, p) for o, p in outcomes]
        else:  # a sample by the odds, each drawn outcome counted as often as it was drawn
            drawn = rng.choices([o for o, _ in outcomes], [p for _, p in outcomes], k=limit)
            weighed = [(o, drawn.count(o) / limit) for o in dict.fromkeys(drawn)]
        total = math.fsum(p for _, p in weighed)
        sample_seeds = self.graph_seeds[:self.settings.chance_samples] if \
            self.settings.chance_samples <= len(self.graph_seeds) else seeds(rng, self.settings.chance_samples)
        expected = [0.0] * self.players
        actual: list[float] | None = None
        for possible, probability in weighed:
            state = before.clone()
            state.apply_action(possible)
            values = self.own_values(state, sample_seeds)
            if possible == outcome:
                actual = values
            for player in range(self.players):
                expected[player] += probability / total * values[player]
        if actual is None:
            actual = self.own_values(after, sample_seeds)
        own = [a - e for a, e in zip(actual, expected, strict=True)]
        mean = math.fsum(own) / self.players
        return ChanceEvent(step, str(outcome), [x - mean for x in own], own)

    def decision(self, before: State, step: int, player: int, chosen: Action) -> Decision:
        legal = before.legal_actions(player)
        estimator, settings = self.estimator, self.settings
        rng = step_rng(self.seed, step, "decision")
        if len(legal) == 1:
            value = estimator.value(before, player, self.graph_seeds)[player]
            return Decision(step, player, str(chosen), str(chosen), value, value, 0.0, "forced", 1)
        order = estimator.ranked(before, player, legal, rng.getrandbits(63))
        candidates = order[:settings.candidates]
        if chosen not in candidates:
            candidates.append(chosen)
        keep = {chosen, order[0]}
        samples, alive = halving(lambda action, batch: estimator.move_samples(before, player, action, batch),
                                 candidates, keep, settings.sims, rng)
        best = max(alive, key=lambda a: (mean_of(samples[a]), a == chosen))
        if best == chosen:
            value = mean_of(samples[chosen])
            return Decision(step, player, str(chosen), str(chosen), value, value, 0.0, "best", len(legal))
        # weighed again on fresh samples, so the best is not judged by the samples that picked it
        fresh = seeds(rng, max(8, settings.sims // 3))
        best_samples = estimator.move_samples(before, player, best, fresh)
        chosen_samples = estimator.move_samples(before, player, chosen, fresh)
        loss = paired_mean(best_samples, chosen_samples)
        if loss <= settings.margin * paired_error(best_samples, chosen_samples):
            value = mean_of(chosen_samples)
            return Decision(step, player, str(chosen), str(chosen), value, value, 0.0, "best", len(legal))
        return Decision(step, player, str(chosen), str(best), mean_of(chosen_samples), mean_of(best_samples), loss,
                        classify(loss, len(legal), False), len(legal))


def mean_of(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else 0.0


def halving(sample: Callable[[Action, list[int]], list[float]], candidates: list[Action], keep: set[Action],
            budget: int, rng: random.Random) -> tuple[dict[Action, list[float]], list[Action]]:
    """Sequential halving over `candidates` with common random numbers: the budget shared out in rounds, the
    worse half by mean dropped after each, the moves in `keep` kept to the end. Each move's samples, and the
    moves left at the end (all with the same number of samples)."""
    samples: dict[Action, list[float]] = {action: [] for action in candidates}
    alive = list(candidates)
    rounds = max(1, math.ceil(math.log2(len(alive))))
    spent = 0
    for round_number in range(rounds):
        per = max(1, (budget - spent) // ((rounds - round_number) * len(alive)))
        batch = seeds(rng, per)
        for action in alive:
            samples[action] += sample(action, batch)
        spent += per * len(alive)
        if len(alive) <= 2:
            break
        ranked = sorted(alive, key=lambda a: mean_of(samples[a]), reverse=True)
        half = ranked[:(len(ranked) + 1) // 2]
        alive = half + [a for a in ranked[len(half):] if a in keep]
    return samples, alive


# -- the whole game ---------------------------------------------------------------------------------------

def review_steps(record_json: str, settings: ReviewSettings, seed: int, start: int, stop: int,
                 cards: str | None = None) -> list[StepReview]:
    """The reviews of the record's steps `start` to `stop` (a worker's share)."""
    record = GameRecord.model_validate_json(record_json)
    state = replay(record, cards=cards, upto=start)
    reviewer = StepReviewer(Estimator(state.game, settings.depth), settings, seed)
    out = []
    for step in range(start, stop):
        actor, text = record.actions[step]
        action = state.parse_action(text)
        out.append(reviewer.review(state, step, actor, action))
        state.apply_action(action, player=None if actor == CHANCE else actor)
    return out


def review_record(record: GameRecord, settings: ReviewSettings | None = None, seed: int = 0, jobs: int = 1,
                  cards: str | None = None, on_step: Callable[[int, int], None] | None = None) -> Review:
    """Review a game record (module docstring). `on_step(done, total)` follows the progress."""
    settings = settings or ReviewSettings()
    final = replay(record, cards=cards)  # checks the whole record before any work
    total = len(record.actions)
    record_json = record.model_dump_json()
    steps: list[StepReview] = []
    if jobs <= 1 or total < 2:
        state = replay(record, cards=cards, upto=0)
        reviewer = StepReviewer(Estimator(state.game, settings.depth), settings, seed)
        for step, (actor, text) in enumerate(record.actions):
            action = state.parse_action(text)
            steps.append(reviewer.review(state, step, actor, action))
            state.apply_action(action, player=None if actor == CHANCE else actor)
            if on_step:
                on_step(step + 1, total)
    else:
        size = max(1, math.ceil(total / (jobs * 6)))
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(review_steps, record_json, settings, seed, start, min(total, start + size), cards)
                       for start in range(0, total, size)]
            done = 0
            for future in as_completed(futures):
                part = future.result()
                steps += part
                done += len(part)
                if on_step:
                    on_step(done, total)
        steps.sort(key=lambda s: s.step)
    return assemble(record.game, final, steps, settings, seed)


def assemble(game: str, final: State, steps: Sequence[StepReview], settings: ReviewSettings, seed: int) -> Review:
    players = final.game.num_players
    decisions = [s.decision for s in steps if s.decision is not None]
    chance = [s.chance for s in steps if s.chance is not None]
    result = winners_share(final.returns()) if final.is_terminal() else None
    summaries = []
    for player in range(players):
        mine = [d for d in decisions if d.player == player]
        unforced = [d for d in mine if d.kind != "forced"]
        luck = math.fsum(event.luck[player] for event in chance)
        counts = {kind: sum(d.kind == kind for d in mine) for kind in CLASSES}
        summaries.append(PlayerSummary(
            player, len(mine), len(unforced),
            math.fsum(d.loss for d in unforced) / len(unforced) if unforced else None,
            luck, None if result is None else result[player],
            None if result is None else result[player] - luck, counts))
    return Review(game, summaries, decisions, chance, [s.win_probability for s in steps], settings, seed)
