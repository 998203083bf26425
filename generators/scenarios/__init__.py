"""Scenario planners, one module per shape of session; each planner is `PlanFn` (generators/common.py).

generators/registry.py PLANNERS maps every family of schemas/config.py SCENARIOS to its planner;
families that share a shape share a module (interruption, delegation, overlay).
"""
