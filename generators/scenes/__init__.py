"""Procedural visual scenes (DESIGN §6 "Vision"): the object catalogue as data and the scene planner."""
