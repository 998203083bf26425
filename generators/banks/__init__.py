"""Data banks (templates and slot values) behind ``generators.text_bank``."""
