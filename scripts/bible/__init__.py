"""Build a Spanish->English parallel Bible corpus from Debian's SWORD modules.

The modules are read with ``diatheke`` (Reina-Valera 1909 as the source,
World English Bible as the target, King James Version as a second English
reference), cleaned, aligned verse-to-verse by length and split into
train/dev/test.  ``scripts/prepare_bible.py`` is the command; ``pipeline.run``
is the entry point; ``docs/data.md`` documents the result.
"""


class PrepareError(Exception):
    """A user-facing failure: printed as one line on stderr, exit status 1."""
