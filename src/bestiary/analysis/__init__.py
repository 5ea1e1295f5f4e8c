"""Simulation and balance analysis for every registered game, on the core API alone (docs/balance.md)."""

from bestiary.analysis.backends import simulate
from bestiary.analysis.report import Report, report_from_files
from bestiary.analysis.results import load, read_results, write_results
from bestiary.analysis.simulate import SimulationSpec
from bestiary.analysis.stats import Rate, difference_interval, wilson_interval
from bestiary.analysis.summary import GroupSummary, summarise
from bestiary.analysis.sweep import Parameter, parse_parameter, run_sweep

__all__ = ["GroupSummary", "Parameter", "Rate", "Report", "SimulationSpec", "difference_interval", "load",
           "parse_parameter", "read_results", "report_from_files", "run_sweep", "simulate", "summarise",
           "wilson_interval", "write_results"]
