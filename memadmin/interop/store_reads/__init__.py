"""What a store holds beside its memories, read live for the pages: proposals, provenance, dreamer runs."""
