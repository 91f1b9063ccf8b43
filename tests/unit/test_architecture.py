"""The layer's shape (docs/adding-a-service.md): the kernel imports no service, and a service imports of
another service only that service's published domain functions."""

import ast
from pathlib import Path

import pytest

OTT = Path(__file__).resolve().parents[2] / "layers" / "shared" / "ott"
SERVICES = sorted(path.name for path in OTT.iterdir() if path.is_dir() and path.name not in {"http", "__pycache__"})
# What one service may call of another: a domain function with a clear name, never internals.
PUBLISHED = {"ott.registry.location"}


def imported_modules(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
        elif isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
    return modules


def service_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "ott" and parts[1] in SERVICES else None


def kernel_files() -> list[Path]:
    return [*OTT.glob("*.py"), *(OTT / "http").glob("*.py")]


@pytest.mark.parametrize("path", kernel_files(), ids=lambda path: str(path.relative_to(OTT)))
def test_the_kernel_imports_no_service(path):
    assert {module for module in imported_modules(path) if service_of(module)} == set()


@pytest.mark.parametrize("service", SERVICES)
def test_a_service_uses_only_what_another_service_publishes(service):
    foreign = {
        module
        for path in (OTT / service).rglob("*.py")
        for module in imported_modules(path)
        if service_of(module) not in (None, service) and module not in PUBLISHED
    }
    assert foreign == set()
