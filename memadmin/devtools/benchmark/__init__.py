"""The benchmark: a large throwaway store, and the figures measured on it.

Run it with `manage.py benchmark`; it builds the store in a temporary SQLite database in a
child process, so the real database is never touched.
"""
