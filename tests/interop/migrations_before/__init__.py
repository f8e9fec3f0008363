"""The interop app's migrations as they were before the squash, for the upgrade test.

Selected with MIGRATION_MODULES (`tests/interop/migrations_before_settings.py`) to build a
database the way an install made before the squash did; `test_migrations.py` then migrates
it with the app's own migrations and compares it with a fresh database.
"""
