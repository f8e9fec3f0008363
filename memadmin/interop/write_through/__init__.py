"""Write-through: a person's edit in memadmin going to the store it was synced from.

`store_writes` is the gateway the memories app calls, `store_values` the translation between
a memory and the store's columns, `criteria_services` and `criteria_writes` a project's
criteria, `newer_stores` the stores too new to write.
"""
