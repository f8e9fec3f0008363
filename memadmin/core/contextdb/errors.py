"""The one error a caller of the store reader needs to catch."""


class StoreError(ValueError):
    """A file that cannot be read, or written, as a magic-context store."""
