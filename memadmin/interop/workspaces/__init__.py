"""A store's workspaces and members: kept in memadmin by the sync, edited and written back."""
