"""The numbers DESIGN §2 and §5 state, each defined once.

Composition, unit slicing, the TTS backends, the config checks, the script models and `validate`
all read these names from here, so a rule cannot be generated to one value and checked against
another (issue #28: `SILENCE_DBFS` was -50 in one module and -45 in another, which were two
different thresholds under one name). tests/test_contract.py refuses a re-definition of any of
these names, or of the interval literals below, outside this module.

The 25 Hz speech token rate lives beside the rest of the protocol (schemas/protocol.py
`SPEECH_TOKENS_PER_SECOND`); the rule 8 "half audible" fraction beside the cut it measures
(schemas/timeline.py `HEARD_FRACTION`).
"""
from __future__ import annotations

# ----------------------------------------------------------------------------- the unit clock (§2, §3)

# The default unit length u in seconds: unit k is the window [k*u, (k+1)*u). A run may choose another
# (schemas/config.RunConfig.unit_s); this is what a run, a script or a trainer gets when it says none.
DEFAULT_UNIT_S = 1.0
# The default sample rate of both audio columns (§3 "16 kHz default").
DEFAULT_SAMPLE_RATE = 16_000

# ----------------------------------------------------------------------------- rule 2: end of turn

# The least silence (s) the model must hear after the user stops before it can know the turn ended:
# a drawn eot_s below this would let a reply start on a breath pause. Every eot_s draw, config
# range and script field is at least this, and `validate` refuses a row whose turn used less.
MIN_EOT_S = 0.2

# ----------------------------------------------------------------------------- rule 3: interruptions

# How much overlap (s) the model hears before it acts on a cut-in: under 0.3 s a backchannel could
# not be told from an interruption; over 0.8 s the assistant talks on over a user who plainly took
# the floor. The config draw, the script field and `validate` all use this closed interval.
DETECT_MIN_S = 0.3
DETECT_MAX_S = 0.8
# The fade-out (s) of the assistant audio after an interruption cut: long enough not to click
# (>= 20 ms), short enough to sit inside the reaction window's start (<= 50 ms).
FADE_MIN_S = 0.02
FADE_MAX_S = 0.05

# ----------------------------------------------------------------------------- levels (§5)

# §5: where a unit's decision is `listen`, the assistant channel is silent: its peak over the window
# it plays in (after the fade) stays below this. Also the level `validate` calls "active" for `speak`.
ASSISTANT_SILENCE_DBFS = -50.0
# A synthesised sample at or above this level counts as speech: every TTS backend trims leading and
# trailing audio below it and ends words at it, and the acoustics find a clip's speech span with it.
# It sits 5 dB above ASSISTANT_SILENCE_DBFS so a trimmed clip's quietest kept sample is still
# "active" to the §5 check, while room tone and dither below it never start a word.
SPEECH_FLOOR_DBFS = -45.0
# The same floor as a linear amplitude (full scale 1.0).
SPEECH_FLOOR_AMP = 10 ** (SPEECH_FLOOR_DBFS / 20)

# §5: a noise component's SNR, re-estimated from the rendered microphone channel, matches the SNR
# recorded for its draw within this many dB (the estimate's own error on stationary noise is far
# smaller; a wrong gain, a wrong mask or a double-applied level is not).
SNR_TOLERANCE_DB = 0.5

# ----------------------------------------------------------------------------- consumers' rates (§7)

# NeMo's duplex S2S recipe uses `target_audio` at the rate it is stored and feeds it to its audio codec,
# whose rate its example config sets (examples/speechlm2/conf/s2s_duplex.yaml: 22,050 Hz); the
# nemo-s2s export resamples the assistant channel to this unless told another codec's rate.
NEMO_S2S_TARGET_RATE = 22_050

# Sample rates the pipeline renders and `duplexsynth validate` passes (measured at 16, 22.05, 24, 32,
# 44.1 and 48 kHz; espeak's native 22050 Hz is resampled by soxr, as noise files and RIRs are).
# Nothing below 16 kHz: the speech tokenizer and the trainer's audio encoder hear 16 kHz audio, and
# at 8 kHz the 4 kHz high shelf of other-directed speech degenerates to no filter at all.
SUPPORTED_SAMPLE_RATES: tuple[int, ...] = (16_000, 22_050, 24_000, 32_000, 44_100, 48_000)
# The shortest unit the generator really supports. A unit that is "speak" must hold audible
# assistant audio (DESIGN §5), so a unit must be longer than the longest silence inside an assistant
# turn, or a window can fall wholly inside one. Measured by resynthesising every assistant text of
# several runs with each assistant voice at its slowest drawn rate: espeak pauses up to 0.45 s at a
# sentence end ("nice! That's"), so 0.48 s (`validate` already fails at 0.2-0.28 s); the
# `conversation` family voices sentence and comma breaks as paragraph breaks (long_break_prob,
# phrase_break_prob) of up to 0.79 s, so 0.84 s there (the natural preset fails at 0.6 s).
MIN_UNIT_S = 0.48
MAX_UNIT_S = 10.0
