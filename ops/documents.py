"""The one reader of the operators' data files: YAML, or JSON by a .json suffix. A key written twice in one
mapping (YAML) or object (JSON) is refused: otherwise the last one would win silently (a second `url:` in a
stream, a second `id:` of an area). Each loader lists DocumentError's problems among its own.

    document = read_document(path)  # DocumentError: every problem, each naming the file
"""

import json
from pathlib import Path

import yaml


class DocumentError(ValueError):
    """The file cannot be read, is not YAML/JSON, or writes a key twice; `problems` lists each, with the file."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


class StrictLoader(yaml.SafeLoader):
    """YAML whose mappings name each key once: every key written twice is collected with its line."""

    repeated: list[tuple[int, str]]  # (line, problem)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: set[str] = set()
        for key_node, _ in node.value:
            if key_node.tag != "tag:yaml.org,2002:str":  # a merge key (<<) or a key that is not text
                continue
            if key_node.value in seen:
                line = key_node.start_mark.line + 1
                self.repeated.append((line, f"line {line}: key {key_node.value!r} is written twice"))
            seen.add(key_node.value)
        return super().construct_mapping(node, deep=deep)


def parse(text: str, as_json: bool) -> tuple[object, list[tuple[int, str]]]:
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
    loader = StrictLoader(text)
    loader.repeated = repeated
    try:
        return loader.get_single_data(), repeated
    finally:
        loader.dispose()


def read_document(path: Path) -> object:
    """The file's document; DocumentError when it cannot be read or parsed, or writes a key twice."""
    as_json = path.suffix.lower() == ".json"
    try:
        document, repeated = parse(path.read_text(encoding="utf-8"), as_json)
    except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError) as error:
        raise DocumentError([f"{path}: not readable as {'JSON' if as_json else 'YAML'}: {error}"]) from None
    if repeated:
        raise DocumentError([f"{path}: {problem}" for _, problem in sorted(repeated)])
    return document
