"""DynamoDatabase's BatchGetItem across tables: keys DynamoDB hands back unprocessed are asked for again, with
their table's options, until every item is read."""

from ott.storage import Table
from ott.storage.dynamo import DynamoDatabase

LAUNCHER, REGISTRY = Table("launcher", "pk"), Table("registry", "pk")


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


class Paused(DynamoDatabase):
    def __init__(self, client) -> None:
        super().__init__(client)
        self.pauses: list[float] = []

    def pause(self, seconds: float) -> None:
        self.pauses.append(seconds)


def test_unprocessed_keys_are_asked_for_again_with_their_tables_options():
    dynamodb = Throttled()
    database = Paused(dynamodb)
    found = database.batch_get({LAUNCHER: [{"pk": "BLOCK"}], REGISTRY: [{"pk": "INDEX"}]}, consistent=True)
    assert found == {"launcher": [{"pk": "BLOCK"}], "registry": [{"pk": "INDEX"}]}
    requests = {
        "launcher": {"Keys": [{"pk": {"S": "BLOCK"}}], "ConsistentRead": True},
        "registry": {"Keys": [{"pk": {"S": "INDEX"}}], "ConsistentRead": True},
    }
    assert dynamodb.requests == [requests, {"registry": requests["registry"]}]
    assert len(database.pauses) == 1 and database.pauses[0] > 0


def test_a_table_with_no_item_found_answers_an_empty_list():
    class Empty:
        def batch_get_item(self, RequestItems):  # noqa: N803
            return {"Responses": {}}

    assert DynamoDatabase(Empty()).batch_get({LAUNCHER: [{"pk": "BLOCK"}]}) == {"launcher": []}
