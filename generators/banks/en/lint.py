"""English checks of the generated-text lint (generators/text_lint.py): the artefacts English templates
leave (doubled articles, "X or X", "1 hours", pronoun echo, filler splicing...)."""
from __future__ import annotations

import re

from generators.banks.engine import ONE_PLURAL, PLURAL_POSSESSIVE
from generators.text_lint import (ARTICLES, HESITATION_SOUNDS, TEMPLATE_MARK, Hit, Lints, found, mood, numbers_in,
                                  self_blame)

# Words a person may say twice on purpose ("yeah yeah", "no no, the other one").
_REPEATABLE = frozenset("yeah yes no right okay ok so very really well oh ah ha bye now go there ding".split())
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


def lint_utterance(text: str) -> list[Hit]:
    """Artefacts inside one utterance: doubled articles, repeated words, "X or X", "between 7 and 7", "1 hours",
    "0 dollars" said as an amount, "Rovers's" (a plural name's possessive is "Rovers'"), and a
    template's "[a|b]" or "{slot}" left unresolved (a slot value's variants said where they are not expanded)."""
    hits = [*found("doubled_article", _DOUBLED_ARTICLE, text),
            *found("same_operands", _SAME_OPERANDS, text),
            *found("number_agreement", ONE_PLURAL, text),
            *found("zero_amount", _ZERO_AMOUNT, text),
            *found("same_span", _SAME_SPAN, text),
            *found("plural_modifier", _PLURAL_MODIFIER, text),
            *found("plural_possessive", PLURAL_POSSESSIVE, text),
            *found("template_mark", TEMPLATE_MARK, text)]
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


# the user correcting their own words ("Oops, I meant Friday, sorry", "Sorry, I misspoke, it's Florence")
_SELF_CORRECTION = re.compile(r"\b(?:I meant|I mean|I misspoke|I got that wrong|I said|make that|make it|change (?:that|it) to|"
                              r"correct that|should be|instead|not [\w' ]+, |actually|sorry|changed my mind|change of plan|"
                              r"wait|hang on|oops|scratch that|rather)\b", re.IGNORECASE)
# the assistant taking the blame for it ("Ah, my mistake", "Good catch"): the slip was the user's (issue #28)
_OWN_MISTAKE = re.compile(r"\b(?:my mistake|my bad|my error|my fault|good catch|thanks for catching(?: that)?|I misheard|"
                          r"I misunderstood|I got (?:that|it) wrong|sorry, I had)\b", re.IGNORECASE)


def lint_reply(user_text: str, assistant_text: str) -> list[Hit]:
    """Perspective: the assistant echoing the user's "my living room" as its own ("in my living room");
    the assistant telling the user what they have already ("Having 600 dollars already") when the
    user never said it; and the assistant blaming itself for the user's slip ("Ah, my mistake")."""
    said = {m.group(1).lower() for m in _MY_PHRASE.finditer(user_text)}
    hits = [Hit("pronoun_perspective", m.group(0)) for m in _MY_PHRASE.finditer(assistant_text)
            if m.group(1).lower() in said]
    numbers = numbers_in(user_text)
    hits += [Hit("unsaid_user_fact", m.group(0)) for m in _USER_HAS.finditer(assistant_text)
             if (m.group(1) or m.group(2)).replace(",", "") not in numbers]
    return hits + mood(user_text, assistant_text, _GOOD_NEWS, _CONSOLING) + \
        self_blame(user_text, assistant_text, _SELF_CORRECTION, _OWN_MISTAKE)


def lint_hesitation(word_before: str, filler: str) -> list[Hit]:
    """A filler spliced after an article must be a bare hesitation sound: "an so, uh emergency fund" is not speech."""
    if word_before.lower().strip(",") in ARTICLES and filler.lower().strip(" ,") not in HESITATION_SOUNDS:
        return [Hit("filler_splice", f"{word_before} {filler}")]
    return []


LINTS = Lints(lint_utterance, lint_reply, lint_hesitation)
