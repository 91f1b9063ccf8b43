"""Data trees: merging an anonymous account's into another account's (spec document 1, 1.A.8), patching
them, and their size limit."""

import json
from typing import Any, Literal

Hint = Literal["mine", "their"]
MAX_TREE_BYTES = 64 * 1024  # of UTF-8 JSON; far below DynamoDB's 400 KB item even when stored escaped


def tree_bytes(tree: Any) -> int:
    return len(json.dumps(tree, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def merge_hint(source_anonymous: bool, destination_anonymous: bool) -> Hint | None:
    """The spec's table: None means the merge is refused."""
    if source_anonymous and not destination_anonymous:
        return "their"
    if not source_anonymous and not destination_anonymous:
        return None
    return "mine"


def merge_trees(destination: Any, source: Any, hint: Hint) -> Any:
    """Objects merge key by key, recursively. Any other pair that differs (leaves, arrays, values of
    different types) is a conflict: `mine` keeps the destination's value, `their` takes the source's."""
    if isinstance(destination, dict) and isinstance(source, dict):
        merged = dict(destination)
        for key, value in source.items():
            merged[key] = merge_trees(destination[key], value, hint) if key in destination else value
        return merged
    return destination if hint == "mine" else source


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7396 JSON Merge Patch."""
    if not isinstance(patch, dict):
        return patch
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result
