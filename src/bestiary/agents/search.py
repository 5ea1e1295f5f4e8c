"""Monte Carlo tree search on the core API, for any registered game.

`MCTSAgent` is UCT with max-n returns: every edge keeps the return of the player who chose it, so in a
game of three or more each player is assumed to pursue its own return. `ISMCTSAgent` is single-observer
information-set MCTS: every simulation starts from a fresh determinization of the agent's seat
(`SeatView.sample_state`), so the tree's root is the agent's information set, never the true state.

One tree serves both. Nodes are reached by the choices made on the way (open loop): a node does not
hold a state, and its edges keep an availability count, so a node visited from different states (other
determinizations, other unbranched chance outcomes) offers each time only the actions legal there
(UCB over the available subset). Chance outcomes are sampled by their probabilities; a chance node
with few outcomes branches on them, one with many (and every chance node in IS-MCTS, whose outcomes
the seat may not see) is passed through open-loop. Simultaneous choices and races use decoupled
selection: each acting player picks from its own statistics, so no one's choice depends on another's
unseen one.

Two settings serve long games with many moves: a cut-off ends each playout a few steps after the tree
and scores it by the game's heuristic value (`Game.heuristic_value`), and progressive widening keeps a
node's visits on a few moves (the heuristic's first) instead of one visit each for a hundred.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from bestiary.agents.base import Agent, SeatView, register_agent
from bestiary.core.api import CHANCE, Action, Game, State, StateRanking
from bestiary.core.chance import sample_chance
from bestiary.core.errors import IllegalActionError, OptionError

ROLLOUTS = ("random", "heuristic")
ROOTS = ("ucb", "halving")


@dataclass(frozen=True)
class SearchSettings:
    """How hard and how a search looks. At least one of `simulations` and `seconds` bounds it."""

    simulations: int | None = 200
    seconds: float | None = None
    exploration: float = 1.4  # UCB constant, for returns of about 0..1
    rollout: str = "random"  # "random" or "heuristic" (the game's heuristic; random where it has none)
    chance_branching: int = 12  # chance nodes with more outcomes than this are passed through open-loop
    reuse: bool = True  # keep the subtree of the position reached between two moves (MCTS only)
    prior: float = 0.0  # weight of the game heuristic's move at each tree node (progressive bias); 0: off
    cutoff: int | Literal["auto"] | None = None  # playout steps after the tree before the game's heuristic value
    # scores it; "auto": the game's own horizon (Game.heuristic_horizon); None: play to the end
    widen: float = 0.0  # progressive widening: a node opens at most widen * sqrt(visits + 1) moves; 0: all
    root: str = "ucb"  # "ucb", or "halving": sequential halving over the root's moves with common random numbers
    candidates: int = 0  # halving: the heuristic's best moves it weighs (0: every legal move)
    margin: float = 1.0  # halving: standard errors by which a move must beat the heuristic's to be played

    def __post_init__(self) -> None:
        if self.simulations is None and self.seconds is None:
            raise OptionError("a search needs a budget: sims=N or time=SECONDS")
        if self.simulations is not None and self.simulations < 1:
            raise OptionError(f"sims must be at least 1, not {self.simulations}")
        if self.seconds is not None and not self.seconds > 0:
            raise OptionError(f"time must be a positive number of seconds, not {self.seconds}")
        if self.exploration < 0:
            raise OptionError(f"c (exploration) must not be negative, not {self.exploration}")
        if self.rollout not in ROLLOUTS:
            raise OptionError(f"rollout must be one of {', '.join(ROLLOUTS)}, not '{self.rollout}'")
        if self.prior < 0:
            raise OptionError(f"prior must not be negative, not {self.prior}")
        if self.chance_branching < 0:
            raise OptionError(f"chance must not be negative, not {self.chance_branching}")
        if isinstance(self.cutoff, int) and self.cutoff < 0:
            raise OptionError(f"cutoff must not be negative, not {self.cutoff}")
        if self.widen < 0:
            raise OptionError(f"widen must not be negative, not {self.widen}")
        if self.root not in ROOTS:
            raise OptionError(f"root must be one of {', '.join(ROOTS)}, not '{self.root}'")
        if self.candidates < 0:
            raise OptionError(f"top must not be negative, not {self.candidates}")
        if self.margin < 0:
            raise OptionError(f"margin must not be negative, not {self.margin}")


class Edge:
    """One player's choice at a node: how often it was available, taken, and what it returned."""

    __slots__ = ("available", "child", "total", "visits")

    def __init__(self) -> None:
        self.available = 0
        self.visits = 0
        self.total = 0.0
        self.child: Node | None = None

    def mean(self) -> float:
        return self.total / self.visits if self.visits else 0.0


class Node:
    """A point of the tree, reached by the choices (and branched chance outcomes) on the way to it."""

    __slots__ = ("edges", "joint", "orders", "outcomes")

    def __init__(self) -> None:
        self.edges: dict[tuple[int, Action], Edge] = {}  # (player, action) -> statistics
        self.orders: dict[int, Sequence[Action]] = {}  # the heuristic's moves for each player here, best first
        self.joint: dict[tuple[tuple[int, Action], ...], Node] = {}  # after a simultaneous choice or race
        self.outcomes: dict[Action, Node] = {}  # after a branched chance outcome

    def edge(self, player: int, action: Action) -> Edge | None:
        return self.edges.get((player, action))


def ucb_choice(node: Node, player: int, legal: Sequence[Action], exploration: float,
               rng: random.Random, order: Sequence[Action] = (), prior: float = 0.0, widen: float = 0.0) -> Action:
    """The action `player` tries at `node`: an untried one, else the best UCB score. `order` is the
    heuristic's moves, best first: untried moves are opened in that order (the rest at random), and the
    first, the hint, scores `prior / (visits + 1)` more. `legal` must not be empty. With `widen`, an
    untried action is opened only while fewer than `widen * sqrt(visits + 1)` are open (progressive
    widening), so a small budget is not spread one visit each over a hundred moves.

    Every legal action's availability count goes up, so an action that is often unavailable (in
    other determinizations) is not penalised for the visits it could not get.
    """
    hint = order[0] if order else None
    untried: list[Action] = []
    best: list[Action] = []
    best_score = -math.inf
    opened = visits = 0
    for action in legal:
        key = (player, action)
        edge = node.edges.get(key)
        if edge is None:
            edge = node.edges[key] = Edge()
        edge.available += 1
        if edge.visits == 0:
            untried.append(action)
            continue
        opened += 1
        visits += edge.visits
        score = edge.total / edge.visits + exploration * math.sqrt(math.log(edge.available) / edge.visits)
        if action == hint:
            score += prior / (edge.visits + 1)
        if score > best_score:
            best, best_score = [action], score
        elif score == best_score:
            best.append(action)
    if untried and (hint in untried or not (widen and best and opened >= widen * math.sqrt(visits + 1))):
        if order:
            waiting = set(untried)
            for action in order:
                if action in waiting:
                    return action
        return rng.choice(untried)
    # Ties go to chance: at a simultaneous choice, two players breaking ties alike would move in step.
    return best[0] if len(best) == 1 else rng.choice(best)


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def beats(better: Sequence[float], other: Sequence[float], margin: float) -> bool:
    """Whether the paired samples `better` exceed `other` by more than `margin` standard errors of their
    differences (any lead counts when the differences do not vary)."""
    differences = [a - b for a, b in zip(better, other, strict=True)]
    n = len(differences)
    lead = mean(differences)
    if n < 2:
        return lead > 0 and margin == 0
    spread = sum((d - lead) ** 2 for d in differences) / (n - 1)
    return lead > margin * math.sqrt(spread / n) if spread else lead > 0


RolloutPolicy = Callable[[State, int, list[Action], random.Random], Action]


def random_rollout_policy(state: State, player: int, legal: list[Action], rng: random.Random) -> Action:
    return rng.choice(legal)


def heuristic_rollout_policy(game: Game) -> RolloutPolicy:
    policy = game.heuristic_state_policy()
    if policy is None:
        return random_rollout_policy

    def act(state: State, player: int, legal: list[Action], rng: random.Random) -> Action:
        return policy(state, legal, player, rng)

    return act


def acting_player(state: State, rng: random.Random) -> int:
    """Who acts next in a rollout: in a race any racer may arrive first; otherwise the first listed."""
    players = state.players_to_act()
    return rng.choice(players) if state.decision_kind() == "race" else players[0]


def play_out(state: State, policy: RolloutPolicy, rng: random.Random, cutoff: int | None = None) -> list[float]:
    """Play `state` to its end with `policy` for every player; the returns. With a `cutoff`, the game's
    heuristic value after that many steps stands for the returns, where the game has one; a value may
    decline to score a position in the middle of something (a combat whose dice are still rolling), and
    the playout goes on to the first one it scores."""
    game = state.game
    steps = 0
    while not state.is_terminal():
        if cutoff is not None and steps >= cutoff:
            estimate = game.heuristic_value(state)
            if estimate is not None:
                return estimate
        steps += 1
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
            continue
        player = acting_player(state, rng)
        state.apply_action(policy(state, player, state.legal_actions(player), rng), player=player)
    return state.returns()


class SearchAgent(Agent):
    """The search both agents share; `fresh_determinization` says whether each simulation resamples."""

    fresh_determinization = False

    def __init__(self, settings: SearchSettings | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.settings = settings or SearchSettings()
        self.clock = clock
        self.last_root: Node | None = None
        self.last_simulations = 0
        self._root_state: State | None = None  # the position last searched (MCTS reuse)
        self.hint_policy: RolloutPolicy = random_rollout_policy  # the game's heuristic, set by each search
        self.ranking: StateRanking | None = None  # the game heuristic's order of moves, set by each search
        self.last_choice: Action | None = None  # the move sequential halving chose, when it searched
        self.cutoff: int | None = None  # the playouts' cut-off in this search (settings.cutoff, "auto" resolved)

    def act(self, view: SeatView, rng: random.Random) -> Action:
        if len(view.legal_actions) == 1:
            return view.legal_actions[0]
        root = self.search(view, rng)
        if self.last_choice is not None:
            return self.last_choice
        player = view.player

        def preference(action: Action) -> tuple[int, float]:
            edge = root.edge(player, action)
            return (0, 0.0) if edge is None else (edge.visits, edge.mean())

        return max(view.legal_actions, key=preference)

    def search(self, view: SeatView, rng: random.Random) -> Node:
        settings = self.settings
        base = None if self.fresh_determinization else view.sample_state(rng)
        root = self._reused_root(base) if base is not None and settings.reuse else Node()
        self.hint_policy = heuristic_rollout_policy(view.game)
        self.ranking = view.game.heuristic_state_ranking()
        self.last_choice = None
        self.cutoff = view.game.heuristic_horizon() if settings.cutoff == "auto" else settings.cutoff
        policy = self.hint_policy if settings.rollout == "heuristic" else random_rollout_policy
        deadline = None if settings.seconds is None else self.clock() + settings.seconds
        if settings.root == "halving":
            first = base if base is not None else view.sample_state(rng)
            if first.decision_kind() != "race":  # a race's move is applied only by arriving first
                return self._halving(view, rng, first, base is None, policy, deadline)
        done = 0
        while settings.simulations is None or done < settings.simulations:
            if deadline is not None and done and self.clock() >= deadline:
                break  # after at least one simulation, so even a tiny time budget gives an informed move
            state = view.sample_state(rng) if base is None else base.clone()
            self.simulate(root, state, policy, rng, view.player)
            done += 1
        self.last_root, self.last_simulations = root, done
        self._root_state = base
        return root

    def _halving(self, view: SeatView, rng: random.Random, first: State, resample: bool, policy: RolloutPolicy,
                 deadline: float | None) -> Node:
        """Sequential halving at the root: the candidate moves (the heuristic's best first) share out the budget
        in rounds, each round halving them by their mean return, the heuristic's move kept to the end. Sample k
        of every move starts from the same determinization with the same generator (common random numbers),
        so two moves are told apart by what they change, not by the luck of their draws. Below the root each
        sample is an ordinary simulation of the move's subtree. The best move is played only if it beats the
        heuristic's by `margin` standard errors of the paired differences; otherwise the heuristic's move is."""
        settings, player, legal = self.settings, view.player, view.legal_actions
        order = self.ranking(first, legal, player, rng) if self.ranking is not None else []
        ranked = set(order)
        unranked = [a for a in legal if a not in ranked]
        rng.shuffle(unranked)
        candidates = (order + unranked)[:settings.candidates or None]
        hint = order[0] if order else None
        root = Node()
        samples: dict[Action, list[float]] = {action: [] for action in candidates}
        seeds: list[int] = []
        alive, taken, spent = candidates, 0, 0
        budget, started = settings.simulations, self.clock()
        rounds = max(1, math.ceil(math.log2(len(alive))))
        for round_number in range(rounds):
            if budget is None and round_number == 1 and settings.seconds is not None:
                # a time budget: as many samples as the first round's pace fits into it
                budget = max(spent, int(spent * settings.seconds / max(self.clock() - started, 1e-9)))
            per = 1 if budget is None else max(1, (budget - spent) // ((rounds - round_number) * len(alive)))
            seeds += [rng.getrandbits(64) for _ in range(taken + per - len(seeds))]
            for k in range(taken, taken + per):
                if deadline is not None and spent and self.clock() >= deadline:
                    break
                for action in alive:
                    samples[action].append(self._sample_move(root, view, action, seeds[k], first, resample, policy))
                    spent += 1
            taken = min(len(samples[a]) for a in alive)
            if len(alive) <= 2 or (deadline is not None and self.clock() >= deadline):
                break
            alive = sorted(alive, key=lambda a: (mean(samples[a][:taken]), a is hint), reverse=True)
            alive = alive[:(len(alive) + 1) // 2] + ([hint] if hint in alive[(len(alive) + 1) // 2:] else [])
        best = max(alive, key=lambda a: (mean(samples[a][:taken]), a is hint))
        if hint is not None and best is not hint and not beats(samples[best][:taken], samples[hint][:taken],
                                                               settings.margin):
            best = hint
        self.last_choice = best
        self.last_root, self.last_simulations = root, spent
        self._root_state = None
        return root

    def _sample_move(self, root: Node, view: SeatView, action: Action, seed: int, first: State, resample: bool,
                     policy: RolloutPolicy) -> float:
        """One sample of a root move: its determinization and every draw after it come from `seed`."""
        sample_rng = random.Random(seed)
        state = view.sample_state(sample_rng) if resample else first.clone()
        player = view.player
        edge = root.edges.get((player, action))
        if edge is None:
            edge = root.edges[(player, action)] = Edge()
        edge.available += 1
        state.apply_action(action, player=player)
        if edge.child is None:
            edge.child = Node()
        value = self.simulate(edge.child, state, policy, sample_rng, player)[player]
        edge.visits += 1
        edge.total += value
        return value

    def simulate(self, root: Node, state: State, policy: RolloutPolicy, rng: random.Random,
                 seat: int) -> list[float]:
        """One simulation: select and expand down the tree, play out, back up each chooser's return; the returns.

        In a response window `seat` (the searching one) answers first when it is listed: it may
        always respond before the others have.
        """
        node = root
        path: list[tuple[int, Edge]] = []
        while not state.is_terminal():
            kind = state.decision_kind()
            if kind == "chance":
                outcomes = state.chance_outcomes()
                outcome = sample_chance(state, rng)
                state.apply_action(outcome)
                if self._branches(len(outcomes)):
                    child = node.outcomes.get(outcome)
                    if child is None:
                        child = node.outcomes[outcome] = Node()
                    node = child
                continue
            if kind in ("simultaneous", "race"):
                players = state.players_to_act()
                choices = [(p, self._choose(node, state, p, policy, rng)) for p in players]
                path += [(p, node.edges[(p, a)]) for p, a in choices]
                # A race goes to whoever arrives first; the search models arrivals as equally likely.
                applied = (rng.choice(choices),) if kind == "race" else tuple(choices)
                for player, action in applied:
                    state.apply_action(action, player=player)
                child = node.joint.get(applied)
                expanded = child is None
                if child is None:
                    child = node.joint[applied] = Node()
            else:
                players = state.players_to_act()
                player = seat if kind == "response" and seat in players else players[0]
                action = self._choose(node, state, player, policy, rng)
                edge = node.edges[(player, action)]
                path.append((player, edge))
                state.apply_action(action, player=player)
                expanded = edge.child is None
                if edge.child is None:
                    edge.child = Node()
                child = edge.child
            node = child
            if expanded:
                break
        returns = play_out(state, policy, rng, self.cutoff)
        for player, edge in path:
            edge.visits += 1
            edge.total += returns[player]
        return returns

    def _choose(self, node: Node, state: State, player: int, policy: RolloutPolicy, rng: random.Random) -> Action:
        legal = state.legal_actions(player)
        settings = self.settings
        if self.ranking is None or not (settings.prior or settings.widen):  # no heuristic order wanted or known
            return ucb_choice(node, player, legal, settings.exploration, rng, widen=settings.widen)
        order = node.orders.get(player)
        if order is None:  # asked once per node and player: the first state to reach it stands for all
            order = node.orders[player] = self.ranking(state, legal, player, rng)
        return ucb_choice(node, player, legal, settings.exploration, rng, order, settings.prior, settings.widen)

    def _branches(self, outcomes: int) -> bool:
        return not self.fresh_determinization and outcomes <= self.settings.chance_branching

    def _reused_root(self, state: State) -> Node:
        """The subtree for `state` if it follows the last searched position by known moves, else a new node."""
        old, node = self._root_state, self.last_root
        if old is None or node is None or old.game is not state.game:
            return Node()
        if state.game.info.information != "perfect":
            return Node()  # the old tree grew from another sampling of what this seat cannot see
        before, now = old.history(), state.history()
        if now[:len(before)] != before:
            return Node()
        replay = old.clone()
        for actor, action in now[len(before):]:
            try:
                found = self._follow(node, replay, actor, action)
            except IllegalActionError:
                return Node()
            if found is None:
                return Node()
            node = found
        return node

    def _follow(self, node: Node, state: State, actor: int, action: Action) -> Node | None:
        kind = state.decision_kind()
        if kind in ("simultaneous", "race"):
            return None  # joint choices are stored together; the history lists them one by one
        if actor == CHANCE:
            branched = self._branches(len(state.chance_outcomes()))
            state.apply_action(action)
            return node.outcomes.get(action) if branched else node
        edge = node.edge(actor, action)
        state.apply_action(action, player=actor)
        return None if edge is None else edge.child


class MCTSAgent(SearchAgent):
    """UCT from the seat's view of the state: on a perfect-information game, the position itself."""

    name = "mcts"


class ISMCTSAgent(SearchAgent):
    """Information-set MCTS: each simulation from a new determinization; chance always open-loop."""

    name = "ismcts"
    fresh_determinization = True

    def __init__(self, settings: SearchSettings | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        super().__init__(replace(settings or SearchSettings(), reuse=False), clock)


# Difficulty levels, the same for every game: each reads the game's heuristic where it has one, and the
# game's own horizon for its value (cutoff=auto). easy is a light search led by the heuristic's moves;
# medium adds playouts cut short and scored by the value; hard plays the heuristic's move unless sequential
# halving over its 16 best, with heuristic playouts, finds one clearly better (docs/agents.md: the
# strength each level measured per game).
LEVELS: dict[str, dict[str, str]] = {
    "easy": {"sims": "30", "prior": "4"},
    "medium": {"sims": "100", "prior": "4", "cutoff": "auto"},
    "hard": {"root": "halving", "sims": "200", "top": "16", "rollout": "heuristic", "cutoff": "auto",
             "prior": "4", "widen": "0.1"},
}
SETTING_NAMES = {"sims": "simulations", "time": "seconds", "c": "exploration", "rollout": "rollout",
                 "chance": "chance_branching", "reuse": "reuse", "prior": "prior", "cutoff": "cutoff",
                 "widen": "widen", "root": "root", "top": "candidates", "margin": "margin"}


def parse_settings(text: str) -> SearchSettings:
    """Settings such as "hard", "sims=800", "time=0.5,rollout=heuristic" or "medium,c=0.7".

    sims: simulations per move; time: seconds per move (with sims: whichever ends first); c: exploration;
    rollout: random or heuristic; chance: most outcomes a chance node may have to be branched on;
    reuse: keep the subtree between moves (true/false); prior: weight of the game heuristic's move at
    each tree node (0: off); cutoff: playout steps after the tree before the game's heuristic value
    scores the playout ("auto": the game's horizon; "none": play to the end); widen: progressive
    widening (0: off); root: ucb or halving; top: the heuristic's best moves halving weighs (0: all);
    margin: standard errors by which halving's move must beat the heuristic's.
    """
    given: dict[str, str] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if "=" not in part:
            if part.lower() not in LEVELS:
                raise OptionError(f"unknown search level '{part}' (levels: {', '.join(LEVELS)})")
            given = {**LEVELS[part.lower()], **given}
            continue
        key, _, value = (s.strip() for s in part.partition("="))
        if key not in SETTING_NAMES:
            raise OptionError(f"unknown search setting '{key}' (settings: {', '.join(SETTING_NAMES)})")
        given[key] = value
    fields: dict[str, object] = {}
    if "time" in given and "sims" not in given:
        fields["simulations"] = None
    for key, value in given.items():
        fields[SETTING_NAMES[key]] = _setting_value(key, value)
    return SearchSettings(**fields)  # type: ignore[arg-type]


def _setting_value(key: str, value: str) -> object:
    try:
        if key == "cutoff" and value.lower() in ("auto", "none"):
            return None if value.lower() == "none" else "auto"
        if key in ("sims", "chance", "cutoff", "top"):
            return int(value)
        if key in ("time", "c", "prior", "widen", "margin"):
            return float(value)
    except ValueError:
        wanted = "a number, auto or none" if key == "cutoff" else "a number"
        raise OptionError(f"search setting '{key}' wants {wanted}, not '{value}'") from None
    if key == "reuse":
        if value.lower() not in ("true", "false", "yes", "no", "1", "0"):
            raise OptionError(f"search setting 'reuse' wants true or false, not '{value}'")
        return value.lower() in ("true", "yes", "1")
    return value.lower()


register_agent("mcts", lambda settings: MCTSAgent(parse_settings(settings)))
register_agent("ismcts", lambda settings: ISMCTSAgent(parse_settings(settings)))
