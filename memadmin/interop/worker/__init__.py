"""The background worker: sync jobs and their tasks, worker leases, the periodic refresh.

`jobs` queues and runs a sync asked for on the page, `tasks` are the worker's entry points,
`incremental` keeps every synced store fresh, `leases` tells a live worker from a dead one,
`freshness` says how fresh each store is.
"""
