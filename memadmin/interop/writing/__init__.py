"""Writing a planned sync into memadmin, and the run around it.

`services.context_db_sync` is the entry: one sync at a time (`lock`), the store read and
planned (`..planning`), then written (`writer`, its bulk SQL in `bulk_rows`, the SQLite
write lock shared through `write_gate`), the plan's pushes to the store and their settling
(`pushes`), saves made meanwhile (`moved`), and every run's record (`runs`).
"""
