"""Our own CPU time per token request: the whole handler (decorators, form parsing, client check, token
generation and hashing, item serialisation, the reply) with DynamoDB answered by an in-memory stub."""

import json
import os
import time
from typing import Any
from urllib.parse import urlencode

from bench import QUIET, quiet
from local.template import REGION, Template

REQUESTS = 2000
BAR = 1000  # token requests per second per core


class StubDynamoDB:
    """Just enough of the DynamoDB client for the token path, in memory and without network."""

    class exceptions:  # noqa: N801 - mirrors the boto3 client's attribute
        ConditionalCheckFailedException = type("ConditionalCheckFailedException", (Exception,), {})
        TransactionCanceledException = type("TransactionCanceledException", (Exception,), {})

    def __init__(self) -> None:
        self.items: dict[str, dict[str, Any]] = {}

    def get_item(self, TableName: str, Key: dict, **_: Any) -> dict:  # noqa: N803 - boto3's argument names
        item = self.items.get(Key["pk"]["S"])
        return {"Item": item} if item else {}

    def batch_get_item(self, RequestItems: dict) -> dict:  # noqa: N803
        ((table, request),) = RequestItems.items()
        found = [self.items[key["pk"]["S"]] for key in request["Keys"] if key["pk"]["S"] in self.items]
        return {"Responses": {table: found}}

    def put_item(self, TableName: str, Item: dict, **_: Any) -> dict:  # noqa: N803
        self.items[Item["pk"]["S"]] = Item
        return {}

    def delete_item(self, TableName: str, Key: dict, **_: Any) -> dict:  # noqa: N803
        self.items.pop(Key["pk"]["S"], None)
        return {}

    def transact_write_items(self, TransactItems: list) -> dict:  # noqa: N803
        for operation in TransactItems:
            if "Put" in operation:
                self.put_item(**operation["Put"])
            else:
                self.delete_item(**operation["Delete"])
        return {}

    def update_item(self, TableName: str, Key: dict, **_: Any) -> dict:  # noqa: N803
        item = self.items.setdefault(Key["pk"]["S"], {"pk": Key["pk"], "n": {"N": "0"}, "ttl": {"N": "0"}})
        item["n"] = {"N": str(int(item["n"]["N"]) + 1)}
        return {"Attributes": item}


def report_token_cpu() -> int:
    os.environ.update({"AWS_DEFAULT_REGION": REGION, "ANONYMOUS_ACCOUNTS_PER_IP_PER_HOUR": str(10**9)})
    os.environ.update({**Template().environment(), **QUIET})
    from functions.auth.token import app
    from local.invoke import context, sample_event
    from ott.auth.admin import register_client
    from ott.auth.store import auth_records
    from ott.aws import use_client
    from ott.config import reset_settings
    from ott.storage.dynamo import DynamoDatabase

    stub = StubDynamoDB()
    use_client("dynamodb", stub)
    reset_settings()  # the raised anonymous limit above
    grants = ["vendor:anonymous", "refresh_token"]
    store = auth_records(DynamoDatabase(stub), os.environ["AUTH_TABLE"])
    register_client(store, "bench-tv", "Bench", grants, secret="bench-secret")
    event = sample_event("auth/token")
    credentials = {"client_id": "bench-tv", "client_secret": "bench-secret"}

    def request(fields: dict[str, str]) -> dict:
        reply = app.lambda_handler({**event, "body": urlencode({**credentials, **fields})}, context("auth/token"))
        if reply["statusCode"] != 200:
            raise RuntimeError(reply["body"])
        return json.loads(reply["body"])

    failures = 0
    print("\nToken requests, our own CPU with DynamoDB stubbed (bar: >= 1000 per second per core)")
    with quiet():
        refresh_token = request({"grant_type": "vendor:anonymous"})["refresh_token"]
        results = {}
        for grant in ("vendor:anonymous", "refresh_token"):
            started = time.process_time()
            for _ in range(REQUESTS):
                if grant == "refresh_token":
                    refresh_token = request({"grant_type": grant, "refresh_token": refresh_token})["refresh_token"]
                else:
                    request({"grant_type": grant})
            results[grant] = REQUESTS / (time.process_time() - started)
    for grant, rate in results.items():
        failures += rate < BAR
        print(f"{grant:32} {rate:8.0f} per second  {'ok' if rate >= BAR else 'MISSED'}")
    return failures
