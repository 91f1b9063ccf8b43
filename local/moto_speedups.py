"""moto's DynamoDB made fast where the local stack and the tests found it slow, answering exactly as before
(tests/unit/test_moto_speedups.py compares both; offered upstream: docs/upstream/moto-dynamodb-speedups.md):

- a Query of a table reads the queried partition instead of sorting every item of the table and walking them;
- a transaction keeps, for its rollback, a copy of the items it names instead of a deep copy of each table per
  operation (the guide's 7,000 items were copied for each of its operations);
- an update expression is parsed once per text (moto parsed it twice a call), and copied for validation through
  pickle, a quarter of the time of `copy.deepcopy`; the checks that a clause or a path is not repeated run once
  over the whole expression when it repeats none, instead of once per node of its syntax tree; the node types a
  validation pass looks for are found once per pass instead of once per node, and whether a class is a node
  of the syntax tree (an ABC: a slow isinstance) once per class instead of once per node and pass;
- an attribute value of a reply (`{"S": ...}`, `{"M": {...}}`...) is written as it is, instead of trying every
  member of the AttributeValue shape under every alias moto knows for each (most of a Query's reply time);
- the names of a response class's methods are listed once per class instead of once per request.

`speed_up_dynamodb()` applies them once per process; `released_moto()` puts moto's own code back for a while.
`speed_up_step_functions()` validates each state machine definition once per text: moto parsed its ASL again for
every state machine it created, a quarter of a second each (each test's emulated account creates the template's)."""

import copy
import inspect
import pickle
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache, partial
from types import ModuleType
from typing import Any

import moto.core.responses
import moto.dynamodb.parsing.validators
from moto.core.serialize import DEFAULT_ALIAS_PROVIDERS, AttributePicker, BaseJSONSerializer
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.models.table import Table
from moto.dynamodb.parsing.ast_nodes import (
    DepthFirstTraverser,
    ExpressionAttributeName,
    Node,
    UpdateExpressionAddAction,
    UpdateExpressionAddClause,
    UpdateExpressionDeleteAction,
    UpdateExpressionRemoveAction,
    UpdateExpressionRemoveClause,
    UpdateExpressionSetAction,
    UpdateExpressionSetClause,
)
from moto.dynamodb.parsing.expressions import UpdateExpressionParser
from moto.dynamodb.parsing.validators import ActionCountValidator, OverlappingPathsValidator
from moto.dynamodb.utils import find_duplicates, find_path_overlaps

Owner = type | ModuleType
PATCHED: list[tuple[Owner, str]] = [
    (Table, "query"),
    (DynamoDBBackend, "transact_write_items"),
    (UpdateExpressionParser, "make"),
    (moto.dynamodb.parsing.validators, "deepcopy"),
    (ActionCountValidator, "traverse"),
    (OverlappingPathsValidator, "traverse"),
    (DepthFirstTraverser, "nodes_to_be_processed"),
    (DepthFirstTraverser, "traverse_node_recursively"),
    (moto.core.responses, "method_names_from_class"),
    (BaseJSONSerializer, "_serialize_type_structure"),
]
INHERITED = object()  # what a subclass holds of a method it inherits: nothing of its own
RELEASED: dict[tuple[Owner, str], Any] = {(owner, name): vars(owner).get(name, INHERITED) for owner, name in PATCHED}


def released(owner: Owner, name: str) -> Any:
    """moto's own function (a class method's function, the base class's for an inherited one)."""
    found = RELEASED[(owner, name)]
    if found is INHERITED:
        assert isinstance(owner, type)  # noqa: S101 - only classes inherit
        return getattr(owner.__mro__[1], name)
    return found.__func__ if isinstance(found, classmethod) else found


# ---- Query


_QUERY_PARAMETERS = inspect.signature(Table.query)


class _Partition:
    """A table as moto's Query of the table (not of an index) walks it: the items of one partition."""

    def __init__(self, table: Table, hash_key: DynamoType) -> None:
        self._table, self._hash_key = table, hash_key

    def __getattr__(self, name: str) -> Any:
        return getattr(self._table, name)

    def all_items(self) -> list[Any]:
        # .get: the items are a defaultdict, and a lookup must not add an empty partition
        partition = self._table.items.get(self._hash_key)
        if partition is None:
            return []
        return list(partition.values()) if self._table.range_key_attr else [partition]


def _query(table: Table, hash_key: DynamoType | None, *args: Any, **kwargs: Any) -> Any:
    index_name = _QUERY_PARAMETERS.bind(table, hash_key, *args, **kwargs).arguments.get("index_name")
    walked = table if index_name or hash_key is None else _Partition(table, hash_key)
    return released(Table, "query")(walked, hash_key, *args, **kwargs)


# ---- Transactions


def _named_key(table: Table, operation: str, request: dict[str, Any]) -> tuple[DynamoType, Any] | None:
    """The key of the item a transaction's operation may write, as moto reads it; None when moto would read it
    some other way (then the table is copied whole, as moto does)."""
    key = request.get("Item", {}) if operation == "Put" else request.get("Key", {})
    if table.hash_key_attr not in key or (table.range_key_attr and table.range_key_attr not in key):
        return None
    try:
        hash_key = DynamoType(key[table.hash_key_attr])
        return hash_key, DynamoType(key[table.range_key_attr]) if table.range_key_attr else None
    except Exception:  # a malformed value: moto's own error for it comes from moto's own code
        return None


def _copy_for_rollback(table: Table, keys: list[tuple[DynamoType, Any]], copies: list[Table], _memo: Any) -> Table:
    """What moto's `copy.deepcopy(table)` gives a transaction to roll back to, for a transaction that writes no
    item but `keys`: the table's other items are shared, the named ones copied. The copy is made once per
    transaction (moto asks for one per operation) and is not listed among moto's model instances."""
    if copies:
        return copies[0]
    rollback = object.__new__(type(table))
    rollback.__dict__.update(table.__dict__)
    del rollback.__dict__["__deepcopy__"]
    ranged = table.range_key_attr is not None
    rollback.items = defaultdict(dict, {h: dict(items) for h, items in table.items.items()} if ranged else table.items)
    for hash_key, range_key in keys:
        item = table.items.get(hash_key)
        if item is not None and ranged:
            item = item.get(range_key)
        if item is None:
            continue
        if ranged:
            rollback.items[hash_key][range_key] = copy.deepcopy(item)
        else:
            rollback.items[hash_key] = copy.deepcopy(item)
    copies.append(rollback)
    return rollback


def _transact_write_items(backend: DynamoDBBackend, transact_items: list[dict[str, Any]]) -> None:
    named: dict[str, list[tuple[DynamoType, Any]]] = defaultdict(list)
    copied_whole: set[str] = set()
    for entry in transact_items:
        for operation, request in entry.items():
            table = backend.tables.get(request.get("TableName", "")) if isinstance(request, dict) else None
            key = None if table is None else _named_key(table, operation, request)
            if table is not None and key is None:
                copied_whole.add(table.name)
            elif table is not None and key is not None:
                named[table.name].append(key)
    cheap = [
        backend.tables[name]
        for name in set(named) - copied_whole
        if backend.tables[name].stream_shard is None  # a stream's records roll back too
    ]
    for table in cheap:  # copy.deepcopy(table) asks the table itself first
        table.__dict__["__deepcopy__"] = partial(_copy_for_rollback, table, named[table.name], [])
    try:
        released(DynamoDBBackend, "transact_write_items")(backend, transact_items)
    finally:
        for table in cheap:
            table.__dict__.pop("__deepcopy__", None)


# ---- Update expressions

_PARSED: dict[str, Node] = {}
_PARSED_LIMIT = 4096


def _parse_update_expression(parser: type, expression: str) -> Node:
    """Each text parsed once: moto never changes a parsed expression (a validation works on a copy)."""
    parsed = _PARSED.get(expression)
    if parsed is None:
        if len(_PARSED) >= _PARSED_LIMIT:
            _PARSED.clear()
        parsed = _PARSED[expression] = released(UpdateExpressionParser, "make")(parser, expression)
    return parsed


def _copy_for_validation(value: Any, memo: Any = None) -> Any:
    """A syntax tree copied through pickle (the same tree, in a quarter of the time); anything else as before."""
    if isinstance(value, Node):
        return pickle.loads(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))  # noqa: S301 - a tree moto just made
    return copy.deepcopy(value, memo)


def _nodes(root: Node) -> Iterator[Node]:
    pending = [root]
    while pending:
        node = pending.pop()
        yield node
        pending.extend(child for child in node.children or [] if isinstance(child, Node))


def _no_clause_repeats(root: Node) -> bool:
    """At most one clause of each kind in the whole tree: then no node's count of them can be over one."""
    clauses = [type(node) for node in _nodes(root) if type(node) in _CLAUSES]
    return len(clauses) == len(set(clauses))


_CLAUSES = (UpdateExpressionAddClause, UpdateExpressionRemoveClause, UpdateExpressionSetClause)


def _count_clauses(validator: ActionCountValidator, root: Node) -> Node:
    if _no_clause_repeats(root):
        return root  # what the check of every node returns when it passes: the same tree
    return released(ActionCountValidator, "traverse")(validator, root)


_ACTIONS = (
    UpdateExpressionSetAction,
    UpdateExpressionAddAction,
    UpdateExpressionRemoveAction,
    UpdateExpressionDeleteAction,
)


def _no_path_repeats(validator: OverlappingPathsValidator, root: Node) -> bool:
    """No two actions of the whole tree on one path or on overlapping paths, read as moto reads them: then no
    node's actions can repeat one either."""
    names, plain = [], []
    try:
        for action in (node for node in _nodes(root) if type(node) in _ACTIONS):
            path = action.children[0]
            if isinstance(path.children[0], ExpressionAttributeName) and len(path.children) == 1:
                names.append(validator.expression_attribute_names[path.children[0].get_attribute_name_placeholder()])
            else:
                plain.append(path.to_str())
    except Exception:  # what moto makes of such a tree comes from moto's own code
        return False
    return not find_path_overlaps(plain) and not find_duplicates(plain + names)


def _check_paths(validator: OverlappingPathsValidator, root: Node) -> Node:
    if _no_path_repeats(validator, root):
        return root
    return released(OverlappingPathsValidator, "traverse")(validator, root)


_IS_NODE: dict[type, bool] = {}
_PROCESSED: dict[tuple[type, type], bool] = {}
_NO_HOOK = DepthFirstTraverser.pre_processing_of_child


def _traverse(traverser: DepthFirstTraverser, node: Any, child_id: int = -1) -> Any:
    """moto's depth-first walk, bottom up, as moto writes it, with each class's isinstance answers found once:
    `Node` is an ABC, and its isinstance checks were half of an update's validation (ten walks of its tree)."""
    kind = type(node)
    is_node = _IS_NODE.get(kind)
    if is_node is None:
        is_node = _IS_NODE[kind] = isinstance(node, Node)
    if not is_node:
        return node
    parent_node = node.parent
    if node.children is not None:
        hook = None if type(traverser).pre_processing_of_child is _NO_HOOK else traverser.pre_processing_of_child
        for i, child_node in enumerate(node.children):
            if hook is not None:
                hook(node, i)
            _traverse(traverser, child_node, i)
    processed = _PROCESSED.get((type(traverser), kind))
    if processed is None:
        processed = _PROCESSED[(type(traverser), kind)] = isinstance(node, traverser.nodes_to_be_processed())
    if processed:
        node = traverser.process(node)
        node.parent = parent_node
        if parent_node:
            parent_node.children[child_id] = node
    return node


def _node_types(traverser: DepthFirstTraverser) -> tuple[type, ...]:
    """The keys of the traverser's processing map (a literal per class), found once per traverser."""
    found = traverser.__dict__.get("_node_types")
    if found is None:
        found = traverser.__dict__["_node_types"] = released(DepthFirstTraverser, "nodes_to_be_processed")(traverser)
    return found


# ---- Replies

_TEXT_KINDS, _BLOB_KINDS = ("S", "N", "SS", "NS"), ("B", "BS")


def _wire_value(serializer: BaseJSONSerializer, value: Any) -> Any:
    """An attribute value as moto's serializer writes it (strings as they are, blobs in base64, the same for
    sets, maps and lists member by member), or None for anything it might write otherwise."""
    if type(value) is not dict or len(value) != 1:
        return None
    ((kind, inner),) = value.items()
    members = inner if kind in ("SS", "NS", "BS") and type(inner) is list else [inner]
    if kind in _TEXT_KINDS and all(type(member) is str for member in members):
        return {kind: inner if kind in ("S", "N") else list(inner)}
    if kind in _BLOB_KINDS and all(type(member) in (str, bytes) for member in members):
        encoded = [serializer._base64(member) for member in members]
        return {kind: encoded[0] if kind == "B" else encoded}
    if kind in ("NULL", "BOOL") and type(inner) is bool:
        return {kind: inner}
    if kind == "M" and type(inner) is dict:
        written = {name: _wire_value(serializer, member) for name, member in inner.items()}
        return {kind: written} if None not in written.values() else None
    if kind == "L" and type(inner) is list:
        listed = [_wire_value(serializer, member) for member in inner]
        return {kind: listed} if None not in listed else None
    return None


def _serialize_structure(
    serializer: BaseJSONSerializer, serialized: dict[str, Any], value: Any, shape: Any, key: str
) -> None:
    picker = serializer._value_picker
    plain = isinstance(picker, AttributePicker) and not picker.response_transformers
    if key and shape.name == "AttributeValue" and plain and picker.alias_providers is DEFAULT_ALIAS_PROVIDERS:
        written = _wire_value(serializer, value)
        if written is not None:
            serializer._default_serialize(serialized, written, shape, key)
            return
    released(BaseJSONSerializer, "_serialize_type_structure")(serializer, serialized, value, shape, key)


FAST: dict[tuple[Owner, str], Any] = {
    (Table, "query"): _query,
    (DynamoDBBackend, "transact_write_items"): _transact_write_items,
    (UpdateExpressionParser, "make"): classmethod(_parse_update_expression),
    (moto.dynamodb.parsing.validators, "deepcopy"): _copy_for_validation,
    (ActionCountValidator, "traverse"): _count_clauses,
    (OverlappingPathsValidator, "traverse"): _check_paths,
    (DepthFirstTraverser, "nodes_to_be_processed"): _node_types,
    (DepthFirstTraverser, "traverse_node_recursively"): _traverse,
    (moto.core.responses, "method_names_from_class"): cache(released(moto.core.responses, "method_names_from_class")),
    (BaseJSONSerializer, "_serialize_type_structure"): _serialize_structure,
}


def _install(functions: dict[tuple[Owner, str], Any]) -> None:
    for (owner, name), function in functions.items():
        if function is not INHERITED:
            setattr(owner, name, function)
        elif name in vars(owner):
            delattr(owner, name)


def speed_up_dynamodb() -> None:
    """Apply the speed-ups to moto in this process (again: no change)."""
    _install(FAST)


_VALID_DEFINITIONS: set[str] = set()


def speed_up_step_functions() -> None:
    """Imports moto's Step Functions interpreter (seconds: the caller chooses when) and validates each state
    machine definition once per text; an invalid one is refused as before, every time."""
    from moto.stepfunctions.parser.models import StepFunctionsParserBackend

    validate = vars(StepFunctionsParserBackend)["_validate_definition"].__func__
    if getattr(validate, "once_per_text", False):
        return

    def validate_once(definition: str) -> None:
        if definition not in _VALID_DEFINITIONS:
            validate(definition=definition)  # raises InvalidDefinition as moto does
            _VALID_DEFINITIONS.add(definition)

    validate_once.once_per_text = True  # type: ignore[attr-defined]
    validate_once.__wrapped__ = validate  # type: ignore[attr-defined]
    setattr(StepFunctionsParserBackend, "_validate_definition", staticmethod(validate_once))  # noqa: B010 - a method


@contextmanager
def released_moto() -> Iterator[None]:
    """moto's own code while the block runs (the contract test compares both), then what was there before."""
    before = {(owner, name): vars(owner).get(name, INHERITED) for owner, name in PATCHED}
    _install(RELEASED)
    _PARSED.clear()
    try:
        yield
    finally:
        _install(before)
