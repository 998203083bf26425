"""The Mandarin generated-text lint (generators/banks/zh/lint.py): what it catches, what it
leaves alone, and that 1,000 scripts of the default zh mix (delegations included) give it nothing.
"""
from __future__ import annotations

import pytest

from generators.registry import plan_trajectory, scenario_for, scenario_weights, trajectory_seed
from generators.banks.zh.lint import lint_reply_zh, lint_speech_zh, lint_utterance_zh
from generators.text_lint import lint_script
from schemas.config import RunConfig


@pytest.mark.parametrize("text,check", [
    ("我帮你看了一下北京的的天气。", "doubled_de"),
    ("我们二个人去吃火锅。", "number_agreement"),
    ("要二杯拿铁吗？", "number_agreement"),
    ("好的，。我查一下。", "punctuation_run"),
    ("我查一下北京北京的天气。", "repeated_word"),
    ("这周日想去去郊外徒步，你觉得呢？", "repeated_word"),
])
def test_each_artefact_is_caught_by_its_check(text: str, check: str) -> None:
    assert [h.check for h in lint_utterance_zh(text)] == [check]


@pytest.mark.parametrize("text", [
    "不对不对，是周六。",            # a repeat said on purpose
    "十二个人，第二个路口左转。",     # 二 inside a number and as an ordinal
    "周二天气不错，星期二也行。",     # 二 naming a weekday
    "大漠风味还有位子。位子方面，大厅坐得下。",   # picked up again after a full stop
    "饺子一个一个包好。",
    "的确是这样。",
    "我去去就回。",
])
def test_correct_speech_is_left_alone(text: str) -> None:
    assert lint_utterance_zh(text) == []


def test_speech_and_perspective_checks() -> None:
    assert [h.check for h in lint_speech_zh("查一下Beijing周六的天气")] == ["latin_in_speech"]
    assert lint_speech_zh("北京周六多云") == []
    user = "帮我想想我的客厅怎么布置"
    assert [h.check for h in lint_reply_zh(user, "好的，我的客厅可以这样布置。")] == ["pronoun_perspective"]
    assert lint_reply_zh(user, "好的，你的客厅可以这样布置。") == []


def test_a_thousand_default_zh_scripts_are_clean() -> None:
    cfg = RunConfig(language="zh")
    weights = scenario_weights(cfg, "zh")
    hits = []
    for i in range(1000):
        seed = trajectory_seed(cfg.seed, i)
        script = plan_trajectory(cfg, scenario_for(i, cfg.seed, weights), seed, "zh")
        hits += [f"row {i} ({script.scenario}) {h}" for h in lint_script(script)]
        # a redraw (registry.plan_script) means the bank's own first draw failed the lint: a hit too
        hits += [f"row {i} ({script.scenario}) redrawn: its first draw fails the lint"] if script.seed != seed else []
    assert not hits, f"{len(hits)} lint hits, e.g.\n" + "\n".join(hits[:10])


def test_a_zh_private_request_is_mandarin():
    """"14.2 plus 32.8" in a Mandarin request is mixed-language text; a harness name glossed in （）may stay."""
    from generators.banks.zh.lint import lint_request_zh
    assert [h.check for h in lint_request_zh("计算总价（元）：14.2 plus 32.8。")] == ["latin_in_request"]
    assert lint_request_zh("计算总价（元）：14.2加32.8。") == []
    assert lint_request_zh("列出日历上周一（Monday）的所有日程和开始时间。") == []


def test_zh_calculator_reads_mandarin_operators():
    from generators.harness.calculator import evaluate
    assert evaluate("14.2加32.8") == 47.0
    assert evaluate("12除以4减去1") == 2.0
    assert evaluate("3乘以5加上2") == 17.0
