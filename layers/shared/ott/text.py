"""Text matching as Russian-speaking users expect it."""


def fold(text: str) -> str:
    """Case-insensitive form in which `е` and `ё` are one letter."""
    return text.casefold().replace("ё", "е")
