"""Authentication service v2: an OAuth 2.0 authorization server (spec document 1, part A)."""
