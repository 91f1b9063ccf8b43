"""Niche-content encoding queue v1: what awaits encoding, and the encoders' progress (spec document 3, part B)."""
