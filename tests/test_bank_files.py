"""The text-bank data files (generators/banks/en/*.yaml): every shipped file loads and lints
clean, and each lint rule fires on a real shipped file mutated in a temporary copy, with an
error that names the file and the entry."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml

from generators import text_bank as tb
from generators.banks.loader import (
    BANKS_DIR,
    FIXED_FILES,
    BankError,
    load_bank,
    load_language,
)
from generators.harness import Execution, HarnessState, ToolCall, execute

EN = BANKS_DIR / "en"


def copy_bank(tmp_path: Path) -> Path:
    """A private copy of the shipped English folder (load_bank caches by path, so each copy loads afresh)."""
    folder = tmp_path / "en"
    shutil.copytree(EN, folder, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    return folder


def mutate(folder: Path, file: str, old: str, new: str) -> None:
    """Replace one exact, unique passage of a shipped file."""
    path = folder / file
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} is not a unique passage of {file}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def load_error(folder: Path) -> str:
    with pytest.raises(BankError) as info:
        load_bank(folder, "en")
    return str(info.value)


# =========================================================================== shipped files


def test_every_shipped_file_loads_and_lints_clean() -> None:
    bank = load_language("en")
    files = sorted(p.name for p in EN.glob("*.yaml"))
    tools = ("weather", "calculator", "unit_convert", "datetime", "lookup", "search", "calendar")
    assert files == sorted([f"{d}.yaml" for d in bank.domains] + [f"delegation_{t}.yaml" for t in tools] + list(FIXED_FILES))
    # the delegated requests: every tool, every domain, in the draw order of language.yaml
    specs = bank.delegations.specs
    assert len(specs) >= 40 and len(bank.delegations.by_name) == len(specs)
    assert tuple(dict.fromkeys(s.tool for s in specs)) == tools
    assert {s.domain for s in specs} == set(bank.domains)
    assert bank.domains == tb.DOMAINS
    assert len(bank.domains) == 12
    # every file is plain YAML any reader can open, and every domain has several kinds of request
    for name in files:
        assert isinstance(yaml.safe_load((EN / name).read_text(encoding="utf-8")), dict), name
    for domain in bank.domains:
        assert sum(sc.domain == domain for sc in bank.scenarios) >= 3, domain


def test_copy_of_shipped_folder_loads_like_the_shipped_one(tmp_path: Path) -> None:
    """A folder loads by path alone, so a future zh/ beside en/ loads the same way."""
    bank = load_bank(copy_bank(tmp_path), "en")
    shipped = load_language("en")
    assert bank.domains == shipped.domains
    assert [sc.topic for sc in bank.scenarios] == [sc.topic for sc in shipped.scenarios]
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    for a, b in zip(bank.scenarios, shipped.scenarios, strict=True):
        assert a.view(a.draw_slots(rng_a)) == b.view(b.draw_slots(rng_b))
    for x, y in zip(bank.delegations.specs, shipped.delegations.specs, strict=True):
        sx, sy = x.draw(rng_a), y.draw(rng_b)
        assert x.name == y.name and x.view(sx) == y.view(sy) and x.call(sx) == y.call(sy)


def test_load_is_cached_per_path(tmp_path: Path) -> None:
    assert load_language("en") is load_language("en")
    folder = copy_bank(tmp_path)
    assert load_bank(folder, "en") is load_bank(folder, "en")
    assert load_bank(folder, "en") is not load_language("en")


def test_a_new_domain_is_one_data_file(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    (folder / "gardening.yaml").write_text(
        """domain: gardening
topic: the garden plan
scenarios:
- name: sowing
  slots:
    veg: {values: [carrots, beans, peas]}
    weeks: {int: [2, 6]}
  request:
  - The packet says to wait {weeks} weeks. When should I sow {veg}?
  answer:
  - - '[Sure|Okay], {veg} are easy.'
  - - Sow them in about {weeks} weeks.
    - '[Give it|Wait] {weeks} weeks, then sow.'
  - - Keep the soil moist.
  corrections:
  - slot: veg
    show: '{veg}'
  topic:
  - sowing {veg}
""",
        encoding="utf-8",
    )
    mutate(folder, "language.yaml", "health]", "health, gardening]")
    bank = load_bank(folder, "en")
    assert bank.domains[-1] == "gardening"
    assert bank.domain_topics["gardening"] == "the garden plan"


# =========================================================================== each lint rule


def test_unknown_slot_in_a_template(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    mutate(folder, "cooking.yaml", "- How do I make {dish} for {servings} people?", "- How do I make {dishh} for {servings} people?")
    msg = load_error(folder)
    assert "cooking.yaml" in msg and "scenario 'recipe' request[0]" in msg and "unknown slot {dishh}" in msg, msg


def test_unbalanced_alternation(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    mutate(folder, "cooking.yaml", "'[First|To start|Start by getting the prep done], {prep}.'",
           "'[First|To start|Start by getting the prep done, {prep}.'")
    msg = load_error(folder)
    assert "cooking.yaml: scenario 'recipe' answer[2][0]" in msg and "unbalanced '['" in msg, msg


def test_unbalanced_brace(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    mutate(folder, "cooking.yaml", "- How do I make {dish} for {servings} people?", "- How do I make {dish for {servings} people?")
    msg = load_error(folder)
    assert "cooking.yaml: scenario 'recipe' request[0]" in msg and "unbalanced '{'" in msg, msg


def test_unknown_derive_function(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    mutate(folder, "cooking.yaml", "derive: cooking_recipe\n", "derive: cooking_recipes\n")
    msg = load_error(folder)
    assert "cooking.yaml: scenario 'recipe' derive" in msg and "unknown function 'cooking_recipes'" in msg, msg


def test_duplicate_template(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    mutate(folder, "weather.yaml",
           "  - 'Can you make sense of this forecast? {city} {day_on}: {cond}, high {high}, low {low}, rain {rain} percent.'\n",
           "  - 'My app says {city} {day_on}: {cond}, {low} to {high} degrees, with a {rain} percent chance of rain. "
           "What does that mean for me?'\n")
    msg = load_error(folder)
    assert "weather.yaml: scenario 'forecast' request" in msg and "duplicate template" in msg, msg


def test_duplicate_table_key(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    mutate(folder, "cooking.yaml", "    - name: chicken stir fry\n", "    - name: mushroom risotto\n")
    msg = load_error(folder)
    assert "cooking.yaml: table 'dishes'" in msg and "duplicate key 'mushroom risotto'" in msg, msg


def test_duplicate_mapping_key(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    mutate(folder, "cooking.yaml", "    dish: {keys: dishes}\n", "    dish: {keys: dishes}\n    dish: {keys: dishes}\n")
    msg = load_error(folder)
    assert "cooking.yaml" in msg and "duplicate key 'dish'" in msg, msg


def test_name_defined_in_two_files(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    mutate(folder, "cooking.yaml", "lists:\n  bakes:\n", "lists:\n  activities:\n  - picnic\n  bakes:\n")
    msg = load_error(folder)
    assert "cooking.yaml: list or table 'activities' is already defined in weather.yaml" in msg, msg


def test_unknown_key(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    mutate(folder, "cooking.yaml", "- name: recipe\n", "- name: recipe\n  weigth: 2\n")
    msg = load_error(folder)
    assert "cooking.yaml: scenarios[0] 'recipe'.weigth" in msg and "Extra inputs are not permitted" in msg, msg


def test_template_that_cannot_render(tmp_path: Path) -> None:
    """A slot declared as derived that the derive function never returns: the lint renders and sees it."""
    folder = copy_bank(tmp_path)
    mutate(folder, "cooking.yaml", "derived: [servings_w, main_qty,", "derived: [ghost, servings_w, main_qty,")
    mutate(folder, "cooking.yaml", "- How do I make {dish} for {servings} people?", "- How do I make {dish} for {ghost} people?")
    msg = load_error(folder)
    assert "cooking.yaml: scenario 'recipe' request[0]: does not render" in msg and "ghost" in msg, msg


def test_derive_returning_an_undeclared_slot(tmp_path: Path) -> None:
    """shopping_gift also returns ``left``, which no template uses: dropping it from ``derived`` is caught."""
    folder = copy_bank(tmp_path)
    mutate(folder, "shopping.yaml", "price2, left, stretch]", "price2, stretch]")
    msg = load_error(folder)
    assert "shopping.yaml: scenario 'gift': derive 'shopping_gift' returns undeclared slots ['left']" in msg, msg


def test_phrase_said_as_written_has_no_syntax(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    mutate(folder, "chatter.yaml", "- mm-hmm\n", "- '[mm-hmm|mhm]'\n")
    msg = load_error(folder)
    assert "chatter.yaml: backchannels[0]" in msg and "said as written" in msg, msg


def test_domain_file_not_listed_and_listed_file_missing(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    shutil.copy(folder / "music.yaml", folder / "more_music.yaml")
    assert "more_music.yaml: not listed in language.yaml" in load_error(folder)
    (folder / "more_music.yaml").unlink()
    (folder / "music.yaml").unlink()
    assert "language.yaml: domain file music.yaml does not exist" in load_error(tmp_path / "en")


# =========================================================================== delegation files: each lint rule


def test_a_new_delegated_request_is_data_only(tmp_path: Path) -> None:
    """A spec that reuses a shipped reader needs no Python: appended to the lookup file, it loads and answers."""
    folder = copy_bank(tmp_path)
    (folder / "delegation_lookup.yaml").write_text((folder / "delegation_lookup.yaml").read_text(encoding="utf-8") + """\
- name: capital_trip
  domain: travel
  slots:
    country: {list: countries}
  args: {key: 'capital of {country}'}
  user: ['I fly to {country} next week. Where do I land if I go to the capital?']
  ack: ['[Sure|Okay], checking the capital of {country}.']
  topic: the capital of {country}
  short: [the capital check]
  request: Look up the capital city of {country}.
  read: {fn: read_first_value, with: {fact: capital}}
  facts: [capital]
  relay:
  - main: [capital]
    say: ['You land in {capital}, the capital of {country}.']
""", encoding="utf-8")
    d = load_bank(folder, "en").delegations
    spec = d.by_name["capital_trip"]
    assert spec.tool == "lookup" and spec.service == "the reference lookup" and spec.fallback == ()
    rng = np.random.default_rng(0)
    made = d.make(rng, spec)
    ex = execute_ok(made["call"])
    assert d.relay(rng, spec, made["slots"], str(made["topic"]), ex)[0].startswith("You land in ")


def execute_ok(call: ToolCall) -> Execution:
    status, text, fields = execute(call, HarnessState())
    assert status == "ok", text
    return Execution(task_id="t1", tool=call.tool, args=dict(call.args), status=status, latency_s=1.0, text=text, fields=fields)


def test_delegation_unknown_slot_in_a_relay_template(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    mutate(folder, "delegation_weather.yaml", "- The chance of rain in {city} {day_on} is {rain} percent.",
           "- The chance of rain in {town} {day_on} is {rain} percent.")
    msg = load_error(folder)
    assert "delegation_weather.yaml: spec 'rain' relay[1] say[0]" in msg and "unknown slot {town}" in msg, msg


def test_delegation_relay_part_needing_a_fact_the_reader_does_not_give(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    mutate(folder, "delegation_lookup.yaml", "  - extra: [gate]\n", "  - extra: [gate, terminal]\n")
    msg = load_error(folder)
    assert "delegation_lookup.yaml: spec 'flight' relay[5]" in msg and "needs ['terminal']" in msg, msg


def test_delegation_unbalanced_alternation(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    mutate(folder, "delegation_calculator.yaml", "'[Okay|Done|Alright], that''s {each} each.'",
           "'[Okay|Done|Alright, that''s {each} each.'")
    msg = load_error(folder)
    assert "delegation_calculator.yaml: spec 'tip_split' relay[0] say[0]" in msg and "unbalanced '['" in msg, msg


def test_delegation_unknown_function_names(tmp_path: Path) -> None:
    for old, new, where in (("  read: read_flight\n", "  read: read_flights\n", "spec 'flight' read"),
                            ("  derive: flight_city\n", "  derive: flight_town\n", "spec 'flight' derive"),
                            ("    match: {sample: fixture}\n", "    match: {sample: fixtures}\n", "spec 'score' slot 'match'")):
        folder = copy_bank(tmp_path / new.split(": ")[-1].strip("}\n "))
        file = "delegation_search.yaml" if "fixture" in old else "delegation_lookup.yaml"
        mutate(folder, file, old, new)
        msg = load_error(folder)
        name = new.split(": ")[-1].strip("}\n ")
        assert f"{file}: {where}" in msg and f"unknown function {name!r}" in msg, msg


def test_delegation_reader_argument_the_function_does_not_take(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    mutate(folder, "delegation_lookup.yaml", "read: {fn: read_first_value, with: {fact: capital}}",
           "read: {fn: read_first_value, with: {fact: capital, decimals: 2}}")
    msg = load_error(folder)
    assert "delegation_lookup.yaml: spec 'capital' read: read_first_value(fact, decimals)" in msg and "decimals" in msg, msg


def test_delegation_reader_returning_an_undeclared_fact(tmp_path: Path) -> None:
    """read_flight finds the gate in every complete result: dropping `gate` from `facts` is caught by running it."""
    folder = copy_bank(tmp_path)
    mutate(folder, "delegation_lookup.yaml", "facts: [on_time, cancelled, delay, sched_t, dep_t, gate, rebook]",
           "facts: [on_time, cancelled, delay, sched_t, dep_t, rebook]")
    mutate(folder, "delegation_lookup.yaml", "  - extra: [gate]\n    say:\n    - It leaves from gate {gate}.\n    - '[Your gate is|Head to gate] {gate}.'\n", "")
    msg = load_error(folder)
    assert "delegation_lookup.yaml: spec 'flight': read 'read_flight' returns undeclared facts ['gate']" in msg, msg


def test_delegation_harness_argument_with_an_alternation(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    mutate(folder, "delegation_lookup.yaml", "args: {key: 'flight {code}'}", "args: {key: '[flight|plane] {code}'}")
    msg = load_error(folder)
    assert "delegation_lookup.yaml: spec 'flight' args 'key'" in msg and "harness argument" in msg, msg


def test_delegation_duplicates(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    mutate(folder, "delegation_lookup.yaml", "    - '[Your gate is|Head to gate] {gate}.'\n",
           "    - It leaves from gate {gate}.\n")
    msg = load_error(folder)
    assert "delegation_lookup.yaml: spec 'flight' relay[5] say" in msg and "duplicate template" in msg, msg
    folder = copy_bank(tmp_path / "names")
    mutate(folder, "delegation_lookup.yaml", "- name: capital\n", "- name: flight\n")
    msg = load_error(folder)
    assert "delegation files: specs: duplicate spec name 'flight'" in msg, msg
    folder = copy_bank(tmp_path / "shared")
    mutate(folder, "delegation.yaml", "  - Forget about {short}, [I don't need it anymore|it's fine|I'll sort it out myself].\n",
           "  - Scratch that, I don't need {short} after all.\n")
    msg = load_error(folder)
    assert "delegation.yaml: cancel.user" in msg and "duplicate template" in msg, msg


def test_delegation_unknown_keys(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    mutate(folder, "delegation_lookup.yaml", "- name: capital\n", "- name: capital\n  weigth: 2\n")
    msg = load_error(folder)
    assert "delegation_lookup.yaml: specs[4] 'capital'.weigth" in msg and "Extra inputs are not permitted" in msg, msg
    folder = copy_bank(tmp_path / "part")
    mutate(folder, "delegation_lookup.yaml", "  - main: [capital]\n", "  - mian: [capital]\n")
    msg = load_error(folder)
    assert "delegation_lookup.yaml: specs[4] 'capital'.relay[0].mian" in msg, msg


def test_delegation_shared_phrase_with_a_task_slot_it_cannot_have(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    mutate(folder, "delegation.yaml", "- '[Done|Okay], that''s {short} cancelled.'", "- '[Done|Okay], that''s {city} cancelled.'")
    msg = load_error(folder)
    assert "delegation.yaml: cancel.ack[1]" in msg and "unknown slot {city}" in msg, msg


def test_delegation_file_tool_and_listing(tmp_path: Path) -> None:
    folder = copy_bank(tmp_path)
    mutate(folder, "delegation_search.yaml", "tool: search\n", "tool: lookup\n")
    assert "delegation_search.yaml: tool: 'lookup' does not match the file name" in load_error(folder)
    folder = copy_bank(tmp_path / "listing")
    mutate(folder, "language.yaml", "calendar]", "calendar, timer]")
    assert "language.yaml: delegation file delegation_timer.yaml does not exist" in load_error(folder)


def test_delegation_argument_taking_a_slot_value_with_alternations(tmp_path: Path) -> None:
    # a slot value may carry variants for speech, but the harness takes one value
    folder = copy_bank(tmp_path)
    mutate(folder, "delegation_calendar.yaml", "event: {values: [doctor's appointment, dentist appointment,",
           "event: {values: ['[doctor''s|GP] appointment', dentist appointment,")
    msg = load_error(folder)
    assert "delegation_calendar.yaml: spec 'book_health'" in msg and "harness arguments ['event']" in msg, msg


def test_delegation_undo_call_the_harness_refuses(tmp_path: Path) -> None:
    # the undo runs right after the call on a fresh harness: deleting another time finds nothing
    folder = copy_bank(tmp_path)
    mutate(folder, "delegation_calendar.yaml", "undo: &book_undo {action: cancel, day: '{day}', time: '{clock}'}",
           "undo: &book_undo {action: cancel, day: '{day}', time: '05:00'}")
    msg = load_error(folder)
    assert "delegation_calendar.yaml: spec 'book_health'" in msg and "refuses the undo call" in msg, msg


def test_a_smalltalk_reply_says_only_what_its_user_lines_say(tmp_path: Path) -> None:
    """"Paris in May sounds amazing" after "Have you heard good things about Paris?": the month was never said."""
    folder = copy_bank(tmp_path)
    mutate(folder, "chatter.yaml", "'From what I hear, {city} is well worth a trip.'",
           "'From what I hear, {city} in {month} is well worth a trip.'")
    msg = load_error(folder)
    assert "chatter.yaml: smalltalk pairs[" in msg and "['month']" in msg and "not every user line" in msg, msg


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_timers_last_what_their_task_plausibly_takes(lang: str) -> None:
    """Over many generated timer scripts, each timer lies in its task's range in the bank (no six
    seconds for a steak), and every range is under a minute and a half the row can hold."""
    from generators.registry import plan_trajectory
    from schemas.config import RunConfig
    rows = yaml.safe_load((BANKS_DIR / lang / "chatter.yaml").read_text(encoding="utf-8"))["tables"]["timer_labels"]["rows"]
    ranges = {r["label"]: tuple(r["seconds"]) for r in rows}
    assert all(5 <= lo <= hi <= 60 for lo, hi in ranges.values()), ranges
    cfg = RunConfig(language=lang)
    seen = set()
    for seed in range(300):
        script = plan_trajectory(cfg, "proactive_timer", seed, lang)
        timer = next(t.timer for t in script.turns if t.timer is not None)
        lo, hi = ranges[timer.label]
        assert lo <= timer.seconds <= hi, f"seed {seed}: {timer.seconds} s for {timer.label!r} (range {lo}-{hi})"
        seen.add(timer.label)
    assert len(seen) > len(ranges) // 2


def test_every_gift_top_pick_fits_the_budget_the_user_said() -> None:
    """A gift answer's first idea costs no more than the user's budget, for every hobby and every
    budget the gift scenario draws (its top pick once came in over: "Up to 20 dollars" -> a 35 dollar kit)."""
    from generators.banks.en.shopping import shopping_gift

    bank = load_bank(EN, "en")
    spec = next(s for s in yaml.safe_load((EN / "shopping.yaml").read_text())["scenarios"] if s["name"] == "gift")
    low, high, step = spec["slots"]["budget"]["int"]
    hobbies = bank.data.tables["hobbies"]
    names = [r["name"] for r in yaml.safe_load((EN / "shopping.yaml").read_text())["tables"]["hobbies"]["rows"]]
    checked = 0
    for hobby in names:
        for budget in range(low, high + 1, step):
            got = shopping_gift({"hobby": hobby, "budget": budget}, bank.data)
            assert got["price1"] <= budget, (hobby, budget, got["gift1"], got["price1"])
            checked += 1
    assert checked == len(names) * len(range(low, high + 1, step)) and hobbies
