"""The corpus script source (issue #14 item 5, DESIGN §6): local dialogue corpora spoken as sessions."""
from generators.corpus.read import Corpus, CorpusRecordError, corpus_fingerprint, open_corpus
from generators.corpus.source import FAMILIES, CorpusSource, check_source, corpus_for, families_of, pin_corpus
from generators.corpus.spoken import Unspeakable, spoken_sentences

__all__ = ["FAMILIES", "Corpus", "CorpusRecordError", "CorpusSource", "Unspeakable", "check_source", "corpus_for", "families_of",
           "corpus_fingerprint", "open_corpus", "pin_corpus", "spoken_sentences"]
