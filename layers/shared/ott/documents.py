"""The one reader of operators' data files, from a file (`ops/`) or a request's body (the console): YAML, or JSON.
A key written twice in one mapping (YAML) or object (JSON) is refused: otherwise the last one would win silently
(a second `url:` in a stream, a second `id:` of an area). Each loader lists DocumentError's problems among its own.

    document = parse_document(text, "channels.yaml", as_json=False)  # DocumentError: every problem, named
"""

import json
from typing import Any


class DocumentError(ValueError):
    """The text is not YAML/JSON, or writes a key twice; `problems` lists each, naming the file."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


def parse_document(text: str, name: str, as_json: bool, *, aliases: bool = True) -> object:
    """The document `text` holds; `name` names it in problems. Without `aliases`, YAML anchors and aliases are
    refused: a request's body must not make a few kilobytes expand into gigabytes when walked."""
    import yaml  # only the functions that read operators' files pay for it

    try:
        document, repeated = _parse(yaml, text, as_json, aliases)
    except (ValueError, yaml.YAMLError) as error:
        raise DocumentError([f"{name}: not readable as {'JSON' if as_json else 'YAML'}: {error}"]) from None
    if repeated:
        raise DocumentError([f"{name}: {problem}" for _, problem in sorted(repeated)])
    return document


def _parse(yaml: Any, text: str, as_json: bool, aliases: bool) -> tuple[object, list[tuple[int, str]]]:
    """The parsed text, and every key written twice in one mapping or object (with its line in YAML)."""
    repeated: list[tuple[int, str]] = []
    if as_json:

        def unique(pairs: list[tuple[str, object]]) -> dict:
            keys = [key for key, _ in pairs]
            repeated.extend(
                (0, f"key {key!r} is written twice in one object") for key in sorted(set(keys)) if keys.count(key) > 1
            )
            return dict(pairs)

        return json.loads(text, object_pairs_hook=unique), repeated

    class StrictLoader(yaml.SafeLoader):
        """YAML whose mappings name each key once: every key written twice is collected with its line."""

        def construct_mapping(self, node: Any, deep: bool = False) -> dict:
            seen: set[str] = set()
            for key_node, _ in node.value:
                if key_node.tag != "tag:yaml.org,2002:str":  # a merge key (<<) or a key that is not text
                    continue
                if key_node.value in seen:
                    line = key_node.start_mark.line + 1
                    repeated.append((line, f"line {line}: key {key_node.value!r} is written twice"))
                seen.add(key_node.value)
            return super().construct_mapping(node, deep=deep)

        def compose_node(self, parent: Any, index: Any) -> Any:
            if not aliases and self.check_event(yaml.AliasEvent):
                line = self.peek_event().start_mark.line + 1
                raise ValueError(f"line {line}: aliases (*name) are not accepted here; write the values out")
            return super().compose_node(parent, index)

    loader = StrictLoader(text)
    try:
        return loader.get_single_data(), repeated
    finally:
        loader.dispose()
