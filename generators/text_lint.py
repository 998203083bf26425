"""A lint for generated text: the template artefacts a model would copy (issue #12, DESIGN §6).

Each check has an id and a message that quotes the offending words. `lint_script` runs them over
everything a script will say or read (turns, continuation sentences, cut-ins, overlays, delegate
requests, backend results), and `pipeline/validate` runs it on every row (rule `text_lint`), so a
bank, a planner or an LLM-written script that produces one is caught whatever wrote it. Each
language brings its own checks (`LINTS`: English and Mandarin); one without them is not linted.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from generators.banks.engine import ONE_PLURAL, PLURAL_POSSESSIVE
from schemas.language import CHINESE, language
from schemas.script import Script
from schemas.vocab import EventKind, Role

# Words a person may say twice on purpose ("yeah yeah", "no no, the other one").
_REPEATABLE = frozenset("yeah yes no right okay ok so very really well oh ah ha bye now go there ding".split())
# Pure hesitation sounds: the only fillers that can follow an article naturally ("a, uh, sewing machine").
HESITATION_SOUNDS = frozenset("uh um er erm hmm mm".split())
ARTICLES = frozenset("a an the".split())

_DOUBLED_ARTICLE = re.compile(r"\b(?:the|an?) (?:the|an?)\b", re.IGNORECASE)
_REPEATED_WORD = re.compile(r"\b(\w+) \1\b(?!['-])", re.IGNORECASE)   # "tells you you're", "five five-a-side"
_SAME_OPERANDS = re.compile(r"\b([A-Z][\w']*(?: [A-Z][\w']*)*) (?:or|versus|vs\.?|and) \1\b")
_ZERO_AMOUNT = re.compile(r"\b0 (?:dollars|euros|pounds)\b")
# a plural dish name used as a modifier: "A noodle boxes prep day" (a prep day for noodle boxes)
_PLURAL_MODIFIER = re.compile(r"\b[Aa]n? ((?:[a-z]+ )?[a-z]+[^su\W']s) (?:meal prep|prep|cooking|baking|batch cooking) (?:day|session)\b")
# a span whose two ends are said the same: "between 7 o'clock and 7 o'clock" (07:00 to 19:00 without a part of the day)
_SAME_SPAN = re.compile(r"\b(?:[Bb]etween|[Ff]rom) ((?:\d{1,2}(?::\d\d)?|[a-z]+(?:-[a-z]+)?)(?: o'clock)?) (?:and|to|until) \1\b"
                        r"(?! (?:in the|at night))")
_MY_PHRASE = re.compile(r"\bmy ((?:\w+ )?\w+)")
# a share of what the user earns above the whole of it ("Your rent is 111 percent of your income")
_SHARE_OF_INCOME = re.compile(r"\b(\d+) percent of (?:your income|income|your [\d,]+\b|what you bring home)")
# what the assistant says the user has already ("Having 600 dollars already"): a fact only the user can give
_USER_HAS = re.compile(r"(?:\b(?:[Hh]aving|[Ss]ince you have|[Yy]ou've already got|[Ww]ith|[Cc]ounting the|[Aa]fter the) "
                       r"([\d,]+) dollars (?:already|saved|put aside|you already have))|"
                       r"(?:\b(?:Already saved|Saved so far): ([\d,]+))")
# a plural subject with a singular verb: "the pop ups on an iPhone is", "the crashing apps is", "dumplings is"
# (the subject starts a clause; "tightness in the hamstrings is" has its noun before the preposition)
_NOT_PLURAL = frozenset({
    "news", "series", "species", "lens", "bus", "gas", "glass", "class", "plus", "bonus", "status",
    "process", "address", "virus", "always", "this", "its", "his", "is", "was", "has", "does", "yes", "us",
    "thus", "lotus", "tennis", "chess", "maths", "physics", "economics", "athletics", "gymnastics",
    "politics", "measles", "diabetes", "lettuce", "hummus", "couscous", "asparagus", "octopus", "citrus",
    "cactus", "blues",
})
_PLURAL_IS = re.compile(r"(?:^|(?<=[.!?,:] ))(?:(?:[Tt]he|[Yy]our|[Tt]hese|[Tt]hose|[Mm]y|[Oo]ur|[Aa]ll) )?(?:[a-z-]+ ){0,2}?([a-z]+s)"
                        r"(?: (?:on|in|with|for|from|at|of) (?:an?|the|your|my) [\w-]+(?: [\w-]+)?)? "
                        r"(?:is|was|has|isn't|wasn't|doesn't)\b")
# an amount takes a singular verb ("twenty weeks is plenty", "forty five minutes at a sports hall is")
_AMOUNT = re.compile(r"\d|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|\w+ty|hundred|few|several|"
                     r"couple)\b|\b(?:it|you|we|they|he|she|i)\b", re.IGNORECASE)   # or a clause of its own: "the warmest it gets is"
# a preposition phrase spliced in as a subject: "On video calls for 3 people is easy to estimate."
# ("On Thursday the shop is", "at 65 kilos your need is" have a subject of their own; "From May to June is" is idiom)
_PREP_SUBJECT = re.compile(r"(?:^|(?<=[.!?] )|(?<=^Okay, )|(?<=^Right, )|(?<=^Sure, )|(?<=[.!?] Okay, )|(?<=[.!?] Right, )|(?<=[.!?] Sure, ))"
                           r"((?:[Oo]n|[Ii]n|[Aa]t|[Ff]or|[Ww]ith|[Bb]y|[Uu]nder|[Oo]ver) "
                           r"((?:[\w-]+ ){0,5}?)(?:is|are|needs|uses|takes)\b)")
_SUBJECT_WORDS = frozenset({
    "the", "a", "an", "your", "my", "our", "their", "his", "her", "its", "this", "that", "these", "those",
    "it", "there", "we", "you", "they", "he", "she", "i", "everything", "everyone", "something", "nothing",
})
# a template's marks left in the text: an alternation or a slot that was never resolved
_TEMPLATE_MARK = re.compile(r"[^\s\[\]{}|]*[\[\]{}|][^\s]*")


@dataclass(frozen=True)
class Hit:
    check: str
    words: str

    def __str__(self) -> str:
        return f"{self.check}: {self.words!r}"


def _found(check: str, pattern: re.Pattern[str], text: str) -> Iterator[Hit]:
    for m in pattern.finditer(text):
        yield Hit(check, m.group(0))


def lint_utterance(text: str) -> list[Hit]:
    """Artefacts inside one utterance: doubled articles, repeated words, "X or X", "between 7 and 7", "1 hours",
    "0 dollars" said as an amount, "Rovers's" (a plural name's possessive is "Rovers'"), and a
    template's "[a|b]" or "{slot}" left unresolved (a slot value's variants said where they are not expanded)."""
    hits = [*_found("doubled_article", _DOUBLED_ARTICLE, text),
            *_found("same_operands", _SAME_OPERANDS, text),
            *_found("number_agreement", ONE_PLURAL, text),
            *_found("zero_amount", _ZERO_AMOUNT, text),
            *_found("same_span", _SAME_SPAN, text),
            *_found("plural_modifier", _PLURAL_MODIFIER, text),
            *_found("plural_possessive", PLURAL_POSSESSIVE, text),
            *_found("template_mark", _TEMPLATE_MARK, text)]
    hits += [Hit("impossible_share", m.group(0)) for m in _SHARE_OF_INCOME.finditer(text) if int(m.group(1)) > 100]
    hits += [Hit("number_agreement", m.group(0)) for m in _PLURAL_IS.finditer(text)
             if m.group(1).lower() not in _NOT_PLURAL and not m.group(1).endswith(("ss", "us", "is", "'s"))
             and not _AMOUNT.search(m.group(0))]
    hits += [Hit("preposition_subject", m.group(1)) for m in _PREP_SUBJECT.finditer(text)
             if not any(w.lower() in _SUBJECT_WORDS or w[:1].isupper() for w in m.group(2).split())]
    for m in _REPEATED_WORD.finditer(text):
        w = m.group(1)
        if w.lower() not in _REPEATABLE and w.lower() not in ARTICLES and not (len(w) == 1 and w.isupper()):   # "B B King"
            hits.append(Hit("repeated_word", m.group(0)))
    return hits


# a reply that consoles a user who said something good ("it's finally the weekend" -> "tomorrow's a new day")
_GOOD_NEWS = re.compile(r"\b(?:really happy|so excited|in a great mood|really cheerful|finally the weekend|a day off|"
                        r"finished a big project|got engaged|had a baby)\b", re.IGNORECASE)
_CONSOLING = re.compile(r"\b(?:sorry to hear|hang in there|tomorrow's a new day|days like that|the rest of (?:today|the day)|"
                        r"is kinder|sounds gloomy|is rough)\b", re.IGNORECASE)
_GOOD_NEWS_ZH = re.compile("开心|激动|高兴|放假|订婚|生了个宝宝")
_CONSOLING_ZH = re.compile("辛苦|别硬撑|^唉|^哎呀|受不了|能理解")


def _numbers(text: str) -> set[str]:
    return set(re.findall(r"\d+", text.replace(",", "")))


def _mood(user_text: str, assistant_text: str, good: re.Pattern[str], consoling: re.Pattern[str]) -> list[Hit]:
    if good.search(user_text) and (m := consoling.search(assistant_text)):
        return [Hit("mood_mismatch", m.group(0))]
    return []


def lint_reply(user_text: str, assistant_text: str) -> list[Hit]:
    """Perspective: the assistant echoing the user's "my living room" as its own ("in my living room");
    and the assistant telling the user what they have already ("Having 600 dollars already") when the
    user never said it."""
    said = {m.group(1).lower() for m in _MY_PHRASE.finditer(user_text)}
    hits = [Hit("pronoun_perspective", m.group(0)) for m in _MY_PHRASE.finditer(assistant_text)
            if m.group(1).lower() in said]
    numbers = _numbers(user_text)
    hits += [Hit("unsaid_user_fact", m.group(0)) for m in _USER_HAS.finditer(assistant_text)
             if (m.group(1) or m.group(2)).replace(",", "") not in numbers]
    return hits + _mood(user_text, assistant_text, _GOOD_NEWS, _CONSOLING)


def lint_hesitation(word_before: str, filler: str) -> list[Hit]:
    """A filler spliced after an article must be a bare hesitation sound: "an so, uh emergency fund" is not speech."""
    if word_before.lower().strip(",") in ARTICLES and filler.lower().strip(" ,") not in HESITATION_SOUNDS:
        return [Hit("filler_splice", f"{word_before} {filler}")]
    return []


# ----------------------------------------------------------------------------- Mandarin

_HAN = "\u4e00-\u9fff"
_DOUBLED_DE = re.compile("的的(?!确)")
# 二 counting things ("二个人"): a count of two before a measure word is 两 (十二个, 第二个, 周二天气 are right)
_ER_BEFORE_MEASURE = re.compile("(?<![零一二两三四五六七八九十百千万第周期拜])二(?:个|位|杯|件|份|张|本|瓶|碗|次|天|周|条|只|双|家|间|斤|岁|种|样|台|部|辆|遍|层|口)")
_PUNCT_RUN_ZH = re.compile("[，、；：。？！]{2,}")
_LATIN_WORD = re.compile("[A-Za-z]{3,}")
_MY_ZH = re.compile(f"我(?:的|家)([{_HAN}]{{1,4}})")
# two-character words a speaker repeats on purpose ("不对不对，是周六", "好的好的")
_REPEATABLE_ZH = frozenset("不对 好的 对的 是的 没事 谢谢 不是 等等 快点 慢点 好吧 行吧 没错 可以 知道 明白 一个 一步 一点".split())   # 一个一个: one by one


def lint_utterance_zh(text: str) -> list[Hit]:
    """Mandarin artefacts inside one utterance: 的的, 二 counting things (二个人), a run of marks left by an
    empty option (好的，。), and a word of two or more characters said twice in a row (北京北京)."""
    hits = [*_found("doubled_de", _DOUBLED_DE, text),
            *_found("number_agreement", _ER_BEFORE_MEASURE, text),
            *_found("punctuation_run", _PUNCT_RUN_ZH, text),
            *_found("template_mark", _TEMPLATE_MARK, text)]
    words = CHINESE.words(text)
    for a, b in zip(words, words[1:]):   # not across a mark: "还有位子。位子方面" picks the word up again
        b = b.rstrip("，、；：。？！“”‘’（）《》 ")
        if a == b and len(a) >= 2 and re.fullmatch(f"[{_HAN}]+", a) and a not in _REPEATABLE_ZH:
            hits.append(Hit("repeated_word", a + b))
    return hits


def lint_speech_zh(text: str) -> list[Hit]:
    """Mandarin speech has no English words in it (a name the harness knows, "Beijing", stays in the
    private request and the backend text, which are read, not said)."""
    return [*_found("latin_in_speech", _LATIN_WORD, text)]


_GLOSS_ZH = re.compile("（[^）]*）")


def lint_request_zh(text: str) -> list[Hit]:
    """A Mandarin private request is Mandarin: an English word in it ("14.2 plus 32.8") is mixed-language
    text; only a gloss in full-width brackets, the name the harness knows ("周二（Tuesday）"), may be Latin."""
    return [*_found("latin_in_request", _LATIN_WORD, _GLOSS_ZH.sub("", text))]


def lint_reply_zh(user_text: str, assistant_text: str) -> list[Hit]:
    """Perspective: the assistant saying the user's 我的客厅 / 我家 as its own (it is 你的客厅 / 你家)."""
    said = {m.group(0) for m in _MY_ZH.finditer(user_text)}
    return [Hit("pronoun_perspective", m.group(0)) for m in _MY_ZH.finditer(assistant_text)
            if any(s.startswith(m.group(0)[:4]) or m.group(0).startswith(s[:4]) for s in said)
            ] + _mood(user_text, assistant_text, _GOOD_NEWS_ZH, _CONSOLING_ZH)


def _no_hits(*_: str) -> list[Hit]:
    return []


@dataclass(frozen=True)
class Lints:
    utterance: Callable[[str], list[Hit]]            # everything said, heard or read
    reply: Callable[[str, str], list[Hit]]           # (the user's last turn, an assistant turn)
    hesitation: Callable[[str, str], list[Hit]]      # (the word before a filler, the filler)
    speech: Callable[[str], list[Hit]] = _no_hits    # what is said aloud only
    request: Callable[[str], list[Hit]] = _no_hits   # a delegate's private request text


LINTS: dict[str, Lints] = {
    "en": Lints(lint_utterance, lint_reply, lint_hesitation),
    "zh": Lints(lint_utterance_zh, lint_reply_zh, _no_hits, lint_speech_zh, lint_request_zh),
}


def lint_script(script: Script) -> list[str]:
    """Every lint hit of a script, as "<turn id>: <check>: '<words>'" (empty: clean)."""
    lints = LINTS.get(script.language)
    if lints is None:
        return []
    out: list[str] = []
    last_user = ""
    user_numbers: set[str] = set()   # every number the user has said so far: facts the assistant may restate
    for t in script.turns:
        said = [t.text]
        if t.continuation is not None:
            said += [t.continuation.prefix, *t.continuation.sentences]
        heard = [t.interruption.text] if t.interruption is not None else []
        heard += [o.text for o in t.overlays if o.kind != EventKind.BACKCHANNEL]   # "yeah yeah" is speech
        read = [t.delegate.request, t.delegate.result] if t.delegate is not None else []
        hits = [h for text in said + heard + read if text for h in lints.utterance(text)]
        hits += [h for text in said + heard if text for h in lints.speech(text)]
        if t.delegate is not None and t.delegate.request:
            hits += lints.request(t.delegate.request)
        if t.role == Role.USER:
            last_user = t.text
            user_numbers |= _numbers(t.text)
        else:
            hits += [h for text in said if text for h in lints.reply(last_user, text)
                     if not (h.check == "unsaid_user_fact" and _numbers(h.words) <= user_numbers)]
            if t.interruption is not None and t.interruption.text:   # what the user cut in with is answered next
                last_user = t.interruption.text
                user_numbers |= _numbers(t.interruption.text)
        if t.pause is not None and t.pause.filler:
            hits += lints.hesitation(language(script.language).words(t.text)[t.pause.after_word - 1], t.pause.filler)
        out += [f"{t.id}: {h}" for h in hits]
    return out
