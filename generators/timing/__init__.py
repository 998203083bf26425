"""Timing of the talk: what the planners draw, how composition steers it, and how it is fitted to real talk.

* `generators.timing.sampling`: one draw of a `Range` or `Dist`, its support and mean. Planners
  (generators/common.Planner.draw) use it; every draw comes from the trajectory's own RNG.
* `generators.timing.control`: the closed-loop turn controller (`ControlSpec`, `controlled_offset`,
  `controlled_pause`, `max_start_overlap`) that pipeline/compose.py applies while it places turns.
* `generators.timing.fit`: `read_segments` and `fit_timing`, which estimate the distributions from
  real conversations for `duplexsynth fit-timing`, with the interval algebra of generators/intervals.py.

The package itself imports nothing, so composing a script does not load the fitting code.
"""
