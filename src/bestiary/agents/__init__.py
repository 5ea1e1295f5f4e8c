"""Computer players. They use only the core API and see only what their seat may see."""

from bestiary.agents.base import Agent, HeuristicAgent, RandomAgent, SeatView, agent_names, make_agent, register_agent
from bestiary.agents.match import play_match
from bestiary.agents.search import ISMCTSAgent, MCTSAgent, SearchSettings, parse_settings

__all__ = [
    "Agent", "HeuristicAgent", "ISMCTSAgent", "MCTSAgent", "RandomAgent", "SearchSettings", "SeatView",
    "agent_names", "make_agent", "parse_settings", "play_match", "register_agent",
]
