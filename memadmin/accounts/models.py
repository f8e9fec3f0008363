"""No models: people are Django users, roles are Django groups."""
