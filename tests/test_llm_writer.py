"""The LLM script writer (issue #14) against a scripted OpenAI-compatible server on loopback.

The server (tests/scripted_llm.py: http.server in a thread, started by each test) answers /v1/chat/completions with valid
replies for the family its prompt asks for, or with a 429, a 5xx, a stall past the client timeout,
malformed JSON, or a 400 refusing response_format, on a schedule. Everything else is real: the
planners, the harness, composition, espeak, Parquet, `duplexsynth generate` and `validate`.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from generators.llm import (
    FAMILIES,
    LLMCallError,
    LLMWriteError,
    LLMWriter,
    check_source,
)
from schemas.config import (
    ConfigError,
    RunConfig,
    ScriptSourceConfig,
    dump_config,
    parse_config,
)
from schemas.script import Script
from tests.generated import FAST_VOICES
from tests.scripted_llm import ScriptedServer

SECRET = "sk-test-" + "9f3a1c77e2b04d5a"   # the API key: must reach the server and nowhere else
KEY_ENV = "DUPLEXSYNTH_TEST_LLM_KEY"
REPO = Path(__file__).resolve().parents[1]


def _source(url: str, **kw: Any) -> ScriptSourceConfig:
    base = {"kind": "llm", "base_url": url, "model": "scripted-test-model", "api_key_env": KEY_ENV,
            "timeout_s": 0.5, "max_retries": 2, "max_http_retries": 3, "backoff_s": 0.01}
    return ScriptSourceConfig.model_validate({**base, **kw})


@pytest.fixture
def key_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv(KEY_ENV, SECRET)
    yield


# ------------------------------------------------------------------------------------------ config

def test_procedural_default_dumps_and_hashes_as_before() -> None:
    cfg = RunConfig()
    assert "script_source" not in cfg.model_dump(mode="json")
    assert "script_source" not in dump_config(cfg)
    explicit = parse_config({"script_source": {"kind": "procedural"}})
    assert explicit.config_hash() == cfg.config_hash()
    llm = parse_config({"script_source": {"kind": "llm", "base_url": "http://127.0.0.1:1/v1", "model": "m"}})
    assert llm.config_hash() != cfg.config_hash()
    assert parse_config(yaml.safe_load(dump_config(llm))) == llm   # a dumped llm config loads again
    bounded = parse_config({"script_source": {"kind": "llm", "base_url": "http://127.0.0.1:1/v1", "model": "m",
                                              "max_concurrency": 8}})
    assert bounded.config_hash() == llm.config_hash()   # decides no byte: a resume may change it
    assert parse_config(yaml.safe_load(dump_config(bounded))) == bounded and "max_concurrency" not in dump_config(llm)


@pytest.mark.parametrize("source, field", [
    ({"kind": "llm", "model": "m"}, "base_url is required"),
    ({"kind": "llm", "base_url": "ftp://host", "model": "m"}, "script_source.base_url"),
    ({"kind": "llm", "base_url": "http://h/v1", "model": "m", "temperature": 5}, "script_source.temperature"),
    ({"kind": "llm", "base_url": "http://h/v1", "model": "m", "api_key_env": SECRET}, "script_source.api_key_env"),
    ({"kind": "llm", "base_url": "http://h/v1", "model": "m", "max_retries": -1}, "script_source.max_retries"),
    ({"kind": "llm", "base_url": "http://h/v1", "model": "m", "timeout_s": 0}, "script_source.timeout_s"),
    ({"kind": "llm", "base_url": "http://h/v1", "model": "m", "max_concurrency": -1}, "script_source.max_concurrency"),
    ({"kind": "procedural", "model": "m"}, "model is only for kind llm"),
    ({"kind": "procedural", "max_concurrency": 4}, "max_concurrency is only for kind llm"),
    ({"kind": "gpt"}, "script_source.kind"),
])
def test_bad_source_refused_in_one_line_naming_the_field(source: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config({"script_source": source})
    assert field in str(err.value) and "\n" not in str(err.value)


def test_llm_run_refuses_families_without_a_prompt() -> None:
    src = {"kind": "llm", "base_url": "http://h/v1", "model": "m"}
    with pytest.raises(ConfigError, match="scenarios: .*pause"):
        check_source(parse_config({"script_source": src}))
    check_source(parse_config({"script_source": src, "scenarios": {s: 1.0 for s in FAMILIES}}))


# ------------------------------------------------------------------------------------------ writer

def _writer(url: str, cache: Path, **kw: Any) -> LLMWriter:
    return LLMWriter(_source(url, **kw), cache)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_each_family_writes_the_planners_script(family: str, tmp_path: Path, key_env: None) -> None:
    cfg = RunConfig()
    with ScriptedServer() as srv:
        script, prov = _writer(srv.base_url, tmp_path).write(family, 1234, cfg.timing, "en", cfg.harness)
    assert isinstance(script, Script) and script.scenario == family and script.seed == 1234
    assert prov.model == "scripted-test-model" and len(prov.calls) == 1
    assert json.loads(prov.calls[0].response)   # the raw reply, as sent
    req = srv.requests[0]["body"]
    assert req["response_format"]["type"] == "json_schema" and req["seed"] == 1234
    assert srv.requests[0]["auth"] == f"Bearer {SECRET}"
    # the planners' machinery did the timing: a cut-in on the repaired answer, backchannels placed on it
    if family == "interruption_repair":
        assert script.turns[1].interruption is not None and script.turns[2].continuation is not None
    if family in ("backchannel", "other_directed", "background_speech"):   # event kind = family name
        assert script.turns[1].overlays and all(o.kind == family for o in script.turns[1].overlays)
    if family == "pause":
        assert script.turns[0].pause is not None
    if family == "interruption_park":   # the parked answer is resumed or set aside out loud, never left hanging
        last = script.turns[3]
        resumed = last.continuation is not None and last.continuation.of_turn == script.turns[1].id
        assert resumed or last.attrs.get("drops") == script.turns[1].id
    if family == "interruption_discard":
        cut = script.turns[1].interruption
        assert cut is not None and cut.action == "discard" and len(script.turns) in (3, 5)
    if family == "delegation":
        d = script.turns[1].delegate
        assert d is not None and script.turns[2].ref == d.task_id and d.result


@pytest.mark.parametrize("family, lengths", [("interruption_discard", {3, 5}), ("interruption_park", {4})])
def test_optional_turns_follow_the_prompt_draw(family: str, lengths: set[int], tmp_path: Path, key_env: None) -> None:
    cfg = RunConfig()
    with ScriptedServer() as srv:
        w = _writer(srv.base_url, tmp_path)
        scripts = [w.write(family, s, cfg.timing)[0] for s in range(12)]
    assert {len(s.turns) for s in scripts} == lengths
    if family == "interruption_park":   # both draws occur: resumed (the LLM's prefix) and set aside (a bank line)
        assert {s.turns[3].continuation is not None for s in scripts} == {True, False}


def test_prompt_draws_follow_the_seed(tmp_path: Path, key_env: None) -> None:
    cfg = RunConfig()
    with ScriptedServer() as srv:
        w = _writer(srv.base_url, tmp_path)
        drawn = [w.write("turn_taking", s, cfg.timing)[1].prompt for s in (1, 2, 3, 4, 5, 6, 1)]
    assert drawn[0] == drawn[-1]
    assert len({(d["persona"], d["register"], d["domain"]) for d in drawn}) > 1


def test_retries_then_cache_makes_a_rerun_call_free(tmp_path: Path, key_env: None) -> None:
    cfg = RunConfig()
    with ScriptedServer(["429", "timeout", "500", "malformed"]) as srv:
        script, prov = _writer(srv.base_url, tmp_path).write("backchannel", 77, cfg.timing)
        calls = len(srv.requests)
        again, prov2 = _writer(srv.base_url, tmp_path).write("backchannel", 77, cfg.timing)
        assert len(srv.requests) == calls   # the rerun read every response from the cache
    assert calls == 5   # 429, stall, 500: retried (http); malformed: re-asked with the error; then valid
    assert len(prov.calls) == 2 and prov.calls[0].response.startswith('{"user": "half')
    feedback = srv.requests[-1]["body"]["messages"]
    assert feedback[-1]["role"] == "user" and "could not be used" in feedback[-1]["content"]
    assert feedback[-2] == {"role": "assistant", "content": prov.calls[0].response}
    assert again.model_dump_json() == script.model_dump_json() and prov2 == prov


def test_invalid_after_retries_fails_with_the_raw_response(tmp_path: Path, key_env: None) -> None:
    cfg = RunConfig()
    with ScriptedServer(["malformed"] * 10) as srv:
        with pytest.raises(LLMWriteError) as err:
            _writer(srv.base_url, tmp_path, max_retries=1).write("turn_taking", 5, cfg.timing)
    assert len(srv.requests) == 2
    assert "no valid script after 2 attempt(s)" in str(err.value) and '"half a reply"' in str(err.value)


def test_fenced_reply_is_repaired_and_wrong_language_is_fed_back(tmp_path: Path, key_env: None) -> None:
    cfg = RunConfig()
    with ScriptedServer(["fenced"]) as srv:
        _, prov = _writer(srv.base_url, tmp_path / "a").write("pause", 8, cfg.timing)
    assert len(prov.calls) == 1 and prov.calls[0].response.startswith("Here you go")
    with ScriptedServer() as srv:   # English words for a Mandarin trajectory: refused, said why, re-asked
        with pytest.raises(LLMWriteError, match="not written in Mandarin Chinese"):
            _writer(srv.base_url, tmp_path / "b", max_retries=1).write("pause", 8, cfg.timing, "zh")
    assert len(srv.requests) == 2 and "Mandarin" in srv.requests[0]["body"]["messages"][0]["content"]
    assert "not written in Mandarin Chinese" in srv.requests[1]["body"]["messages"][-1]["content"]


def test_dead_or_slow_endpoint_fails_bounded(tmp_path: Path, key_env: None) -> None:
    cfg = RunConfig()
    # Two tries of 0.3 s took 5.7 s in all at load 9 (3.0 s was the bound: the first write's imports
    # count too, and grow with load); a timeout not honoured waits out the 60 s stall instead (the
    # handler threads are daemons: leaving does not wait for them).
    with ScriptedServer(["timeout"] * 10, stall_s=60.0) as srv:
        t0 = time.monotonic()
        with pytest.raises(LLMCallError, match="max_http_retries 1"):
            _writer(srv.base_url, tmp_path, timeout_s=0.3, max_http_retries=1).write("turn_taking", 5, cfg.timing)
        assert time.monotonic() - t0 < 40.0 and len(srv.requests) == 2
    with pytest.raises(LLMCallError, match="URLError"):
        _writer(srv.base_url, tmp_path, max_http_retries=0).write("turn_taking", 6, cfg.timing)   # closed port


def test_server_without_structured_output_falls_back_to_parsing(tmp_path: Path, key_env: None) -> None:
    cfg = RunConfig()
    with ScriptedServer(refuses_response_format=True) as srv:
        script, _ = _writer(srv.base_url, tmp_path).write("interruption_repair", 9, cfg.timing)
    assert [("response_format" in r["body"]) for r in srv.requests] == [True, False]
    assert script.turns[2].continuation is not None


def test_missing_key_env_fails_without_calling(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    with ScriptedServer() as srv:
        with pytest.raises(LLMCallError, match=f"{KEY_ENV} is not set"):
            _writer(srv.base_url, tmp_path).write("turn_taking", 5, RunConfig().timing)
    assert srv.requests == []


# ------------------------------------------------------------------------------------------ the gate

def test_permits_bound_lease_and_reclaim() -> None:
    from jobs.llm_gate import Permits
    p = Permits(limit=2, lease_s=5.0)
    a, b = p.take(0.0), p.take(0.1)
    assert a is not None and b is not None and p.take(0.2) is None   # two held: the third waits
    p.give_back(a)
    c = p.take(0.3)
    assert c is not None and p.take(0.4) is None and (p.peak, p.reclaimed) == (2, 0)
    assert p.take(5.2) is not None and p.reclaimed == 1   # b's holder died: its lease ran out at 5.1
    p.give_back(b)   # given back after it was reclaimed: changes nothing
    assert len(p.held) == 2 and p.take(5.25) is None


def test_gate_actor_lets_waiters_in_as_permits_come_back() -> None:
    import asyncio
    from jobs.llm_gate import GateActor

    async def holders() -> tuple[list[str], dict[str, int]]:
        gate, log = GateActor(limit=1, lease_s=30.0), []

        async def hold(name: str) -> None:
            token = await gate.acquire()
            log.append(f"in {name}")
            await asyncio.sleep(0.02)
            log.append(f"out {name}")
            await gate.release(token)
        await asyncio.gather(*(hold(n) for n in "abc"))
        return log, await gate.figures()
    log, figures = asyncio.run(holders())
    assert log == ["in a", "out a", "in b", "out b", "in c", "out c"]   # one at a time, none lost
    assert figures == {"limit": 1, "peak": 1, "reclaimed": 0}


# ------------------------------------------------------------------------------------------ a shard's threads

def test_a_shard_writes_its_scripts_concurrently_with_the_same_bytes(tmp_path: Path, key_env: None,
                                                                    tone_tts: Any) -> None:
    """A shard task's LLM scripts are in flight together, at most `max_concurrency` at once, and its
    rows are the bytes of a one-at-a-time run (each run with its own cache, so both really call)."""
    import pyarrow.parquet as pq
    from jobs.shards import ShardPlan, run_shard, shard_paths

    def shard(bound: int, out: Path, srv: ScriptedServer) -> bytes:
        cfg = RunConfig.model_validate({"num": 5, "shard_size": 5, "seed": 11, "voices": FAST_VOICES.model_dump(),
                                        "scenarios": {"turn_taking": 1.0, "backchannel": 1.0, "pause": 1.0},
                                        "script_source": {**_source(srv.base_url).model_dump(mode="json"),
                                                          "max_concurrency": bound}})
        s = run_shard(cfg, ShardPlan(0, 0, 5), out, tts=tone_tts)
        assert (s.rows, s.failed, s.llm["calls"], s.llm["cache_hits"]) == (5, 0, 5, 0), s.failures
        return (out / shard_paths(ShardPlan(0, 0, 5))["rows"]).read_bytes()

    with ScriptedServer(delay_s=0.1) as srv:
        together = shard(3, tmp_path / "a", srv)
        assert srv.peak_in_flight == 3   # three at once: more than one, never more than the bound
        srv.peak_in_flight = 0
        alone = shard(1, tmp_path / "b", srv)
        assert srv.peak_in_flight == 1 and len(srv.requests) == 10
    assert together == alone and len(pq.read_table(tmp_path / "a" / "shards").to_pylist()) == 5


# ------------------------------------------------------------------------------------------ end to end

def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jobs.cli", *args], check=False, cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=600)


def _shard_shas(out: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted((out / "shards").glob("*.parquet"))}


@pytest.fixture(scope="module")
def llm_ray() -> Iterator[str]:
    """One local Ray that both `generate` runs of the end-to-end test attach to (`--address`), as a
    cluster would run them: starting an embedded Ray is most of the cost of an 8-row run. Its
    workers see the key in their environment, as a cluster's workers would (never in the config)."""
    import ray
    assert not ray.is_initialized()
    had = os.environ.get(KEY_ENV)
    os.environ[KEY_ENV] = SECRET   # the raylet, and so every worker, inherits the environment from here
    try:
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
                 object_store_memory=200 * 1024 * 1024)
        try:
            yield ray.get_runtime_context().gcs_address
        finally:
            ray.shutdown()
    finally:
        if had is None:
            os.environ.pop(KEY_ENV, None)
        else:
            os.environ[KEY_ENV] = had


def _llm_figures(stderr: str) -> tuple[int, int, int]:
    """(calls, failed calls, cache hits) of the last progress line of a `generate` run."""
    last = [ln for ln in stderr.splitlines() if ln.startswith("progress ")][-1]
    m = re.search(r"llm (\d+) calls \([0-9.]+/s\), (\d+) failed, (\d+) cache hits$", last)
    assert m, last
    return int(m[1]), int(m[2]), int(m[3])


def test_generate_and_validate_end_to_end(tmp_path: Path, llm_ray: str) -> None:
    out = tmp_path / "L"
    # two shard tasks run at once on the 2 CPUs, each writing 2 scripts at once (its threads follow the
    # bound); each answer takes 50 ms, so without the job-wide gate up to 4 requests overlap:
    # max_concurrency 2 must keep the server at two in flight
    with ScriptedServer(["429", "malformed"], delay_s=0.05) as srv:
        cfg_data = {"num": 8, "shard_size": 4, "seed": 3, "scenarios": {s: 1.0 for s in FAMILIES},
                    "voices": FAST_VOICES.model_dump(mode="json"),
                    "script_source": {"kind": "llm", "base_url": srv.base_url, "model": "scripted-test-model",
                                      "api_key_env": KEY_ENV, "timeout_s": 5.0, "backoff_s": 0.01, "max_retries": 1,
                                      "max_concurrency": 2}}
        from generators.registry import trajectory_seed
        fail_seed = trajectory_seed(3, 5) % 2**31   # trajectory 5 gets malformed JSON every time
        srv.fail_seeds = {fail_seed}
        (tmp_path / "llm.yaml").write_text(yaml.safe_dump(cfg_data))
        unbounded = {**cfg_data, "script_source": {k: v for k, v in cfg_data["script_source"].items()
                                                   if k != "max_concurrency"}}
        (tmp_path / "llm-unbounded.yaml").write_text(yaml.safe_dump(unbounded))   # the rerun's: no gate actor
        env = {**os.environ, KEY_ENV: SECRET}
        gen = _cli("generate", "--config", str(tmp_path / "llm.yaml"), "--out", str(out), "--address", llm_ray,
                   "--progress-interval", "0", env=env)
        assert gen.returncode in (0, 3), gen.stderr[-3000:]
        first_calls = len(srv.requests)
        assert srv.peak_in_flight == 2
        # every request counted once, the 429 the one failed call; no cache yet (each attempt's prompt differs)
        assert _llm_figures(gen.stderr) == (first_calls, 1, 0), gen.stderr[-2000:]
        shas = _shard_shas(out)

        # validate reads a copy of the run (the rerun below removes the shards) beside the checks and the rerun
        shutil.copytree(out, tmp_path / "V")
        logs = tmp_path / "validate.out", tmp_path / "validate.err"   # files, not pipes: nobody reads them meanwhile
        with open(logs[0], "w") as vout, open(logs[1], "w") as verr:
            validate = subprocess.Popen([sys.executable, "-m", "jobs.cli", "validate", str(tmp_path / "V")], cwd=REPO,
                                        env=env, stdout=vout, stderr=verr)
        try:
            _check_run_and_rerun(tmp_path, out, srv, env, first_calls, shas, llm_ray)
            validate.wait(timeout=600)
        finally:
            if validate.poll() is None:
                validate.kill()
                validate.wait()
        assert validate.returncode == 0, logs[0].read_text()[-3000:] + logs[1].read_text()[-3000:]


def _check_run_and_rerun(tmp_path: Path, out: Path, srv: ScriptedServer, env: dict[str, str], first_calls: int,
                         shas: dict[str, str], address: str) -> None:
    """The first run's rows, failed record and provenance; then a rerun from the cache."""
    import pyarrow.parquet as pq

    rows = pq.read_table(out / "shards").to_pylist()
    failed = pq.read_table(out / "failed").to_pylist()
    assert len(rows) == 7 and [f["index"] for f in failed] == [5]
    assert "no valid script after 2 attempt(s)" in failed[0]["error"] and "half a reply" in failed[0]["error"]
    for r in rows:
        src = json.loads(r["meta"])["script_source"]
        assert src["model"] == "scripted-test-model" and src["calls"]
        assert all(len(c["prompt_sha256"]) == 64 and c["response"] for c in src["calls"])
    from generators.registry import scenario_for
    planned = [scenario_for(j, 3, {f: 1.0 for f in FAMILIES}) for j in range(8)]
    assert [r["scenario"] for r in rows] == planned[:5] + planned[6:] and failed[0]["scenario"] == planned[5]
    assert len(set(planned)) >= 6
    assert all(r["auth"] == f"Bearer {SECRET}" for r in srv.requests)
    for p in out.rglob("*"):   # the key is nowhere in the output folder (config, manifest, rows, cache)
        assert not p.is_file() or SECRET.encode() not in p.read_bytes(), p

    # a rerun from the cache: every shard redone, no call, identical bytes; without max_concurrency, which
    # decides no byte, so the same run resumes (the config hash leaves it out)
    shutil.rmtree(out / "shards")
    shutil.rmtree(out / "summaries")
    again = _cli("generate", "--config", str(tmp_path / "llm-unbounded.yaml"), "--out", str(out), "--address", address,
                 "--progress-interval", "0", env=env)
    assert again.returncode in (0, 3), again.stderr[-3000:]
    assert _llm_figures(again.stderr) == (0, 0, first_calls - 1)   # every answered call, read back from the cache
    redone = pq.read_table(out / "failed").to_pylist()
    assert [f["index"] for f in redone] == [5], [f["error"][:300] for f in redone]
    assert srv.requests[first_calls:] == []   # every response, the failed trajectory's too, was cached
    assert _shard_shas(out) == shas
