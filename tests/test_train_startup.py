"""Start-up on 2 CPU ranks (gloo, FSDP2): meta-device init per shard and rank-0 weight loading.

One spawn of two processes checks, on every rank:
- random init: the sharded model, gathered, is bit-identical to the same seed's one-process build,
  and the parameter bytes this rank held at any start-up phase stay below the full model's;
- `llm.path` + `audio.path` (HF folders written here) and `model.init_from` (a tiny MiniCPM-o 4.5
  folder in 4.5's own key names): every rank's parameters equal the checkpoint's tensors, while on
  rank 1 every weight reader is replaced by one that fails, so only rank 0 read the files.
"""
from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest
import torch
import yaml

from model.config import CONFIG_DIR, parse_run_spec
from tests.test_minicpmo_weights import _o45_state, _Vocab, _write

WORLD = 2


def _tiny(**model: object) -> dict:
    d = yaml.safe_load((CONFIG_DIR / "tiny.yaml").read_text())
    d["model"].update(model)
    return d


def _hf_folders(root: Path) -> tuple[Path, Path]:
    """A tiny Qwen3 LLM and Whisper model saved with save_pretrained, at tiny.yaml's dims."""
    from transformers import AutoConfig, AutoModelForCausalLM, WhisperConfig, WhisperModel

    d = _tiny()["model"]
    kw = dict(d["llm"]["config"])
    torch.manual_seed(7)
    llm = AutoModelForCausalLM.from_config(AutoConfig.for_model(kw.pop("model_type"), vocab_size=384, **kw))
    llm.save_pretrained(root / "llm")
    WhisperModel(WhisperConfig(**d["audio"]["config"])).save_pretrained(root / "whisper")
    return root / "llm", root / "whisper"


def _full(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

    return get_model_state_dict(model, options=StateDictOptions(full_state_dict=True))


def _no_reads() -> None:
    """Replace every weight reader build_model could reach: any call on this rank fails."""
    import transformers

    import model.minicpmo_weights as mw

    def refuse(*_a: object, **_k: object) -> None:
        raise AssertionError(f"rank {os.environ['RANK']} read weight files")

    for cls in (transformers.AutoModelForCausalLM, transformers.WhisperModel):
        cls.from_pretrained = refuse  # type: ignore[method-assign]
    mw.load_init_from = refuse  # type: ignore[assignment]


def _worker(rank: int, port: int, root: str) -> None:
    os.environ.update(RANK=str(rank), WORLD_SIZE=str(WORLD), LOCAL_RANK=str(rank), MASTER_ADDR="127.0.0.1",
                      MASTER_PORT=str(port))
    torch.set_num_threads(1)
    import torch.distributed as dist
    from safetensors.torch import load_file

    from model.materialize import StartupBytes
    from model.minicpmo_weights import our_name
    from model.train import Env, build_model, setup_env

    env = setup_env(torch.device("cpu"))
    out: dict[str, object] = {}
    vocab = _Vocab(360)
    try:
        # 1. random init, sharded from a meta skeleton, against the one-process build of the same seed
        spec = parse_run_spec(_tiny())
        st = StartupBytes()
        model, mode = build_model(spec, vocab, env, st)
        assert mode == "fsdp"
        got = _full(model)
        ref, _ = build_model(spec, vocab, Env())              # world 1, no sharding
        want = ref.state_dict()
        full_bytes = sum(v.numel() * v.element_size() for v in want.values())
        out["random_equal"] = sorted(got) == sorted(want) and all(torch.equal(got[k], want[k]) for k in want)
        out["random_peak"], out["full_bytes"], out["phases"] = st.peak, full_bytes, st.phases
        del model, ref, got

        if rank:
            _no_reads()
        # 2. llm.path + audio.path: rank 0 reads, every rank's shards get its tensors
        llm_dir, whisper_dir = Path(root) / "llm", Path(root) / "whisper"
        d = _tiny()
        d["model"]["llm"] = {"path": str(llm_dir), "config": {"attn_implementation": "sdpa"}}
        d["model"]["audio"] = {"path": str(whisper_dir), "pool": 5}
        st = StartupBytes()
        model, _ = build_model(parse_run_spec(d), vocab, env, st)
        got = _full(model)
        ckpt = {f"llm.{k}": v for k, v in load_file(str(llm_dir / "model.safetensors")).items()}
        ckpt |= {f"audio.{k[len('encoder.'):]}": v for k, v in load_file(str(whisper_dir / "model.safetensors")).items()
                 if k.startswith("encoder.")}
        out["paths_equal"] = all(torch.equal(got[k], v) for k, v in ckpt.items())
        out["paths_keys"] = len(ckpt)
        out["paths_peak"] = st.peak
        del model, got

        # 3. init_from a MiniCPM-o 4.5 folder
        o45 = _o45_state(omni=False)
        d = _tiny()
        d["model"]["audio"]["projector"] = "minicpmo"
        d["model"]["init_from"] = {"kind": "minicpm-o-4.5", "path": str(Path(root) / "o45")}
        model, _ = build_model(parse_run_spec(d), vocab, env)
        got = _full(model)
        ok = True
        for k, v in o45.items():
            dst = our_name(k)
            if dst is None:
                continue      # tts.*, set aside
            ok &= torch.equal(got[dst][: v.shape[0]] if dst.endswith(("embed_tokens.weight", "lm_head.weight"))
                              else got[dst], v)
        out["init_from_equal"] = bool(ok)
    except AssertionError as err:
        out["error"] = str(err)
    finally:
        Path(root, f"rank{rank}.json").write_text(json.dumps(out))
        dist.destroy_process_group()


@pytest.fixture(scope="module")
def ranks(tmp_path_factory) -> list[dict]:
    import torch.multiprocessing as mp

    root = tmp_path_factory.mktemp("startup")
    _hf_folders(root)
    _write(root / "o45", _o45_state(omni=False))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(_worker, args=(port, str(root)), nprocs=WORLD, join=True)
    return [json.loads((root / f"rank{r}.json").read_text()) for r in range(WORLD)]


def test_meta_init_shards_equal_the_one_process_init_and_no_rank_holds_the_model(ranks):
    for r, res in enumerate(ranks):
        assert "error" not in res, res
        assert res["random_equal"], r
        print(f"rank {r}: start-up parameter bytes {res['phases']}, full model {res['full_bytes']}")
        # the most this rank held: its shards plus one full parameter, not the model
        assert res["random_peak"] < 0.75 * res["full_bytes"], res


def test_rank0_loading_gives_every_rank_the_checkpoint_and_only_rank0_reads(ranks):
    for r, res in enumerate(ranks):
        assert "error" not in res, res           # rank 1 would have failed had it called a reader
        assert res["paths_equal"] and res["paths_keys"] > 30 and res["init_from_equal"], (r, res)
    # rank 0 held the full source model (read from the files); rank 1 only its shards
    assert ranks[0]["paths_peak"] >= ranks[0]["full_bytes"] > 1.3 * ranks[1]["paths_peak"], ranks
