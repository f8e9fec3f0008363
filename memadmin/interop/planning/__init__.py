"""Reading a store and planning a sync: what is new, changed, gone, pushed or in conflict.

Nothing here writes. `planned` is the way in (a full sync by ranges of ids, `ranges`, or an
incremental one), `scope` reads the projects and memadmin rows in play, and `plan` compares
the two sides row by row, three ways where a base is kept, with the `values` tuple, the
unique `keys` and the row `checks` it needs.
"""
