"""The version of the generated content, recorded in every row's meta, each shard's sidecar and the manifest.

Bump it when rows change format or content for the same config and seed: a resumed run redoes
shards another version made instead of mixing the two (jobs/shards.check_shard).
0.2.0: meta["timeline"] (schemas/timeline.py) replaces meta["acoustics"]; text banks are data, with
the truth fixes of issue #12 (relays, continuations by sentence element, the lint); zh exists.
0.3.0: engines say the spoken form and words are timed through it (issue #18: audio and timings
change); every delegation family in zh; meta.voices lists overlay speakers; 两毛 in zh money.
0.4.0: a calendar booking the user calls off is deleted through the harness; slot values and the
weather service carry variants; a delegate request too long to decode beside speech is written in a
listening unit (the turn starts a unit later); espeak's "in a row"/"deja vu" words timed on their own
sounds; RHVoice words timed from its phoneme labels. Rows without those are unchanged.
0.5.0: rule 3's fade lies after the cut, in the reaction window (its audio before the cut is the
uncut audio); a word starting before the cut is voiced, one less than half audible before the cut
is not heard. Every interruption row changes (audio, words, echo, continuations); others do not.
0.5.0 also: the English banks gain new lines (issue #12 variety: acks, relays, fallbacks, retries, cancels,
timer lines, small talk, answer openers, stains), so English scripts for the same seed change;
and issue #12 defect fixes (rent within 60% of income, small talk paired by mood and tense, timers
last what their task takes, no question before an unprompted turn, zh calculator words, a gift
top pick within the budget the user said).
0.6.0: an answer states only facts its request gives (issue #12, generators/banks/facts.py): weather
exchanges are the user reading out a forecast, requests name the coupon, room price, kickoff, food budget,
device and the rest their answers use, zh discounts apply a coupon only when the user has one, restaurant
answers suggest a place instead of claiming a table; roast, paint, budget and unit-price answers always
say what was asked (`keep`); a span is never "between 7 o'clock and 7 o'clock". English and Mandarin
scripts for the same seed change.
0.6.1: a booking request says its length (the harness call carries only what the user said); English
answers gain more wordings; zh cancel acknowledgements and an installment request reworded. English and
Mandarin scripts for the same seed change.
0.7.0: 24 new English question types (two per domain, e.g. how to store X, what causes X, is this a scam,
how to fix X), each over a table whose rows carry their own prose (issue #12 variety), new small talk
and timer labels; a score is said "2 to 1", not "2 1"; a revised day names another weekday (周一 is not
revised to 下周一, nor Monday to next Monday). English scripts for the same seed change; Mandarin ones
change only where a day revision drew the same weekday.
"""

GENERATOR_VERSION = "0.7.0"
