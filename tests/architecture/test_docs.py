"""The documents read as they stand (docs/adding-a-service.md): each service has docs/<service>.md; every path or
module the docs and the README name in backticks exists; adding-a-service.md counts the services and names the
published modules as the architecture test does; every relative markdown link resolves."""

import re
from pathlib import Path

import pytest

from tests.architecture.test_architecture import PUBLISHED, SERVICES

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
DOCUMENTS = sorted([ROOT / "README.md", *DOCS.glob("*.md")])
ADDING = DOCS / "adding-a-service.md"
NUMBERS = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}
# A path in backticks starts with one of these folders; placeholders (<service>), globs and `...` are patterns.
NAMED_PATH = re.compile(r"`((?:functions|tests|layers|events|ops|bench)/[^`\s]*)`")
NAMED_MODULE = re.compile(r"`(?:python -m )?((?:ops|ott)\.[A-Za-z_][\w.]*)")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def ids(path: Path) -> str:
    return str(path.relative_to(ROOT))


def is_pattern(text: str) -> bool:
    return any(mark in text for mark in "<>*{}…") or "..." in text


@pytest.mark.parametrize("service", SERVICES)
def test_every_service_has_its_document(service):
    assert (DOCS / f"{service}.md").is_file()


@pytest.mark.parametrize("document", DOCUMENTS, ids=ids)
def test_every_path_named_in_backticks_exists(document):
    named = {match.rstrip(".,:;") for match in NAMED_PATH.findall(document.read_text(encoding="utf-8"))}
    missing = {path for path in named if not is_pattern(path) and not (ROOT / path.split("::")[0]).exists()}
    assert missing == set()


def module_exists(module: str) -> bool:
    """ops.<service>.<command>, or a module, package or a name in one of the layer's `ott`."""
    parts = module.rstrip(".").split(".")
    base = ROOT if parts[0] == "ops" else ROOT / "layers" / "shared"
    for end in range(len(parts), 0, -1):
        path = base.joinpath(*parts[:end])
        if path.with_suffix(".py").is_file() or (path / "__init__.py").is_file():
            return True
    return False


@pytest.mark.parametrize("document", DOCUMENTS, ids=ids)
def test_every_module_named_in_backticks_exists(document):
    named = set(NAMED_MODULE.findall(document.read_text(encoding="utf-8")))
    assert {module for module in named if not module_exists(module)} == set()


def test_every_ops_command_named_is_a_module():
    """Commands are named as `python -m ops.<service>.<command>` runs them: the module itself must exist."""
    for document in DOCUMENTS:
        for module in re.findall(r"\bops\.([a-z]+)\.([a-z_]+)\b", document.read_text(encoding="utf-8")):
            assert (ROOT / "ops" / module[0] / f"{module[1]}.py").is_file(), (document.name, module)


def test_adding_a_service_counts_the_services_and_names_the_published_modules():
    text = ADDING.read_text(encoding="utf-8")
    assert f"All {NUMBERS[len(SERVICES)]} services" in text
    assert not re.search(rf"\b({'|'.join(word for n, word in NUMBERS.items() if n != len(SERVICES))}) services\b", text)
    sharing = text[text.index("## Sharing between services") :]
    sharing = sharing[: sharing.index("\n## ", 1)]
    assert set(re.findall(r"\[`(ott\.[\w.]+)`\]", sharing)) == PUBLISHED
    for service in SERVICES:
        assert f"| {service} |" in text, f"the table of services lacks {service}"


@pytest.mark.parametrize("document", DOCUMENTS, ids=ids)
def test_every_relative_link_resolves(document):
    broken = set()
    for target in LINK.findall(document.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        if not (document.parent / target.split("#")[0]).exists():
            broken.add(target)
    assert broken == set()


# `docs/<name>.md, "<heading>"`, as code and the template point to the decision behind them.
POINTER = re.compile(r'docs/([\w-]+\.md), "([^"]+)"')
CODE = sorted(
    path
    for path in [*(ROOT / "layers").rglob("*.py"), *(ROOT / "functions").rglob("*.py"), ROOT / "template.yaml"]
    if "__pycache__" not in path.parts
)


def headings(document: Path) -> set[str]:
    return {line.lstrip("#").strip() for line in document.read_text(encoding="utf-8").splitlines() if line[:1] == "#"}


@pytest.mark.parametrize("path", CODE, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_pointer_from_the_code_names_a_heading_of_its_document(path):
    pointers = POINTER.findall(path.read_text(encoding="utf-8"))
    missing = [
        (name, heading)
        for name, heading in pointers
        if " ".join(heading.split()) not in headings(DOCS / name)
        if (DOCS / name).is_file()
    ]
    assert missing == [] and all((DOCS / name).is_file() for name, _ in pointers)
