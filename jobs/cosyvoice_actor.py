"""CosyVoice 2 in long-lived Ray actors: one model load per actor, many utterances per call.

CosyVoice's pins (and its import-time dependencies: matcha, diffusers, lightning, whisper, a
pure-Python torchaudio) live in a venv of their own that ``scripts/setup.sh --cosyvoice`` makes
(``.venv-cosyvoice``, on top of our torch); the actor runs there through ``runtime_env``'s
``py_executable``, so the driver never imports cosyvoice. Requests and results are plain dicts of
str / float / int / numpy arrays, the only things both environments unpickle alike.

The assistant's S3 tokens are the ones Qwen2LM.inference generated for the audio (the flow and
HiFT then turn exactly those tokens into the waveform), so they are native: at speed 1.0 the
24 kHz audio has 960 samples per token (25 tokens/s).

A run shares one set of actors per model folder (``shared_client``): they are named after the
folder in the ``duplexsynth`` namespace, created by the first caller (the generate driver, which
then owns them for the run) and found by name by every worker and by later jobs on the cluster
(validate re-rendering the rows), so the model is loaded once, not once per worker.

A crashed actor (killed, out of memory) is restarted by Ray, which reloads the model and retries
the call (``max_restarts`` / ``max_task_retries``): the same seeds give the same audio.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import random
import uuid
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["REQUIRED_FILES", "TOKENIZER_FILE", "CosyVoiceClient", "CosyVoiceRunner", "actor_name", "check_model_dir", "default_python",
           "gpu_share", "instruct_refusal", "shared_client"]
RECENT = 64   # results an actor keeps (about 64 x 10 s of 24 kHz float32: 60 MB)
NAMESPACE = "duplexsynth"   # where the named actors live: any job on the cluster finds them

TOKENIZER_FILE = "speech_tokenizer_v2.onnx"   # the model's S3 tokenizer (its LLM speaks in its codebook)
REQUIRED_FILES = ("cosyvoice2.yaml", "llm.pt", "flow.pt", "hift.pt", "campplus.onnx", TOKENIZER_FILE,
                  "CosyVoice-BlankEN")
PROMPT_RATE = 16000  # CosyVoice's front end hears the prompt at 16 kHz


def request_key(req: dict[str, Any]) -> str:
    """What determines a request's result: every field, the prompt recording by its sha256."""
    plain = {k: v for k, v in req.items() if k != "prompt_wav"}
    plain["prompt_wav"] = hashlib.sha256(np.ascontiguousarray(req["prompt_wav"], dtype=np.float32).tobytes()).hexdigest()
    return json.dumps(plain, sort_keys=True, default=str)


def check_model_dir(path: str | Path) -> Path:
    """The model folder, or a one-line ValueError naming what is missing (it is never downloaded)."""
    p = Path(path)
    if not p.is_dir():
        raise ValueError(f"cosyvoice model folder {str(p)!r} does not exist (it is never downloaded)")
    missing = [f for f in REQUIRED_FILES if not (p / f).exists()]
    if missing:
        raise ValueError(f"cosyvoice model folder {str(p)!r} lacks {', '.join(missing)}")
    check_yaml_tags(p / "cosyvoice2.yaml")
    return p


# cosyvoice2.yaml is read with hyperpyyaml, whose !new:/!name:/!apply: tags import and call any
# Python callable: `!apply:os.system [...]` runs a shell command. Before it is read, every tag must
# be plain YAML, a hyperpyyaml reference, or build from the model's own packages; !apply: (a call
# at load time) only the seeding calls the released yaml makes. The model folder is still trusted
# code (its weights are torch.load-ed, its packages run; README "CosyVoice"): this refuses a yaml
# that names a command, it does not make a hostile model folder safe.
YAML_REF_TAGS = ("!ref", "!copy", "!tuple", "!placeholder")
YAML_MODULES = ("cosyvoice", "matcha", "omegaconf")   # all the released CosyVoice 2 yaml builds from
# a dotted name is resolved attribute by attribute: cosyvoice.cli.frontend.os.system is os.system
YAML_NEVER = frozenset({"os", "sys", "subprocess", "builtins", "shutil", "importlib", "pickle", "ctypes", "runpy",
                        "eval", "exec", "compile", "open", "__import__", "system", "popen", "torch", "pty", "socket"})
YAML_APPLY = ("random.seed", "numpy.random.seed", "torch.manual_seed", "torch.cuda.manual_seed_all")


def check_yaml_tags(path: Path) -> None:
    """Refuse (one-line ValueError naming the file, line and tag) a hyperpyyaml tag that could run code."""
    import yaml

    try:
        root = yaml.compose(path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
        raise ValueError(f"{path}: not readable YAML ({str(err).splitlines()[0]})") from None
    todo = [root] if root is not None else []
    while todo:
        node = todo.pop()
        tag = node.tag or ""
        kind, _, target = tag.partition(":") if tag.startswith("!") else ("", "", "")
        ok = (tag.startswith("tag:yaml.org,2002:") or tag in YAML_REF_TAGS
              or (kind in ("!new", "!name") and target.split(".")[0] in YAML_MODULES
                  and not YAML_NEVER.intersection(target.split(".")))
              or (kind == "!apply" and target in YAML_APPLY))
        if not ok:
            raise ValueError(f"{path}: line {node.start_mark.line + 1}: tag {tag!r} is refused: a model yaml may "
                             f"build only from {', '.join(YAML_MODULES)} (and call only the seeding functions), "
                             "never run other code")
        if isinstance(node, yaml.MappingNode):
            todo.extend(x for pair in node.value for x in pair)
        elif isinstance(node, yaml.SequenceNode):
            todo.extend(node.value)


INSTRUCT_TOKENIZER = "get_qwen_tokenizer"   # CosyVoice 2's text tokenizer: its specials hold <|endofprompt|>


def instruct_refusal(path: str | Path) -> str | None:
    """Why the model folder cannot speak in instruct mode, or None when it can.

    CosyVoice 2's instruct mode (``frontend_instruct2``) puts the instruction before the text,
    ended by ``<|endofprompt|>``: a special token of the Qwen tokenizer its yaml names. A folder
    whose yaml builds another tokenizer (CosyVoice 1, a custom LM) would read that marker as text."""
    yaml = Path(path) / "cosyvoice2.yaml"
    try:
        text = yaml.read_text(encoding="utf-8")
    except OSError as err:
        return f"{yaml} is not readable ({type(err).__name__})"
    if INSTRUCT_TOKENIZER not in text or "Qwen2LM" not in text:
        return (f"{yaml} builds no Qwen2LM with CosyVoice 2's {INSTRUCT_TOKENIZER} (whose <|endofprompt|> "
                "ends an instruction), so this model has no instruct mode")
    return None


def gpu_share(gpus: int, actors: int) -> float:
    """The GPU each actor asks Ray for: a whole one while there are enough, else an equal share that
    fits on one GPU (Ray never splits a fraction across two): 4 actors on 1 GPU get 1/4 each and
    decode 4 lines of a batch at once; 3 on 2 GPUs get 1/2, not 2/3 (which would leave one pending)."""
    return 1.0 / -(-max(1, actors) // gpus) if gpus >= 1 else 0.0


def default_python(root: Path | None = None) -> str | None:
    """The CosyVoice venv's interpreter that setup.sh made, when it exists."""
    root = root or Path(__file__).resolve().parent.parent
    py = root / ".venv-cosyvoice" / "bin" / "python"
    return str(py) if py.exists() else None


class CosyVoiceRunner:
    """The model in one process (the actor's): the real CosyVoice 2 front end, LLM, flow and HiFT."""

    def __init__(self, model_dir: str) -> None:
        import torch
        from cosyvoice.cli.frontend import CosyVoiceFrontEnd
        from cosyvoice.cli.model import CosyVoice2Model
        from hyperpyyaml import load_hyperpyyaml

        d = check_model_dir(model_dir)
        with open(d / "cosyvoice2.yaml", encoding="utf-8") as f:
            cfg = load_hyperpyyaml(f, overrides={"qwen_pretrain_path": str(d / "CosyVoice-BlankEN")})
        self.frontend = CosyVoiceFrontEnd(cfg["get_tokenizer"], cfg["feat_extractor"], str(d / "campplus.onnx"),
                                          str(d / TOKENIZER_FILE), str(d / "spk2info.pt"),
                                          cfg["allowed_special"])
        self.sample_rate = int(cfg["sample_rate"])
        self.model = CosyVoice2Model(cfg["llm"], cfg["flow"], cfg["hift"], fp16=False)
        self.model.load(str(d / "llm.pt"), str(d / "flow.pt"), str(d / "hift.pt"))
        self.llm = cfg["llm"]
        self.llm.load_state_dict(torch.load(d / "llm.pt", map_location=self.model.device), strict=True)
        self.llm.to(self.model.device).eval()
        self.device = str(self.model.device)
        self.model_dir = str(d)
        self.instruct = instruct_refusal(d) is None
        self._recent: OrderedDict[str, dict[str, Any]] = OrderedDict()   # request key -> its result

    def _prompt_16k(self, wav: np.ndarray, rate: int) -> Any:
        import soxr
        import torch

        x = np.asarray(wav, dtype=np.float32)
        if x.ndim > 1:
            x = x.mean(axis=1)
        if rate != PROMPT_RATE:
            x = soxr.resample(x, rate, PROMPT_RATE, quality="HQ").astype(np.float32)
        return torch.from_numpy(np.ascontiguousarray(x)).unsqueeze(0)

    def synthesize_one(self, req: dict[str, Any]) -> dict[str, Any]:
        """One utterance: request keys text, prompt_text, prompt_wav, prompt_rate, seed, speed and
        optionally instruct (CosyVoice 2 instruct mode, for models that have it)."""
        import torch

        seed = int(req["seed"])
        random.seed(seed)
        np.random.seed(seed % 2**32)
        torch.manual_seed(seed)
        prompt = self._prompt_16k(req["prompt_wav"], int(req["prompt_rate"]))
        instruct = req.get("instruct")
        if instruct and not self.instruct:
            raise ValueError(f"cosyvoice: {instruct_refusal(self.model_dir)}")
        fe = self.frontend
        if instruct:
            inp = fe.frontend_instruct2(req["text"], instruct, prompt, self.sample_rate, "")  # it adds the end tag
        else:
            inp = fe.frontend_zero_shot(req["text"], req["prompt_text"], prompt, self.sample_rate, "")
        dev = self.model.device

        def n(t: Any) -> Any:
            return torch.tensor([t.shape[1]], dtype=torch.int32, device=dev)

        llm_prompt = inp.get("llm_prompt_speech_token", torch.zeros(1, 0, dtype=torch.int32))
        tokens = [int(t) for t in self.llm.inference(
            text=inp["text"].to(dev), text_len=n(inp["text"]), prompt_text=inp["prompt_text"].to(dev),
            prompt_text_len=n(inp["prompt_text"]), prompt_speech_token=llm_prompt.to(dev),
            prompt_speech_token_len=n(llm_prompt), embedding=inp["llm_embedding"].to(dev))]
        if not tokens:
            raise ValueError(f"cosyvoice generated no speech tokens for {req['text'][:80]!r}")
        uid = str(uuid.uuid4())
        self.model.hift_cache_dict[uid] = None
        try:
            with torch.inference_mode():
                wav = self.model.token2wav(token=torch.tensor([tokens], dtype=torch.int32),
                                           prompt_token=inp["flow_prompt_speech_token"],
                                           prompt_feat=inp["prompt_speech_feat"], embedding=inp["flow_embedding"],
                                           token_offset=0, uuid=uid, finalize=True, speed=float(req.get("speed", 1.0)))
        finally:
            self.model.hift_cache_dict.pop(uid, None)
        return {"audio": wav.squeeze(0).float().cpu().numpy().astype(np.float32), "sample_rate": self.sample_rate,
                "speech_tokens": np.asarray(tokens, dtype=np.int32), "speed": float(req.get("speed", 1.0))}

    def synthesize(self, requests: list[dict[str, Any]], cache: bool = True) -> list[dict[str, Any]]:
        """Several trajectories' utterances in one call (one round trip, the model stays loaded).

        A line asked again while its result is among the last RECENT (a contrastive twin speaking
        its base row's lines, a retried shard, `validate` re-rendering on the run's actors) is
        answered from memory: same request, same seed, so the same bytes the model would give.
        `cache=False` always runs the model (tests comparing batches with single calls)."""
        out = []
        for r in requests:
            key = request_key(r)
            if cache and key in self._recent:
                self._recent.move_to_end(key)
                out.append(self._recent[key])
                continue
            res = self.synthesize_one(r)
            self._recent[key] = res
            while len(self._recent) > RECENT:
                self._recent.popitem(last=False)
            out.append(res)
        return out

    def info(self) -> dict[str, Any]:
        """Process id (tests kill it), device and sample rate."""
        return {"pid": os.getpid(), "device": self.device, "sample_rate": self.sample_rate,
                "instruct": self.instruct}


class CosyVoiceClient:
    """The pipeline's callable: ``client(requests) -> results``, spread over long-lived actors.

    Picklable (it holds actor handles), so a backend holding it can be shipped to Ray workers.
    """

    def __init__(self, model_dir: str | Path, python: str | None = None, actors: int = 1,
                 num_gpus: float | None = None, max_restarts: int = 3, name: str | None = None) -> None:
        import ray

        d = check_model_dir(model_dir)
        python = python or default_python()
        root = str(Path(__file__).resolve().parent.parent)
        env: dict[str, Any] = {"env_vars": {"PYTHONPATH": root}}
        if python:
            env["py_executable"] = python
        if num_gpus is None:
            num_gpus = gpu_share(int(ray.cluster_resources().get("GPU", 0)), actors)
        opts: dict[str, Any] = dict(num_gpus=num_gpus, num_cpus=1, runtime_env=env, max_restarts=max_restarts,
                                    max_task_retries=max_restarts)
        cls = ray.remote(CosyVoiceRunner)
        self.model_dir = str(d)
        if name is None:
            self.actors = [cls.options(**opts).remote(str(d)) for _ in range(max(1, actors))]
        else:   # named: an actor that exists already (this job's or another's) is reused, not reloaded
            self.actors = [cls.options(**opts, name=f"{name}-{i}", namespace=NAMESPACE, get_if_exists=True)
                           .remote(str(d)) for i in range(max(1, actors))]

    def __call__(self, requests: list[dict[str, Any]], cache: bool = True) -> list[dict[str, Any]]:
        import ray

        if not requests:
            return []
        k = len(self.actors)
        chunks = [requests[i::k] for i in range(k)]
        refs = [a.synthesize.remote(c, cache) for a, c in zip(self.actors, chunks) if c]
        parts = ray.get(refs)
        out: list[dict[str, Any]] = [{}] * len(requests)
        for i, part in enumerate(parts):
            for j, res in enumerate(part):
                out[i + j * k] = res
        return out

    def info(self) -> list[dict[str, Any]]:
        import ray

        return ray.get([a.info.remote() for a in self.actors])


def actor_name(model_dir: str | Path) -> str:
    """The name a model folder's shared actors carry (suffixed -0, -1, ...): a hash of its resolved path."""
    return "cosyvoice-" + hashlib.sha256(str(Path(model_dir).resolve()).encode()).hexdigest()[:12]


@functools.cache
def shared_client(model_dir: str, actors: int = 1) -> CosyVoiceClient:
    """This process's client of the model folder's shared actors (Ray must be initialised: the
    generate driver and its workers are; validate attaches first). One per process and folder."""
    return CosyVoiceClient(model_dir, actors=actors, name=actor_name(model_dir))
