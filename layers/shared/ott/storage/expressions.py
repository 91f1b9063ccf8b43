"""Conditions, updates and projections built as values. Each renders to DynamoDB's expression syntax (every
name and value a placeholder) and evaluates against a plain item, so that `DynamoDatabase` and
`InMemoryDatabase` read the same expression the same way (the contract tests hold them to it).

    attr("v").eq(3) | attr("pk").not_exists()
    attr("hashes").size().lt(16) & attr("hashes", key).exists()
    Update().add("total", 1).set(attr("hashes", key), if_not_exists(attr("hashes", key), 0) + 1).remove("h#12")

Only what the stores use is here: comparisons, attribute_exists/not_exists, contains, size, begins_with,
BETWEEN, AND/OR/NOT, map paths; SET (with if_not_exists, + and -), ADD, DELETE, REMOVE.
"""

import operator
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from functools import lru_cache
from typing import Any

from ott.storage.values import Item, copied, kind_of, to_wire


class Missing:
    """What a path names in an item that lacks it."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = Missing()


class InvalidExpression(ValueError):
    """An update DynamoDB would refuse as a ValidationException (a path into a missing map, arithmetic on a
    string...): a bug of the caller, not of the data."""


class Renderer:
    """Collects the placeholders of one request: `#n0` for names, `:v0` for values."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.values: dict[str, Any] = {}
        self._placeholders: dict[str, str] = {}

    def name(self, name: str) -> str:
        placeholder = self._placeholders.get(name)
        if placeholder is None:
            placeholder = self._placeholders[name] = f"#n{len(self._placeholders)}"
            self.names[placeholder] = name
        return placeholder

    def value(self, value: Any) -> str:
        placeholder = f":v{len(self.values)}"
        self.values[placeholder] = to_wire(value)
        return placeholder

    def placeholders(self) -> dict[str, Any]:
        """The request's ExpressionAttributeNames/Values, each only when used."""
        found: dict[str, Any] = {}
        if self.names:
            found["ExpressionAttributeNames"] = self.names
        if self.values:
            found["ExpressionAttributeValues"] = self.values
        return found


class Node:
    """An expression node; its fields are its __slots__ (plain classes: a dataclass costs a millisecond of every
    function's cold start, and the nodes are many)."""

    __slots__: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(repr(getattr(self, name)) for name in self.__slots__)})"


class Operand(Node):
    __slots__ = ()

    def render(self, renderer: Renderer) -> str:
        raise NotImplementedError

    def value_in(self, item: Item) -> Any:
        """The operand's value for `item`, MISSING when it names nothing there."""
        raise NotImplementedError

    def eq(self, other: Any) -> "Condition":
        return Compare(self, "=", operand(other))

    def ne(self, other: Any) -> "Condition":
        return Compare(self, "<>", operand(other))

    def lt(self, other: Any) -> "Condition":
        return Compare(self, "<", operand(other))

    def le(self, other: Any) -> "Condition":
        return Compare(self, "<=", operand(other))

    def gt(self, other: Any) -> "Condition":
        return Compare(self, ">", operand(other))

    def ge(self, other: Any) -> "Condition":
        return Compare(self, ">=", operand(other))

    def __add__(self, other: Any) -> "Operand":
        return Arithmetic(self, "+", operand(other))

    def __sub__(self, other: Any) -> "Operand":
        return Arithmetic(self, "-", operand(other))


class Path(Operand):
    """An attribute, or a member of a map attribute (`attr("hashes", key)`)."""

    __slots__ = ("parts",)

    def __init__(self, parts: tuple[str, ...]) -> None:
        self.parts = parts

    def __getitem__(self, name: str) -> "Path":
        return Path((*self.parts, name))

    def render(self, renderer: Renderer) -> str:
        if len(self.parts) == 1:  # nearly every path: spare the join
            return renderer.name(self.parts[0])
        return ".".join(renderer.name(part) for part in self.parts)

    def value_in(self, item: Item) -> Any:
        value: Any = item
        for part in self.parts:
            if not isinstance(value, Mapping) or part not in value:
                return MISSING
            value = value[part]
        return value

    def exists(self) -> "Condition":
        return Exists(self, present=True)

    def not_exists(self) -> "Condition":
        return Exists(self, present=False)

    def contains(self, member: Any) -> "Condition":
        return Contains(self, operand(member))

    def begins_with(self, prefix: str | bytes) -> "Condition":
        return BeginsWith(self, operand(prefix))

    def between(self, low: Any, high: Any) -> "Condition":
        return Between(self, operand(low), operand(high))

    def size(self) -> Operand:
        return Size(self)


def attr(name: str, *members: str) -> Path:
    return Path((name, *members))


def as_path(path: Path | str) -> Path:
    return path if isinstance(path, Path) else attr(path)


class Literal(Operand):
    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def render(self, renderer: Renderer) -> str:
        return renderer.value(self.value)

    def value_in(self, item: Item) -> Any:
        return self.value


def operand(value: Any) -> Operand:
    return value if isinstance(value, Operand) else Literal(value)


class Size(Operand):
    __slots__ = ("path",)

    def __init__(self, path: Path) -> None:
        self.path = path

    def render(self, renderer: Renderer) -> str:
        return f"size({self.path.render(renderer)})"

    def value_in(self, item: Item) -> Any:
        value = self.path.value_in(item)
        if value is MISSING or kind_of(value) not in ("S", "B", "SS", "NS", "BS", "L", "M"):
            return MISSING  # a comparison with it is false
        return len(value)


class IfNotExists(Operand):
    __slots__ = ("default", "path")

    def __init__(self, path: Path, default: Operand) -> None:
        self.path = path
        self.default = default

    def render(self, renderer: Renderer) -> str:
        return f"if_not_exists({self.path.render(renderer)}, {self.default.render(renderer)})"

    def value_in(self, item: Item) -> Any:
        value = self.path.value_in(item)
        return self.default.value_in(item) if value is MISSING else value


def if_not_exists(path: Path | str, default: Any) -> Operand:
    return IfNotExists(as_path(path), operand(default))


class Infix(Node):
    """`left sign right`: an arithmetic operand or a comparison."""

    __slots__ = ("left", "right", "sign")

    def __init__(self, left: Operand, sign: str, right: Operand) -> None:
        self.left = left
        self.sign = sign
        self.right = right

    def render(self, renderer: Renderer) -> str:
        return f"{self.left.render(renderer)} {self.sign} {self.right.render(renderer)}"


class Arithmetic(Infix, Operand):
    __slots__ = ()

    def value_in(self, item: Item) -> Any:
        left, right = self.left.value_in(item), self.right.value_in(item)
        if MISSING in (left, right) or kind_of(left) != "N" or kind_of(right) != "N":
            raise InvalidExpression("+ and - take two numbers")
        return left + right if self.sign == "+" else left - right


class Condition(Node):
    __slots__ = ()

    def render(self, renderer: Renderer) -> str:
        raise NotImplementedError

    def holds(self, item: Item | None) -> bool:
        """Whether the condition holds for `item` (None: no item)."""
        raise NotImplementedError

    def __and__(self, other: "Condition") -> "Condition":
        return Junction(self, "AND", other)

    def __or__(self, other: "Condition") -> "Condition":
        return Junction(self, "OR", other)

    def __invert__(self) -> "Condition":
        return Not(self)


ORDERED_KINDS = ("N", "S", "B")
COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    "=": operator.eq,
    "<>": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


class Compare(Infix, Condition):
    __slots__ = ()

    def holds(self, item: Item | None) -> bool:
        left, right = self.left.value_in(item or {}), self.right.value_in(item or {})
        if left is MISSING or right is MISSING or kind_of(left) != kind_of(right):
            return self.sign == "<>" and not (left is MISSING and right is MISSING)
        if self.sign not in ("=", "<>") and kind_of(left) not in ORDERED_KINDS:
            return False
        return COMPARISONS[self.sign](left, right)


class Exists(Condition):
    __slots__ = ("path", "present")

    def __init__(self, path: Path, present: bool) -> None:
        self.path = path
        self.present = present

    def render(self, renderer: Renderer) -> str:
        function = "attribute_exists" if self.present else "attribute_not_exists"
        return f"{function}({self.path.render(renderer)})"

    def holds(self, item: Item | None) -> bool:
        return (self.path.value_in(item or {}) is not MISSING) == self.present


class Contains(Condition):
    __slots__ = ("member", "path")

    def __init__(self, path: Path, member: Operand) -> None:
        self.path = path
        self.member = member

    def render(self, renderer: Renderer) -> str:
        return f"contains({self.path.render(renderer)}, {self.member.render(renderer)})"

    def holds(self, item: Item | None) -> bool:
        whole, member = self.path.value_in(item or {}), self.member.value_in(item or {})
        if whole is MISSING or member is MISSING:
            return False
        kind = kind_of(whole)
        if kind == "S":
            return isinstance(member, str) and member in whole
        if kind in ("SS", "NS", "BS"):
            return kind_of(member) == kind[0] and member in whole
        if kind == "L":
            return any(kind_of(element) == kind_of(member) and element == member for element in whole)
        return False


class BeginsWith(Condition):
    __slots__ = ("path", "prefix")

    def __init__(self, path: Path, prefix: Operand) -> None:
        self.path = path
        self.prefix = prefix

    def render(self, renderer: Renderer) -> str:
        return f"begins_with({self.path.render(renderer)}, {self.prefix.render(renderer)})"

    def holds(self, item: Item | None) -> bool:
        value, prefix = self.path.value_in(item or {}), self.prefix.value_in(item or {})
        if value is MISSING or prefix is MISSING or kind_of(value) not in ("S", "B"):
            return False
        return kind_of(value) == kind_of(prefix) and value.startswith(prefix)


class Between(Condition):
    __slots__ = ("high", "low", "path")

    def __init__(self, path: Path, low: Operand, high: Operand) -> None:
        self.path = path
        self.low = low
        self.high = high

    def render(self, renderer: Renderer) -> str:
        path, low, high = self.path.render(renderer), self.low.render(renderer), self.high.render(renderer)
        return f"{path} BETWEEN {low} AND {high}"

    def holds(self, item: Item | None) -> bool:
        return Compare(self.path, ">=", self.low).holds(item) and Compare(self.path, "<=", self.high).holds(item)


class Junction(Condition):
    __slots__ = ("left", "right", "word")

    def __init__(self, left: Condition, word: str, right: Condition) -> None:
        self.left = left
        self.word = word  # AND, OR
        self.right = right

    def render(self, renderer: Renderer) -> str:
        return f"({self.left.render(renderer)} {self.word} {self.right.render(renderer)})"

    def holds(self, item: Item | None) -> bool:
        if self.word == "AND":
            return self.left.holds(item) and self.right.holds(item)
        return self.left.holds(item) or self.right.holds(item)


class Not(Condition):
    __slots__ = ("inner",)

    def __init__(self, inner: Condition) -> None:
        self.inner = inner

    def render(self, renderer: Renderer) -> str:
        return f"(NOT {self.inner.render(renderer)})"

    def holds(self, item: Item | None) -> bool:
        return not self.inner.holds(item)


class Update:
    """An UpdateExpression: each method adds an action and returns the update, to chain them."""

    __slots__ = ("adds", "deletes", "removes", "sets")

    def __init__(self) -> None:
        self.sets: list[tuple[Path, Operand]] = []
        self.adds: list[tuple[Path, Any]] = []
        self.deletes: list[tuple[Path, Any]] = []
        self.removes: list[Path] = []

    def __repr__(self) -> str:
        return f"Update(set={self.sets}, add={self.adds}, delete={self.deletes}, remove={self.removes})"

    def set(self, path: Path | str, value: Any) -> "Update":
        self.sets.append((as_path(path), operand(value)))
        return self

    def add(self, path: Path | str, value: int | AbstractSet[Any]) -> "Update":
        """A number added to a number (0 when absent), or members added to a set."""
        self.adds.append((as_path(path), value))
        return self

    def delete(self, path: Path | str, members: AbstractSet[Any]) -> "Update":
        """Members taken out of a set (a set left empty goes)."""
        self.deletes.append((as_path(path), members))
        return self

    def remove(self, *paths: Path | str) -> "Update":
        self.removes.extend(as_path(path) for path in paths)
        return self

    def targets(self) -> list[Path]:
        """The paths the update writes; DynamoDB refuses an update in which two of them overlap."""
        paths = [path for path, _ in self.sets] + [path for path, _ in self.adds + self.deletes] + self.removes
        for number, path in enumerate(paths):
            for other in paths[number + 1 :]:
                shorter = min(len(path.parts), len(other.parts))
                if path.parts[:shorter] == other.parts[:shorter]:
                    raise InvalidExpression(f"two paths of one update overlap: {path.parts} and {other.parts}")
        return paths

    def render(self, renderer: Renderer) -> str:
        self.targets()
        clauses = []
        if self.sets:
            assignments = (f"{path.render(renderer)} = {value.render(renderer)}" for path, value in self.sets)
            clauses.append("SET " + ", ".join(assignments))
        for word, actions in (("ADD", self.adds), ("DELETE", self.deletes)):
            if actions:
                pairs = (f"{path.render(renderer)} {renderer.value(value)}" for path, value in actions)
                clauses.append(f"{word} " + ", ".join(pairs))
        if self.removes:
            clauses.append("REMOVE " + ", ".join(path.render(renderer) for path in self.removes))
        return " ".join(clauses)

    def apply(self, item: Item) -> Item:
        """The item as DynamoDB leaves it: every value computed from the item before the update."""
        self.targets()
        values = [(path, value.value_in(item)) for path, value in self.sets]
        changed = copied(item)
        for path, value in values:
            assign(changed, path, copied(value))
        for path, value in self.adds:
            assign(changed, path, added(path.value_in(changed), value))
        for path, members in self.deletes:
            present = path.value_in(changed)
            if present is not MISSING:
                if kind_of(present) != kind_of(members):
                    raise InvalidExpression("DELETE takes members of the set's type")
                left = present - set(members)
                assign(changed, path, left) if left else unassign(changed, path)
        for path in self.removes:
            unassign(changed, path)
        return changed


def added(present: Any, value: Any) -> Any:
    if present is MISSING:
        return copied(value)
    if kind_of(present) != kind_of(value) or kind_of(value) not in ("N", "SS", "NS", "BS"):
        raise InvalidExpression("ADD takes a number to a number or members to a set of their type")
    return present + value if kind_of(value) == "N" else present | set(value)


def parent_of(item: Item, path: Path) -> dict[str, Any] | None:
    parent: Any = item
    for part in path.parts[:-1]:
        parent = parent.get(part) if isinstance(parent, dict) else None
    return parent if isinstance(parent, dict) else None


def assign(item: Item, path: Path, value: Any) -> None:
    parent = parent_of(item, path)
    if parent is None:
        raise InvalidExpression("the document path provided in the update expression is invalid for update")
    parent[path.parts[-1]] = value


def unassign(item: Item, path: Path) -> None:
    parent = parent_of(item, path)
    if parent is not None:
        parent.pop(path.parts[-1], None)


@lru_cache(maxsize=32)
def rendered_alone(condition: Condition) -> tuple[str, dict[str, Any]]:
    """A condition that is a request's only expression, rendered with its placeholders. Nodes hash by identity
    and are immutable: a condition built once and used for many writes (`Database.absent_or_expired`) is
    rendered once. The placeholders are shared: callers do not change them."""
    renderer = Renderer()
    return condition.render(renderer), renderer.placeholders()


def render_projection(paths: Iterable[Path | str], renderer: Renderer) -> str:
    return ", ".join(as_path(path).render(renderer) for path in paths)


def project(item: Item, paths: Iterable[Path | str]) -> Item:
    """The parts of `item` that `paths` name, as a ProjectionExpression returns them."""
    found: Item = {}
    for path in map(as_path, paths):
        value = path.value_in(item)
        if value is MISSING:
            continue
        target = found
        for part in path.parts[:-1]:
            target = target.setdefault(part, {})
        target[path.parts[-1]] = copied(value)
    return found
