"""`make bench`: its helpers stand apart from the tests, and it prints its tables and nothing else."""

import ast
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT

TABLE_ROW = re.compile(r"^.{40} +\d+  \S")


def test_the_benchmarks_import_nothing_from_the_tests():
    imported = set()
    for path in (ROOT / "bench").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
    assert imported and not {name for name in imported if name.split(".")[0] == "tests"}


@pytest.mark.slow
def test_the_dynamodb_table_is_all_the_benchmark_prints():
    # The functions run in-process there: Powertools' metric lines and logs must not land between the rows.
    run = subprocess.run(
        [sys.executable, "-c", "from bench.dynamodb_calls import report_dynamodb_calls; report_dynamodb_calls()"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    title, header, *rows = [line for line in run.stdout.splitlines() if line]
    assert (title, header) == (
        "DynamoDB calls per request (demo data in moto)",
        f"{'request':40} {'calls':>5}  operations",
    )
    assert rows and [row for row in rows if not TABLE_ROW.match(row)] == []
    assert run.stderr == ""
