"""Launcher posters v1: the poster block of a set-top box's home screen (spec document 2, part B)."""
