"""`duplexsynth export-checkpoint CKPT --out DIR`: a trained checkpoint as plain safetensors.

A DCP checkpoint is sharded and needs our code to read; this consolidates one on the CPU (the model
is rebuilt from the config and protocol stored beside it, then loaded) into a folder that
`transformers.AutoModelForCausalLM.from_pretrained(DIR)` loads as the LLM (Qwen3: config.json +
model.safetensors, the padded vocabulary as trained), plus one safetensors file per other component,
named by COMPONENTS (file -> DuplexModel attribute; keys are that module's own state_dict names, so
`DuplexModel.<attr>.load_state_dict(load_file(file))` restores it). The map, recipe, step and
protocol ids are in duplexsynth_components.json; the run's tokenizer (tokenizer.json beside its
protocol.json) is copied when the data folder still has it. Written to DIR.tmp, then renamed.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from schemas.errors import UsageError

# safetensors file -> DuplexModel attribute (absent components are skipped)
COMPONENTS: dict[str, str] = {
    "audio_encoder.safetensors": "audio",            # transformers WhisperEncoder
    "audio_projector.safetensors": "audio_proj",     # model/modeling.Projector (fc1, fc2)
    "vision_encoder.safetensors": "vision",          # transformers SiglipVisionModel (Omni)
    "vision_projector.safetensors": "vision_proj",   # model/modeling.Projector (Omni)
    "speech_decoder.safetensors": "speech_decoder",  # model/speech_decoder.SpeechDecoder (recipe venus)
}
MANIFEST = "duplexsynth_components.json"


class ExportCheckpointError(UsageError, ValueError):
    """A checkpoint that cannot be exported, or an output folder that cannot be written."""


def _resolve(ckpt: Path) -> Path:
    from model.train import find_resume

    if (ckpt / "trainer_state.json").is_file():
        return ckpt
    if ckpt.is_dir():
        found = find_resume(ckpt, "auto")
        if found is not None:
            return found
    raise ExportCheckpointError(f"{ckpt} is neither a checkpoint (OUT/checkpoints/step-N) nor a run folder with one")


def export_checkpoint(ckpt: str | Path, out: str | Path) -> dict[str, Any]:
    """Write the export; returns the manifest."""
    import torch
    from safetensors.torch import save_file

    from model.eval_decisions import load_model

    ckpt, out = _resolve(Path(ckpt)), Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ExportCheckpointError(f"--out {out} exists and is not empty")
    model, vocab, meta = load_model(ckpt, torch.device("cpu"))
    tmp = out.with_name(out.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    try:
        model.llm.save_pretrained(tmp, safe_serialization=True)
        files = {}
        for name, attr in COMPONENTS.items():
            mod = getattr(model, attr, None)
            if mod is None:
                continue
            save_file({k: v.detach().contiguous() for k, v in mod.state_dict().items()}, str(tmp / name),
                      metadata={"format": "pt", "duplexsynth_module": attr})
            files[name] = attr
        shutil.copyfile(ckpt / "protocol.json", tmp / "protocol.json")
        shutil.copyfile(ckpt / "config.yaml", tmp / "duplexsynth_config.yaml")
        tokenizer = _copy_tokenizer(meta["state"], tmp)
        spec = meta["spec"]
        manifest = {"format": "duplexsynth-export-v1", "checkpoint": str(ckpt), "step": meta["state"]["step"],
                    "recipe": spec.model.recipe, "llm": {"files": ["config.json", "model.safetensors"],
                                                         "vocab_rows": model.llm.get_input_embeddings().num_embeddings,
                                                         "protocol_vocab_rows": model.vocab_size},
                    "components": files, "tokenizer": tokenizer,
                    "speech_offset": vocab.speech_offset, "protocol_ids": vocab.ids}
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
        if out.exists():
            out.rmdir()
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return manifest


def _copy_tokenizer(state: dict[str, Any], tmp: Path) -> str | None:
    """The run's extended tokenizer.json (from the data folder it trained on), if it is still there."""
    from model.dataset import DataError, read_split_info, split_file

    data = Path(state.get("data", ""))
    try:   # inside the export folder the split belongs to (split.json says '../tokenizer/protocol.json')
        src = split_file(data, read_split_info(data), "tokenizer", root=data.parent).parent / "tokenizer.json"
    except (OSError, DataError):
        return None
    if not src.is_file():
        return None
    shutil.copyfile(src, tmp / "tokenizer.json")
    (tmp / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "PreTrainedTokenizerFast"}) + "\n")
    return "tokenizer.json"


def run(ckpt: str, out: str) -> int:
    import sys

    try:
        m = export_checkpoint(ckpt, out)
    except (UsageError, ValueError, OSError) as err:
        print(f"export-checkpoint failed: {str(err).splitlines()[0]}", file=sys.stderr)
        return 2
    print(f"exported step {m['step']} ({m['recipe']}) to {out}: config.json, model.safetensors, "
          + ", ".join(m["components"]) + (", tokenizer.json" if m["tokenizer"] else ""))
    return 0
