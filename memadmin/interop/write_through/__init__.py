"""Write-through: a person's edit in memadmin going to the store it was synced from.

The store seam's backend (`..store_backend`) hands each write here: `store_writes` writes
memories, `store_values` translates a memory into the store's columns, `criteria_services`
and `criteria_writes` write a project's criteria, `newer_stores` names the stores too new
to write.
"""
