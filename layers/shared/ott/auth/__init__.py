"""Authentication service v2: an OAuth 2.0 authorization server (spec document 1, part A).

Its domain is split by concern rather than kept in one service.py: `tokens` (the token endpoint's grants and
revocation), `device` (the device flow's PIN), `login` (signing in for `authorize`), `account` (the account
and its data tree) and `metadata` (RFC 8414); `edge` is its HTTP edge."""
