"""Channel configuration of the stream-authorization component (spec document 3, part A)."""
