"""Mutation testing of memadmin with a pinned mutmut: ``python -m memadmin.devtools.mutation``."""
