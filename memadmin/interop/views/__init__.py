"""The interop pages: the Import/export page, conflicts, published composites, workspaces, dreamer runs."""
