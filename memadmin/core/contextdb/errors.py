"""The one error a caller of the store reader needs to catch, and its passing kind."""


class StoreError(ValueError):
    """A file that cannot be read, or written, as a magic-context store."""


class StoreLocked(StoreError):
    """Another process held a lock on the store past the wait: nothing is wrong with the file."""
