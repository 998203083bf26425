"""Contrastive twins (schemas/twins.py, generators/twins.py, jobs/twins.py, pipeline/validate.validate_twins).

A real shard is generated with twins on (real planners, composer and Parquet; ToneTTS keeps it fast):
every pair validates, shares its script and unit outputs up to the divergence, and differs in exactly
one overlap; a rule-4 pair agrees everywhere. Each twin check fires when its property is broken.
"""
from __future__ import annotations

import functools
import json
import re

import numpy as np
import pyarrow.parquet as pq
import pytest
import yaml

from generators.banks.engine import expansions
from generators.banks.loader import BANKS_DIR
from generators.twins import Moment, derive, draw_twin, kinds_for
from jobs.shards import ShardPlan, check_shard, run_shard
from pipeline.io import decode_audio, encode_flac
from pipeline.validate import TWIN_RULES, validate_row, validate_twins
from schemas.arrow import row_from_dict
from schemas.config import RunConfig, Scenario, TwinsConfig
from schemas.script import Script
from schemas.trajectory import TrajectoryRow
from schemas.twins import (
    TWIN_META_KEY,
    TwinKind,
    TwinSide,
    differing_overlaps,
    twin_id,
    twin_meta,
)
from schemas.vocab import OVERLAY_KINDS, EventKind, Label
from schemas.windows import to_samples, unit_samples, window_of
from tests.conftest import ToneTTS
from tests.generated import FAST_VOICES

FAMILIES = (Scenario.BACKCHANNEL, Scenario.INTERRUPTION_DISCARD, Scenario.INTERRUPTION_PARK, Scenario.OTHER_DIRECTED,
            Scenario.INTERRUPTION_REPAIR, Scenario.BACKGROUND_SPEECH)
STOP_LABELS = {Label.STOP_DISCARD, Label.STOP_REPAIR, Label.STOP_PARK}
NUM = 10   # seed 0: every twin kind, on interruption and overlay families


def _cfg(**twins: object) -> RunConfig:
    return RunConfig(seed=0, num=NUM, shard_size=NUM, scenarios={s: 1.0 for s in FAMILIES},
                     twins=TwinsConfig(share=1.0, **twins), voices=FAST_VOICES)


@pytest.fixture(scope="module")
def shard(tmp_path_factory) -> tuple[list[TrajectoryRow], object, str]:
    out = tmp_path_factory.mktemp("twins")
    summary = run_shard(_cfg(), ShardPlan(0, 0, NUM), out, tts=ToneTTS())
    rows = [row_from_dict(d) for d in pq.read_table(out / summary.path).to_pylist()]
    return rows, summary, str(out)


def _pattern(template: str) -> str:
    """A regex for what one expansion of a bank template can render to: slots are any words."""
    out = re.escape(template)
    out = re.sub(r"\\\{\w+\\\}", ".+?", out)
    return r"\s*".join(out.split(r"\ "))


@functools.cache
def _other_directed_patterns(lang: str) -> tuple[re.Pattern[str], ...]:
    chatter = yaml.safe_load((BANKS_DIR / lang / "chatter.yaml").read_text(encoding="utf-8"))
    lines = chatter["other_people"]["other_directed"]
    return tuple(re.compile(_pattern(e), re.IGNORECASE) for t in lines for e in expansions(t))


def _other_directed(text: str, lang: str) -> bool:
    """Whether `text` is one of the bank's lines addressed to someone else in the room (chatter.yaml)."""
    return any(p.fullmatch(text) for p in _other_directed_patterns(lang))


def _pairs(rows: list[TrajectoryRow]) -> list[tuple[TrajectoryRow, TrajectoryRow]]:
    by_id = {r.id: r for r in rows}
    out = []
    for r in rows:
        m = twin_meta(r.meta)
        if m is not None and m.side == TwinSide.BASE:
            out.append((r, by_id[m.partner]))
    return out


def _kind(pair: tuple[TrajectoryRow, TrajectoryRow]) -> TwinKind:
    m = twin_meta(pair[0].meta)
    assert m is not None
    return m.kind


def _rule4(pair: tuple[TrajectoryRow, TrajectoryRow]) -> bool:
    return _kind(pair) == TwinKind.CLEAN and pair[0].scenario in (Scenario.BACKCHANNEL, Scenario.OTHER_DIRECTED,
                                                                  Scenario.BACKGROUND_SPEECH)


def test_default_config_makes_no_twins_and_hashes_as_before() -> None:
    cfg = RunConfig()
    assert "twins" not in cfg.model_dump(mode="json")
    assert all(draw_twin(cfg.twins, s, seed) is None for s in FAMILIES for seed in range(20))
    assert "twins" in _cfg().model_dump(mode="json") and _cfg().config_hash() != RunConfig(
        seed=0, num=NUM, shard_size=NUM, scenarios={s: 1.0 for s in FAMILIES}).config_hash()


def test_every_trajectory_gets_its_twin_and_the_shard_counts_them(shard) -> None:
    rows, summary, out = shard
    pairs = _pairs(rows)
    assert summary.failed == 0 and summary.twins == NUM and summary.rows == 2 * NUM == len(rows)
    assert [r.id for r in rows[:2]] == [pairs[0][0].id, twin_id(pairs[0][0].id)]   # the twin follows its base
    assert {(_kind(p), _rule4(p)) for p in pairs} == {(TwinKind.AS_BACKCHANNEL, False),
                                                     (TwinKind.AS_OTHER_DIRECTED, False),
                                                     (TwinKind.CLEAN, False), (TwinKind.CLEAN, True)}
    assert check_shard(out, ShardPlan(0, 0, NUM))[1] == ""   # resume accepts rows + failed = planned + twins


def test_generated_pairs_validate(shard) -> None:
    rows, _, _ = shard
    assert validate_twins(rows) == []
    assert [v for r in rows for v in validate_row(r, expect_tokens=False)] == []


def test_pair_shares_its_prefix_and_differs_in_one_overlap(shard) -> None:
    rows, _, _ = shard
    for base, twin in _pairs(rows):
        m = twin_meta(base.meta)
        assert m is not None
        sb, st = Script.model_validate_json(base.script), Script.model_validate_json(twin.script)
        i = next(k for k, (a, b) in enumerate(zip(sb.turns, st.turns)) if a != b)   # the one changed turn
        assert sb.turns[:i] == st.turns[:i] and len(st.turns) == i + 1
        assert st.model_copy(update={"turns": ()}) == sb.model_copy(update={"turns": ()})   # same seed, draws
        gone, new = differing_overlaps(base.events, twin.events)
        assert [e.id for e in gone] == [m.event] and [e.id for e in new] == ([m.twin_event] if m.twin_event else [])
        if m.kind == TwinKind.CLEAN and gone[0].kind != EventKind.INTERRUPTION:   # of several overlays, the
            assert gone[0].start_s == min(e.start_s for e in base.events if e.kind in OVERLAY_KINDS)   # earliest
        if m.kind != TwinKind.CLEAN:   # the same moment, said otherwise
            assert gone[0].kind == EventKind.INTERRUPTION and new[0].kind in OVERLAY_KINDS
            assert new[0].start_s == gone[0].start_s
            if m.kind == TwinKind.AS_OTHER_DIRECTED:   # a line to someone else, not the request it replaces
                assert new[0].text != gone[0].text and _other_directed(new[0].text, "en")
        K = window_of(to_samples(m.diverge_s, base.sample_rate), unit_samples(base.unit_s, base.sample_rate))
        assert [u.model_dump() for u in base.units[:K]] == [u.model_dump() for u in twin.units[:K]]
        if not _rule4((base, twin)):   # the interruption is acted on; its twin talks on
            assert base.units[K:] != twin.units[K:]
            assert STOP_LABELS & {l for u in base.units[K:] for l in u.labels}
            assert not STOP_LABELS & {l for u in twin.units for l in u.labels}
        else:
            assert [(u.decision, u.spoken_text) for u in base.units] == [(u.decision, u.spoken_text) for u in twin.units]


def test_twin_rows_are_reproducible(shard, tmp_path) -> None:
    rows, _, _ = shard
    again = run_shard(_cfg(), ShardPlan(0, 0, 2), tmp_path, tts=ToneTTS())
    assert [row_from_dict(d) for d in pq.read_table(tmp_path / again.path).to_pylist()] == rows[:4]


def test_kinds_follow_the_family() -> None:
    assert kinds_for(Scenario.INTERRUPTION_REPAIR) == tuple(TwinKind)
    assert kinds_for(Scenario.BACKCHANNEL) == (TwinKind.CLEAN,)
    assert kinds_for(Scenario.DELEGATION) == ()
    only = TwinsConfig(share=1.0, kinds=[TwinKind.AS_BACKCHANNEL])
    assert draw_twin(only, Scenario.BACKCHANNEL, 3) is None
    draw = draw_twin(only, Scenario.INTERRUPTION_PARK, 3)
    assert draw is not None and draw.kind == TwinKind.AS_BACKCHANNEL


# ----------------------------------------------------------------------------- mutations: each check fires

def _with_meta(row: TrajectoryRow, **change: object) -> TrajectoryRow:
    meta = json.loads(row.meta)
    meta[TWIN_META_KEY].update(change)
    return row.model_copy(update={"meta": json.dumps(meta, sort_keys=True)})


def _rules(rows: list[TrajectoryRow]) -> set[str]:
    return {v.rule for v in validate_twins(rows)}


def _pair(shard, rule4: bool) -> tuple[TrajectoryRow, TrajectoryRow]:
    return next(p for p in _pairs(shard[0]) if _rule4(p) == rule4)


def _diverge_unit(row: TrajectoryRow) -> int:
    m = twin_meta(row.meta)
    assert m is not None
    return window_of(to_samples(m.diverge_s, row.sample_rate), unit_samples(row.unit_s, row.sample_rate))


def test_mutation_meta_naming_another_event_breaks_twin_pair(shard) -> None:
    base, twin = _pair(shard, rule4=False)
    assert _rules([_with_meta(base, event="a9.interruption"), twin]) == {"twin_pair"}
    assert _rules([base, _with_meta(twin, partner="s0-00000-0000099")]) == {"twin_pair"}


def test_mutation_prefix_output_change_breaks_twin_prefix(shard) -> None:
    base, twin = _pair(shard, rule4=False)
    k = _diverge_unit(base) - 1
    units = list(twin.units)
    units[k] = units[k].model_copy(update={"spoken_text": units[k].spoken_text + " extra"})
    assert _rules([base, twin.model_copy(update={"units": units})]) == {"twin_prefix"}


def test_mutation_prefix_audio_change_breaks_twin_prefix(shard) -> None:
    base, twin = _pair(shard, rule4=False)
    audio, sr = decode_audio(twin.assistant_audio.bytes)
    speaking = int(np.flatnonzero(np.abs(audio) > 0.01)[0])   # the first assistant sample, before the cut
    assert speaking < _diverge_unit(base) * unit_samples(base.unit_s, sr)
    audio = audio.copy()
    audio[speaking] = -audio[speaking] - 0.1
    blob = twin.assistant_audio.model_copy(update={"bytes": encode_flac(audio, sr)})
    assert _rules([base, twin.model_copy(update={"assistant_audio": blob})]) == {"twin_prefix"}


def test_mutation_audio_change_just_before_the_divergence_window_ends_breaks_twin_prefix(shard) -> None:
    """No stretch of what units before the divergence played is excused (rule 3's fade lies after the
    cut, in the reaction window): faded audio in the last 50 ms of window K breaks twin_prefix."""
    base, twin = _pair(shard, rule4=False)
    audio, sr = decode_audio(twin.assistant_audio.bytes)
    U = unit_samples(base.unit_s, sr)
    end = (_diverge_unit(base) + 1) * U
    fade = to_samples(0.05, sr)
    assert np.any(audio[end - fade:end])   # the twin is speaking there
    audio = audio.copy()
    audio[end - fade:end] *= np.linspace(1, 0, fade, dtype=np.float32)
    blob = twin.assistant_audio.model_copy(update={"bytes": encode_flac(audio, sr)})
    assert _rules([base, twin.model_copy(update={"assistant_audio": blob})]) == {"twin_prefix"}


def test_interruption_leaves_every_output_before_its_reaction_as_without_it(shard) -> None:
    """Rule 3, causally, on generated rows: against its clean twin (the same session without the
    interruption), an interrupted row's outputs of the units before the reacting one, and its
    assistant audio up to the cut, are byte-identical; the fade follows the cut, in the reaction
    window, and the channel is silent (< -50 dBFS) from the fade's end through that window."""
    from pipeline.acoustics import window_peak_dbfs
    from schemas.thresholds import ASSISTANT_SILENCE_DBFS
    from schemas.twins import OUTPUT_LABELS
    def out(u):
        return (u.decision, u.spoken_text, u.speech_tokens, u.turn_eos, u.delegate,
                sorted(x for x in u.labels if x in OUTPUT_LABELS))

    def words(r):
        return [(w.word, w.start_s) for w in r.words if w.event_id == turn.id]
    pairs = [p for p in _pairs(shard[0]) if _kind(p) == TwinKind.CLEAN and not _rule4(p)]
    assert pairs
    for base, twin in pairs:
        turn = next(e for e in base.events if e.kind == EventKind.ASSISTANT_TURN and json.loads(e.attrs)["interrupted"])
        a = json.loads(turn.attrs)
        sr, U = base.sample_rate, unit_samples(base.unit_s, base.sample_rate)
        cut, fade = to_samples(a["cut_s"], sr), to_samples(a["fade_s"], sr)
        R = window_of(cut, U)   # the reaction window: played by unit R-1, which read the detection
        assert cut == R * U
        assert [out(u) for u in base.units[:R - 1]] == [out(u) for u in twin.units[:R - 1]]
        x, y = decode_audio(base.assistant_audio.bytes)[0], decode_audio(twin.assistant_audio.bytes)[0]
        assert np.array_equal(x[:cut], y[:cut])
        assert np.any(x[cut:cut + fade]) and window_peak_dbfs(x, cut + fade, (R + 1) * U) < ASSISTANT_SILENCE_DBFS
        assert base.units[R - 1].decision == "listen" and not base.units[R - 1].spoken_text
        # spoken_text is not changed by the fade: the interrupted turn voices exactly the twin's words
        # that start before the cut (their ends clipped to it)
        assert words(base) == [w for w in words(twin) if to_samples(w[1], sr) < cut]


def test_mutation_output_change_after_a_rule4_overlay_breaks_twin_rule4(shard) -> None:
    base, twin = _pair(shard, rule4=True)
    k = next(u.index for u in twin.units[_diverge_unit(base):] if u.spoken_text)
    units = list(twin.units)
    units[k] = units[k].model_copy(update={"spoken_text": ""})
    assert _rules([base, twin.model_copy(update={"units": units})]) == {"twin_rule4"}
    assert set(TWIN_RULES) == {"twin_pair", "twin_prefix", "twin_rule4"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_other_directed_twin_says_a_line_to_someone_else_never_the_request(lang) -> None:
    """"Can you work out my student loan payoff?" became, in its as_other_directed twin, speech to someone
    else (issue #28): the twin's label was false. Over 150 twin draws per language (every interruption family),
    the replacement is a line of the bank's other-directed speech and none of the user's own words in the
    script: not the cut-in, not a request the assistant answered."""
    cfg = RunConfig(language=lang)
    twins = TwinsConfig(share=1.0, kinds=[TwinKind.AS_OTHER_DIRECTED])
    moment = Moment(onset=8000, boundary_end=6400, sample_rate=16000)
    seen = 0
    for family in (Scenario.INTERRUPTION_DISCARD, Scenario.INTERRUPTION_REPAIR, Scenario.INTERRUPTION_PARK):
        for seed in range(50):
            from generators.registry import plan_trajectory

            base = plan_trajectory(cfg, family, seed)
            draw = draw_twin(twins, family, seed)
            assert draw is not None and draw.kind == TwinKind.AS_OTHER_DIRECTED
            twin = derive(base, draw, moment)
            added = [o for o in twin.turns[-1].overlays if o.kind == EventKind.OTHER_DIRECTED and
                     o not in base.turns[len(twin.turns) - 1].overlays]
            assert len(added) == 1
            said = {t.text for t in base.turns if t.role == "user"} | \
                {t.interruption.text for t in base.turns if t.interruption is not None}
            assert added[0].text not in said, (family, seed, added[0].text)
            assert _other_directed(added[0].text, lang), (family, seed, added[0].text)
            seen += 1
    assert seen == 150
