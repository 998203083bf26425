"""The source dataset the consumer-format export tests (moshi, lhotse) read: real rows, en and zh.

Rows come from the real planners, composer and espeak-ng (tests/generated.py), each validated:
English delegation (harness events), an English interruption (a word cut at the fade), an English
backchannel, Mandarin delegation and interruption. One more row is the English interruption with
its user_audio cut to half its bytes, as a truncated write would leave it: the one row an export
cannot convert, which must become a failure record while the others are exported.
"""
from __future__ import annotations

from pathlib import Path

from schemas.config import RunConfig
from schemas.trajectory import AudioBlob, TrajectoryRow
from tests.generated import FIXTURE_CONFIG, Generated, write_dataset

BROKEN_ID = "x-en-broken-audio"


def consumer_rows(generated: Generated) -> list[TrajectoryRow]:
    """The good rows (ids x-<lang>-<scenario>) and, last, the broken one."""
    rows = [generated.row("delegation", 1, row_id="x-en-delegation"),
            generated.row("interruption_discard", 1, row_id="x-en-interruption"),
            generated.row("backchannel", 1, row_id="x-en-backchannel"),
            generated.row("delegation", 1, row_id="x-zh-delegation", language="zh"),
            generated.row("interruption_discard", 1, row_id="x-zh-interruption", language="zh")]
    broken = rows[1].model_copy(deep=True)
    broken.id = BROKEN_ID
    broken.user_audio = AudioBlob(bytes=broken.user_audio.bytes[: len(broken.user_audio.bytes) // 2])
    return rows + [broken]


def consumer_dataset(root: Path, generated: Generated) -> tuple[Path, dict[str, TrajectoryRow]]:
    """The rows written as a generator output folder under root/src; (folder, good rows by id)."""
    rows = consumer_rows(generated)
    mixed = {k: v for k, v in FIXTURE_CONFIG.model_dump(mode="json").items() if k != "language"}
    cfg = RunConfig.model_validate({**mixed, "languages": {"en": 0.5, "zh": 0.5}})   # a mixed run, as the rows are
    src = write_dataset(root / "src", rows, rows_per_shard=4, cfg=cfg)
    return src, {r.id: r for r in rows if r.id != BROKEN_ID}
