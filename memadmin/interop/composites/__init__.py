"""Composites published to a store: the opt-in, the write-through, the push and the read-back.

`publish` turns publishing on and writes every composite edit through, `push` sends what a
sync owes the store, `readback` reads the store's composite tables back after a sync,
`conflicts` and `conflict_services` keep and resolve what both sides changed, `tables`
reports and drops the two tables.
"""
