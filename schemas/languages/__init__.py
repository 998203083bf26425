"""One module per language (DESIGN §6): `<code>.py` defines that language's `Language`
(`base.Language`); the registry is `schemas.language.LANGUAGES`."""
