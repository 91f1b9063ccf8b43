"""Operator commands (run from the repository root with `python -m ops.<command>`)."""
