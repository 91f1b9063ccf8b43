"""The one reader of operators' data files, from a file (`ops/`) or a request's body (the console): YAML, or JSON.
A key written twice in one mapping (YAML) or object (JSON) is refused: otherwise the last one would win silently
(a second `url:` in a stream, a second `id:` of an area). Each loader lists DocumentError's problems among its own.

Every parse is bounded (issue 28, "Operators' files parsed within bounds"): a document of more than `Limits.bytes`
bytes of text, nested deeper than `Limits.depth` or holding more than `Limits.nodes` values (keys, items and
collections) is refused before it is built, so that what is accepted parses within half the time and memory the
template gives the function reading it (`make bench`, bench/documents.py). YAML is read by libyaml's C parser
where the layer has it (PyYAML's wheels do), the document composed and built in Python so that the duplicate-key
and alias checks and the bounds stay ours; libyaml's own composer recurses in C and crashes the process on deep
nesting.

    document = parse_document(text, "channels.yaml", as_json=False)  # DocumentError: every problem, named
"""

import json
from dataclasses import dataclass
from typing import Any


class DocumentError(ValueError):
    """The text is not YAML/JSON, or writes a key twice; `problems` lists each, naming the file."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Limits:
    """What one document may hold: its text's UTF-8 bytes, its nesting, its values (each key, item, scalar and
    collection counts one)."""

    bytes: int
    nodes: int
    depth: int = 64


# A request's body (the staff routes take files of up to 4 MB: ott.http.staff.FILE_BYTES), read by a function of
# 512 MB and 30 s; the registry's upload (ott.registry.loading.MAX_FILE_BYTES), read by one of 2 GB and 900 s
# (a registry of 60k territories and 100k prefixes is some 1.2M values). bench/documents.py measures both.
REQUEST_LIMITS = Limits(bytes=4 * 1024 * 1024, nodes=300_000)
UPLOAD_LIMITS = Limits(bytes=64 * 1024 * 1024, nodes=1_600_000)


class _TooLarge(ValueError):
    """A bound of Limits is passed; the message names it."""


def parse_document(
    text: str, name: str, as_json: bool, *, aliases: bool = True, limits: Limits = REQUEST_LIMITS
) -> object:
    """The document `text` holds; `name` names it in problems. Without `aliases`, YAML anchors and aliases are
    refused: a request's body must not make a few kilobytes expand into gigabytes when walked. A text past
    `limits` is refused with the bound it passes."""
    import yaml  # only the functions that read operators' files pay for it

    kind = "JSON" if as_json else "YAML"
    size = len(text.encode("utf-8", "surrogatepass")) if len(text) * 4 > limits.bytes else len(text)
    if size > limits.bytes:
        raise DocumentError([f"{name}: {size:,} bytes, more than the {limits.bytes:,} a {kind} file may have"])
    try:
        document, repeated = _parse(yaml, text, as_json, aliases, limits)
    except _TooLarge as error:
        raise DocumentError([f"{name}: {error}"]) from None
    except RecursionError:  # a parser's own nesting bound (json's C scanner), below ours on a small stack
        raise DocumentError([f"{name}: nested more than {limits.depth} levels deep"]) from None
    except (ValueError, yaml.YAMLError) as error:
        raise DocumentError([f"{name}: not readable as {kind}: {_shown(error)}"]) from None
    if repeated:
        raise DocumentError([f"{name}: {problem}" for _, problem in sorted(repeated)[:100]])
    return document


def _shown(error: Exception, limit: int = 500) -> str:
    """A parser's message, of bounded length (it may quote the text)."""
    text = str(error)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _parse(yaml: Any, text: str, as_json: bool, aliases: bool, limits: Limits) -> tuple[object, list[tuple[int, str]]]:
    """The parsed text, and every key written twice in one mapping or object (with its line in YAML)."""
    repeated: list[tuple[int, str]] = []
    if as_json:
        return _parse_json(text, limits, repeated), repeated

    base = yaml.SafeLoader
    if getattr(yaml, "__with_libyaml__", False):
        from yaml._yaml import CParser

        class FastLoader(yaml.composer.Composer, CParser, yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
            """libyaml's scanner and parser; PyYAML's composer (in Python: bounded below) and safe constructor."""

            def __init__(self, stream: str) -> None:
                CParser.__init__(self, stream)
                yaml.composer.Composer.__init__(self)
                yaml.constructor.SafeConstructor.__init__(self)
                yaml.resolver.Resolver.__init__(self)

        base = FastLoader

    class StrictLoader(base):  # type: ignore[misc,valid-type]
        """YAML whose mappings name each key once (every key written twice is collected with its line), within
        `limits`."""

        nodes = 0
        depth = 0

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
            line = self.peek_event().start_mark.line + 1
            if not aliases and self.check_event(yaml.AliasEvent):
                raise ValueError(f"line {line}: aliases (*name) are not accepted here; write the values out")
            self.nodes += 1
            if self.nodes > limits.nodes:
                raise _TooLarge(f"line {line}: more than {limits.nodes:,} values (keys, items and collections)")
            self.depth += 1
            try:
                if self.depth > limits.depth:
                    raise _TooLarge(f"line {line}: nested more than {limits.depth} levels deep")
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

    loader = StrictLoader(text)
    try:
        return loader.get_single_data(), repeated
    finally:
        loader.dispose()


def _parse_json(text: str, limits: Limits, repeated: list[tuple[int, str]]) -> object:
    """JSON within `limits`: each value but the first follows a comma or opens a collection, so those characters
    bound the values before anything is built (commas and brackets inside strings count too: a bound, not a count);
    the nesting is checked on what was built."""
    bound = text.count(",") + text.count("[") + text.count("{") + text.count(":") + 1
    if bound > limits.nodes:
        raise _TooLarge(f"more than {limits.nodes:,} values (counting the commas, colons and brackets: {bound:,})")

    def unique(pairs: list[tuple[str, object]]) -> dict:
        keys = [key for key, _ in pairs]
        if len(keys) != len(set(keys)):
            repeated.extend(
                (0, f"key {key!r} is written twice in one object") for key in sorted(set(keys)) if keys.count(key) > 1
            )
        return dict(pairs)

    document = json.loads(text, object_pairs_hook=unique)
    level: list[object] = [document]
    for depth in range(1, limits.depth + 2):
        if not level:
            return document
        if depth > limits.depth:
            raise _TooLarge(f"nested more than {limits.depth} levels deep")
        level = [
            child
            for value in level
            if isinstance(value, dict | list)
            for child in (value.values() if isinstance(value, dict) else value)
            if isinstance(child, dict | list)
        ]
    return document
