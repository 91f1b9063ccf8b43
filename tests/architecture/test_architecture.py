"""The layer's shape (docs/adding-a-service.md): the kernel imports no service; a service (its package and
its handlers) imports of another service only the names that service publishes (`__all__` of a published
module); only a service's edge module imports the HTTP edge; every service and every function has the
documented files."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OTT = ROOT / "layers" / "shared" / "ott"
# The kernel's packages: the HTTP edge and the storage layer. Every other package is a service.
KERNEL_PACKAGES = ("http", "storage")
SERVICES = sorted(
    path.name for path in OTT.iterdir() if path.is_dir() and path.name not in {*KERNEL_PACKAGES, "__pycache__"}
)
# The modules through which one service may call another: domain functions with clear names, never internals.
PUBLISHED = {"ott.registry.location", "ott.tvguide.summaries", "ott.auth.playlist_access"}
# The one module of a service that may import `ott.http`: the caller and each method's reply with its headers.
EDGE = "edge"
# What every service keeps. Its domain is service.py, or, once it outgrew one module, modules by concern that
# its package docstring names (auth: tokens, device, login, account, metadata).
SERVICE_FILES = {"__init__.py", "models.py", "store.py"}
DOMAIN_BY_CONCERN = {"auth"}
FUNCTIONS = ROOT / "functions"
HANDLER_LINES = range(12, 31)


def imports(path: Path) -> set[tuple[str, str | None]]:
    """(module, name) of every import; the name is None for `import module`."""
    found: set[tuple[str, str | None]] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.update((node.module, alias.name) for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update((alias.name, None) for alias in node.names)
    return found


def service_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "ott" and parts[1] in SERVICES else None


def published_names(module: str) -> set[str]:
    tree = ast.parse((OTT.parent / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            return set(ast.literal_eval(node.value))
    return set()


def kernel_files() -> list[Path]:
    return [*OTT.glob("*.py"), *(path for package in KERNEL_PACKAGES for path in (OTT / package).glob("*.py"))]


def test_the_storage_layer_is_kernel_not_a_service():
    assert "storage" not in SERVICES
    assert OTT / "storage" / "database.py" in kernel_files()


def files_of(service: str) -> list[Path]:
    return [*(OTT / service).rglob("*.py"), *(FUNCTIONS / service).rglob("*.py")]


def service_modules() -> list[Path]:
    return sorted(path for service in SERVICES for path in (OTT / service).rglob("*.py"))


@pytest.mark.parametrize("path", kernel_files(), ids=lambda path: str(path.relative_to(OTT)))
def test_the_kernel_imports_no_service(path):
    assert {module for module, _ in imports(path) if service_of(module)} == set()


@pytest.mark.parametrize("service", SERVICES)
def test_a_service_uses_only_what_another_service_publishes(service):
    foreign = {
        (module, name)
        for path in files_of(service)
        for module, name in imports(path)
        if service_of(module) not in (None, service) and not (module in PUBLISHED and name in published_names(module))
    }
    assert foreign == set()


def test_every_handler_belongs_to_a_service():
    assert {path.name for path in FUNCTIONS.iterdir() if path.is_dir()} - set(SERVICES) == set()


@pytest.mark.parametrize("path", service_modules(), ids=lambda path: str(path.relative_to(OTT)))
def test_only_a_service_s_edge_module_imports_the_http_edge(path):
    """The domain returns domain values; headers, replies, rendering and caching policies are the edge's."""
    http = {module for module, _ in imports(path) if module == "ott.http" or module.startswith("ott.http.")}
    assert path.stem == EDGE or http == set()


@pytest.mark.parametrize("path", service_modules(), ids=lambda path: str(path.relative_to(OTT)))
def test_only_handlers_import_a_service_s_edge_module(path):
    assert {module for module, _ in imports(path) if module.split(".")[-1] == EDGE} == set()


@pytest.mark.parametrize("service", SERVICES)
def test_every_service_has_the_documented_files(service):
    names = {path.name for path in (OTT / service).glob("*.py")}
    domain = set() if service in DOMAIN_BY_CONCERN else {"service.py"}
    assert (SERVICE_FILES | domain) - names == set()


def method_folders() -> list[Path]:
    return sorted(path for path in FUNCTIONS.glob("*/*") if path.is_dir() and path.name != "__pycache__")


@pytest.mark.parametrize("folder", method_folders(), ids=lambda path: str(path.relative_to(FUNCTIONS)))
def test_every_function_is_a_service_method_folder_with_its_handler_and_a_sample_event(folder):
    """functions/<service>/<method>/app.py, and its sample event events/<service>/<method>.json."""
    assert folder.parent.name in SERVICES and folder.name.isidentifier()
    assert {path.name for path in folder.glob("*.py")} == {"app.py"}
    assert (ROOT / "events" / folder.parent.name / f"{folder.name}.json").is_file()


@pytest.mark.parametrize("path", sorted(FUNCTIONS.glob("*/*/app.py")), ids=lambda path: path.parent.name)
def test_a_handler_is_12_to_30_lines(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) in HANDLER_LINES


@pytest.mark.parametrize("path", sorted((ROOT / "local").rglob("*.py")), ids=lambda path: path.name)
def test_the_local_stack_imports_no_operator_command(path):
    """Operator commands may target the local stack (ops -> local), never the other way round."""
    assert {module for module, _ in imports(path) if module.split(".")[0] == "ops"} == set()


# Each service has one home in each top-level folder (docs/adding-a-service.md, "Where a service lives"); beside
# the services' folders, these hold what is no service's.
NOT_SERVICES = {
    "tests": {
        "architecture",
        "bench",
        "contract",
        "fixtures",
        "kernel",
        "local",
        "ops",
        "parsers",
        "platform",
        "samlocal",
        "template",
    },
    "bench": {"capacity", "load"},
}
VIEWS = OTT / "console" / "static" / "views"


def subfolders(folder: Path) -> set[str]:
    return {
        path.name for path in folder.iterdir() if path.is_dir() and path.name not in {"__pycache__", "node_modules"}
    }


@pytest.mark.parametrize("top", ["functions", "events", "tests", "ops", "bench"])
def test_a_top_level_folder_holds_a_folder_per_service_and_only_its_own_others(top):
    assert subfolders(ROOT / top) - set(SERVICES) - NOT_SERVICES.get(top, set()) == set()


def test_the_console_s_views_are_grouped_by_service():
    assert subfolders(VIEWS) - set(SERVICES) == set()
    assert {path.parent for path in VIEWS.rglob("*.js")} <= {VIEWS / service for service in SERVICES}


@pytest.mark.parametrize("service", SERVICES)
def test_every_service_has_its_tests_folder_and_its_events_mirror_its_functions(service):
    assert (ROOT / "tests" / service / "__init__.py").is_file()
    events = {path.stem for path in (ROOT / "events" / service).glob("*.json")}
    assert events == {path.name for path in (FUNCTIONS / service).iterdir() if (path / "app.py").is_file()}


def test_operator_commands_are_named_by_service():
    """ops/<service>/<command>.py; at the top of ops/ only what every command shares."""
    shared = {"__init__.py", "command.py", "documents.py", "target.py"}
    assert {path.name for path in (ROOT / "ops").glob("*.py")} == shared
    commands = [path for path in (ROOT / "ops").glob("*/*.py") if path.name != "__init__.py"]
    assert commands and {path.parent.name for path in commands} <= set(SERVICES)
