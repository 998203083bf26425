"""The generated-text lint (generators/text_lint.py): what it catches, what it leaves alone, and
that 2,000 scripts of the default mix give it nothing to catch.

The positive cases are sentences the generator wrote before its fixes (issue #12 quotes them);
the negative ones are correct speech the checks must not flag.
"""
from __future__ import annotations

import pytest

from generators.registry import plan_trajectory, scenario_for, trajectory_seed
from generators.banks.en.lint import lint_hesitation, lint_reply, lint_utterance
from generators.text_lint import lint_script, lints_for
from schemas.config import RunConfig


@pytest.mark.parametrize("text,check", [
    ("Hmm, the search had a problem, so I'll try the The Blue Door hours again.", "doubled_article"),
    ("Invite everyone for half an hour before the a quarter to two start.", "doubled_article"),
    ("Should I take Vancouver or Vancouver?", "same_operands"),
    ("I've got 1 hours on a train.", "number_agreement"),
    ("It suits minus 1 degrees.", "number_agreement"),
    ("Having 0 dollars already, you need 750 more.", "zero_amount"),
    ("Sure, checking Northgate Rovers's next fixture.", "plural_possessive"),
    ("Alright, 70 dollars puts you in the mid range range for a kettle.", "repeated_word"),
    ("Your rent is 111 percent of your income, which already eats the whole needs share.", "impossible_share"),
    ("Oh no, the pop ups on an iPhone is frustrating, so let's sort it out.", "number_agreement"),
    ("Okay, the opening hours is called off.", "number_agreement"),
    ("When you get hungry, meat pies is the local classic.", "number_agreement"),
    ("Okay, on video calls for 3 people is easy to estimate.", "preposition_subject"),
    ("On video calls needs about 4 megabits per second per person.", "preposition_subject"),
    # issue #12 review, beyond 2,000 scripts and in the read-through
    ("I'd also keep an eye out for a dishwasher safe basket, and simple controls is a nice bonus.", "number_agreement"),
    ("Basically on Tuesday you can go whenever you like between 7 o'clock and 7 o'clock.", "same_span"),
    ("A noodle boxes prep day is a great habit.", "plural_modifier"),
])
def test_each_artefact_is_caught_by_its_check(text, check):
    assert [h.check for h in lint_utterance(text)] == [check]


@pytest.mark.parametrize("text", [
    "Temperatures go from minus 3 to 1 degrees.",
    "It works out at roughly 391.1 kilometres.",
    "Pale yellow urine tells you you're drinking enough.",
    "Second, Live at the Regal by B B King.",
    "Sure, checking Taverna Mykonos's hours for Tuesday.",
    "yeah yeah, go on",
    "Ding ding, that's the bread proving.",
    "One of the best is about one hour away.",
    "Your rent is 38 percent of your income, which is a big slice.",
    "Oh, that's common, tightness in the hamstrings is a classic result of sitting.",
    "Every weekend, twenty weeks is plenty for a first marathon.",
    "The pure maths is simple.",
    "On Thursday Maple Street Hardware is open until six.",
    "From 2026-03-11 to 2026-04-04 is 24 days.",
    "Okay, video calling for 3 people is easy to estimate.",
    "Stockholm, the day after tomorrow: light snow, minus 10 to minus 1 degrees Celsius.",
    "I'd also keep an eye out for a dishwasher safe basket, and simple controls would be a nice bonus.",
    "On Tuesday you can go between 7 in the morning and 7 in the evening, or from 9 to 5 on Saturday.",
    "A prep day for noodle boxes is a great habit, and a pasta prep day is too.",
])
def test_correct_speech_is_left_alone(text):
    assert lint_utterance(text) == []


def test_perspective_and_hesitation_checks():
    user = "Can you coach me through a quick glutes session in my living room?"
    assert [h.check for h in lint_reply(user, "Here's a workout you can do in my living room.")] == ["pronoun_perspective"]
    assert lint_reply(user, "Here's a workout you can do in your living room.") == []
    assert [h.check for h in lint_hesitation("an", "so, uh")] == ["filler_splice"]
    assert lint_hesitation("a", "uh") == [] and lint_hesitation("on", "well") == []


def test_reply_facts_and_mood():
    """The assistant may not tell the user what they have (a number they never said), nor console good news."""
    user = "How much a month to save 6000 dollars in 15 months? It's for a wedding."
    assert [h.check for h in lint_reply(user, "Saved so far: 2,400, so 3,600 still needed.")] == ["unsaid_user_fact"]
    said = user[:-1] + ", and I have 2,400 already."
    assert lint_reply(said, "Saved so far: 2,400, so 3,600 still needed.") == []
    assert [h.check for h in lint_reply("Honestly, I'm really happy, it's finally the weekend.",
                                        "Hang in there, tomorrow's a new day.")] == ["mood_mismatch"]
    assert lint_reply("I'm so tired today.", "Hang in there, tomorrow's a new day.") == []


def test_two_thousand_default_scripts_are_clean():
    cfg = RunConfig()
    hits = []
    for i in range(2000):
        seed = trajectory_seed(cfg.seed, i)
        script = plan_trajectory(cfg, scenario_for(i, cfg.seed, cfg.scenarios), seed)
        hits += [f"row {i} ({script.scenario}) {h}" for h in lint_script(script)]
        # the planner redraws a script the lint rejects (registry.plan_script): the bank's own first draw is
        # what this measures, so a redraw is a hit too
        hits += [f"row {i} ({script.scenario}) redrawn: its first draw fails the lint"] if script.seed != seed else []
    assert not hits, f"{len(hits)} lint hits, e.g.\n" + "\n".join(hits[:10])


def _correction_lines(lang: str) -> tuple[list[str], list[str]]:
    """Every expansion of the user correction lines and of the acknowledgements said after a correction or a
    revision in `lang`'s bank files (any mapping with both `user` and `ack`: generic corrections, a scenario's
    corrections, delegation `revise` and a spec's `revisions`)."""
    import yaml

    from generators.banks.engine import expansions
    from generators.banks.loader import BANKS_DIR

    users: list[str] = []
    acks: list[str] = []

    def walk(node: object, under: str) -> None:
        if isinstance(node, dict):
            if "user" in node and "ack" in node and under in ("corrections", "revisions", "revise"):
                users.extend(e for t in node["user"] for e in expansions(t))
                acks.extend(e for t in node["ack"] for e in expansions(t))
            for k, v in node.items():
                walk(v, k if k in ("corrections", "revisions", "revise") else under)
        elif isinstance(node, list):
            for v in node:
                walk(v, under)

    for path in sorted((BANKS_DIR / lang).glob("*.yaml")):
        walk(yaml.safe_load(path.read_text(encoding="utf-8")), "")
    return users, acks


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_acknowledgement_blames_the_assistant_for_the_users_slip(lang):
    """"Oops, I meant Friday, sorry." was answered "Ah, my mistake, Friday then." (issue #28): the slip was the
    user's. No acknowledgement a correction or a revision can draw, in any expansion, owns the mistake; and
    the lint reads every generic correction line (common.yaml, delegation.yaml revise) as the user's slip."""
    import yaml

    from generators.banks.engine import expansions, fill
    from generators.banks.loader import BANKS_DIR

    lints = lints_for(lang)
    users, acks = _correction_lines(lang)
    assert len(users) > 100 and len(acks) > 150, (len(users), len(acks))
    slip = {"en": "Oops, I meant Friday, sorry.", "zh": "我刚才说错了，是周五。"}[lang]
    assert [a for a in acks if any(h.check == "self_blame" for h in lints.reply(slip, a))] == []
    values = {"en": {"new": "Friday", "old": "Tuesday"}, "zh": {"new": "周五", "old": "周二"}}[lang]
    common = yaml.safe_load((BANKS_DIR / lang / "common.yaml").read_text(encoding="utf-8"))["corrections"]["user"]
    revise = yaml.safe_load((BANKS_DIR / lang / "delegation.yaml").read_text(encoding="utf-8"))["revise"]["user"]
    generic = [fill(e, values) for t in (*common, *revise) for e in expansions(t)]
    owned = {"en": "Ah, my mistake, Friday then.", "zh": "不好意思，我听岔了，是周五。"}[lang]
    assert [u for u in generic if [h.check for h in lints.reply(u, owned)] != ["self_blame"]] == []


def test_self_blame_is_refused_only_after_the_users_own_slip():
    from generators.banks.zh.lint import lint_reply_zh

    assert [h.check for h in lint_reply("Oops, I meant Friday, sorry.", "Ah, my mistake, Friday then.")] == ["self_blame"]
    assert [h.check for h in lint_reply("Sorry, I misspoke, it's Florence.", "Good catch, Florence it is.")] == ["self_blame"]
    assert lint_reply("Oops, I meant Friday, sorry.", "Ah, okay, Friday then.") == []
    assert lint_reply("What's the weather like in Florence?", "Sorry, scratch that, my mistake, it's sunny.") == []
    assert [h.check for h in lint_reply_zh("我刚才说错了，是周五。", "啊，是我没听清，是周五。")] == ["self_blame"]
    assert lint_reply_zh("我刚才说错了，是周五。", "哦，原来是周五。") == []


def test_the_shared_delegation_phrases_agree_with_every_tasks_name():
    """"the opening hours is cancelled": a shared phrase put a verb after {short} or {topic}, which a spec may
    name in the plural ("the opening hours", "the bin days"). Every phrase of delegation.yaml that names the
    task, with every short name and topic of every spec (slots drawn), lints clean."""
    import numpy as np
    import yaml

    from generators.banks.engine import expansions, fill, tidy
    from generators.banks.loader import BANKS_DIR, load_language

    phrases: list[tuple[bool, str]] = []   # (said only when a booking is taken back, the phrase)

    def walk(node: object, undo: bool) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, undo or str(k).startswith("undo"))
        elif isinstance(node, list):
            for v in node:
                walk(v, undo)
        elif isinstance(node, str) and ("{short}" in node or "{topic}" in node):
            phrases.extend((undo, e) for e in expansions(node))

    walk(yaml.safe_load((BANKS_DIR / "en" / "delegation.yaml").read_text(encoding="utf-8")), False)
    assert len(phrases) > 200
    rng = np.random.default_rng(0)
    hits: list[str] = []
    for spec in load_language("en").delegations.specs:
        base = spec.draw(rng)
        view, undoes = spec.view(base), spec.undo_call(base) is not None
        topic = fill(expansions(spec.topic)[0], view)
        for short in {fill(e, view) for t in spec.short for e in expansions(t)}:
            for undo, p in phrases:
                if undo and not undoes:
                    continue
                text = tidy(fill(p, {"short": short, "topic": topic, "service": "the service", "verb": "checking",
                                     "new": "x", "old": "y"} | {k: "x" for k in ("c_day", "c_time", "c_title")}))
                hits += [f"{spec.name}: {text!r}: {h}" for h in lint_utterance(text)]
    assert hits == [], f"{len(hits)} hits, e.g. " + "\n".join(hits[:5])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_delegated_requests_relay_lints_clean_against_its_request(lang):
    """"What day of the week is June 3? That's when my recital is." was relayed "Okay, my recital is on a
    Wednesday" (the user's first person copied). For every delegated request of the bank, 30 draws each run on
    the harness: the acknowledgement and the relay, read after the request, give the lint nothing."""
    import numpy as np

    from generators import text_bank as tb
    from generators.harness import HarnessState, run_task
    from schemas.config import HarnessConfig

    lints = lints_for(lang)
    rng = np.random.default_rng(11)
    hits: list[str] = []
    for spec in tb._text(lang).delegations.specs:
        for _ in range(30):
            c = tb._content(rng, spec, lang=lang)
            ex = run_task("t1", c.call, HarnessConfig(), rng, HarnessState(), force="ok")   # type: ignore[arg-type]
            for said in (c.ack, *tb.relay_lines(rng, c, ex)):
                hits += [f"{spec.name}: {c.user_request!r} -> {said!r}: {h}"
                         for h in lints.reply(c.user_request, said) + lints.utterance(said)]
    assert hits == [], f"{len(hits)} hits, e.g.\n" + "\n".join(hits[:5])
