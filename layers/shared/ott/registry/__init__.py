"""Registry service v2: the entry point of every app (spec document 3, part C)."""
