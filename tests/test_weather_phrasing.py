"""The weather service words each condition several ways; every wording reads back as its condition."""
from __future__ import annotations

import numpy as np

from generators.banks.delegations import Result
from generators.banks.results import forecast_values
from generators.harness import HarnessState, ToolCall, run_task
from generators.harness.weather import CONDITIONS, condition_named, gear_for
from generators.text_bank import _text
from schemas.config import HarnessConfig


def test_every_wording_reads_back_as_its_condition() -> None:
    zh_names = set(_text("zh").bank.data.tables["weather_phrases"].keys())
    for c in CONDITIONS:
        assert len(c.phrases) >= 2 and c.name in zh_names, c.name   # the Mandarin reader says each one
        for phrase in c.phrases:
            assert ", " not in phrase, phrase   # the result text is split at ", "
            assert condition_named(phrase) is c and gear_for(phrase) == c.gear


def test_forecasts_use_the_wordings_and_relays_can_read_them() -> None:
    cfg, seen = HarnessConfig(), set()
    for seed in range(300):
        ex = run_task("t1", ToolCall("weather", {"city": "London", "day": "tomorrow", "seed": str(seed)}), cfg,
                      np.random.default_rng(seed), HarnessState(), force="ok")
        cond = forecast_values(Result(ex.text.rstrip("."), {}, True))["cond"]
        assert condition_named(str(cond)) is not None, ex.text
        seen.add(cond)
    assert len(seen) > len(CONDITIONS) + 5   # more wordings than conditions come back
