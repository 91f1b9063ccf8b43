"""The kernel's BatchGetItem across tables: keys DynamoDB hands back unprocessed are asked for again, with
their table's options, until every item is read."""

from ott import recordstore
from ott.recordstore import batch_get


class Throttled:
    """A DynamoDB client that hands back the second table's keys unprocessed the first time."""

    def __init__(self) -> None:
        self.requests: list[dict] = []

    def batch_get_item(self, RequestItems):  # noqa: N803 - boto3's parameter name
        self.requests.append(RequestItems)
        if len(self.requests) == 1:
            return {
                "Responses": {"launcher": [{"pk": {"S": "BLOCK"}}], "registry": []},
                "UnprocessedKeys": {"registry": RequestItems["registry"]},
            }
        return {"Responses": {"registry": [{"pk": {"S": "INDEX"}}]}, "UnprocessedKeys": {}}


def test_unprocessed_keys_are_asked_for_again_with_their_tables_options(monkeypatch):
    pauses: list[float] = []
    monkeypatch.setattr(recordstore.time, "sleep", pauses.append)
    dynamodb = Throttled()
    requests = {
        "launcher": {"Keys": [{"pk": {"S": "BLOCK"}}], "ConsistentRead": True},
        "registry": {"Keys": [{"pk": {"S": "INDEX"}}], "ConsistentRead": True},
    }
    found = batch_get(dynamodb, requests)
    assert found == {"launcher": [{"pk": {"S": "BLOCK"}}], "registry": [{"pk": {"S": "INDEX"}}]}
    assert dynamodb.requests == [requests, {"registry": requests["registry"]}]
    assert len(pauses) == 1 and pauses[0] > 0


def test_a_table_with_no_item_found_answers_an_empty_list():
    class Empty:
        def batch_get_item(self, RequestItems):  # noqa: N803
            return {"Responses": {}}

    assert batch_get(Empty(), {"launcher": {"Keys": [{"pk": {"S": "BLOCK"}}]}}) == {"launcher": []}
