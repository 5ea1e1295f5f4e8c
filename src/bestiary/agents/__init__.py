"""Computer players. They use only the core API and see only what their seat may see."""

from bestiary.agents.base import Agent, HeuristicAgent, RandomAgent, SeatView, agent_names, make_agent

__all__ = ["Agent", "HeuristicAgent", "RandomAgent", "SeatView", "agent_names", "make_agent"]
