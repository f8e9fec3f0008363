"""Models of this area."""
