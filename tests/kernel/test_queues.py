"""The edge of queue consumers: one failed message is handed back to SQS alone, the others are done."""

from ott.queues import each_message


def test_only_the_messages_that_failed_are_handed_back_for_another_delivery():
    done: list[str] = []

    def run(body: str) -> None:
        if body == "bad":
            raise ValueError("cannot handle this one")
        done.append(body)

    event = {
        "Records": [
            {"messageId": "m1", "body": "a"},
            {"messageId": "m2", "body": "bad"},
            {"messageId": "m3", "body": "b"},
        ]
    }
    assert each_message(event, run) == {"batchItemFailures": [{"itemIdentifier": "m2"}]}
    assert done == ["a", "b"]
