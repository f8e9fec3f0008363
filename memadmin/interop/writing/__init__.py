"""Writing a planned sync into memadmin, and the run around it.

`services.context_db_sync` is the entry: one sync at a time (`lock`, with SQLite's page cache
enlarged for it, `page_cache`), the store read and planned (`..planning`), then written in
one walk down its steps (`writer.sync_write`: its bulk SQL in `bulk_rows`, SQLite's write
lock shared through `write_gate`, the plan's pushes to the store in `pushes`, the saves made
meanwhile in `moved`, the pushed rows, bases and conflicts settled in `settle`, the run's
record in `runs`). `progress` names the phases a sync reports and draws them on the command
line.
"""
