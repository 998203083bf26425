"""The version of the generated content, recorded in every row's meta, each shard's sidecar and the manifest.

Bump it when rows change format or content for the same config and seed: a resumed run redoes
shards another version made instead of mixing the two (jobs/shards.check_shard).
0.2.0: meta["timeline"] (schemas/timeline.py) replaces meta["acoustics"]; text banks are data, with
the truth fixes of issue #12 (relays, continuations by sentence element, the lint); zh exists.
"""

GENERATOR_VERSION = "0.2.0"
