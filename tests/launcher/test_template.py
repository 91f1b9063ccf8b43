"""The launcher's part of template.yaml (issue 9): snapshots on an hourly EventBridge schedule, click events
from a queue with a dead-letter queue, and each function allowed only what it does."""

from local.template import Template

TEMPLATE = Template()


def properties(logical_id: str) -> dict:
    return TEMPLATE.resources[logical_id]["Properties"]


def actions(logical_id: str) -> dict[str, set[str]]:
    allowed: dict[str, set[str]] = {}
    for statement in properties(logical_id)["Policies"][0]["Statement"]:
        allowed.setdefault(statement["Resource"]["Fn::GetAtt"][0], set()).update(statement["Action"])
    return allowed


def test_snapshots_are_taken_hourly_by_default():
    scheduled = {function.logical_id: period for function, period in TEMPLATE.scheduled_functions()}
    assert scheduled["LauncherSnapshotFunction"] == 3600
    assert TEMPLATE.document["Parameters"]["LauncherSnapshotSchedule"]["Default"] == "rate(1 hour)"


def test_click_events_come_from_a_queue_whose_failures_reach_a_dead_letter_queue():
    consumers = dict((function.logical_id, queue) for queue, function in TEMPLATE.queue_consumers())
    assert consumers["LauncherClickConsumerFunction"] == "LauncherClickQueue"
    event = properties("LauncherClickConsumerFunction")["Events"]["Clicks"]["Properties"]
    assert event["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert properties("LauncherClickQueue")["RedrivePolicy"]["deadLetterTargetArn"] == {
        "Fn::GetAtt": ["LauncherClickDeadLetterQueue", "Arn"]
    }


def test_each_launcher_function_is_allowed_only_what_it_does():
    readers = {
        "LauncherTable": {"dynamodb:BatchGetItem", "dynamodb:Query"},  # the block with the registry pointer
        "RegistryTable": {"dynamodb:GetItem", "dynamodb:BatchGetItem"},
    }
    assert actions("LauncherPostersFunction") == readers
    assert actions("LauncherPosterFunction") == readers
    assert actions("LauncherClickConsumerFunction") == {"LauncherTable": {"dynamodb:PutItem", "dynamodb:UpdateItem"}}
    assert actions("LauncherSnapshotFunction") == {
        "LauncherTable": {"dynamodb:GetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:UpdateItem"}
    }  # UpdateItem: the counters forget their hours behind the day


def test_both_methods_are_served_in_json_and_xml_behind_the_optional_authorizer():
    paths = {route.path for function in TEMPLATE.functions() for route in function.routes}
    assert {
        "/launcher/1/posters.json",
        "/launcher/1/posters.xml",
        "/launcher/1/poster.json",
        "/launcher/1/poster.xml",
    } <= paths
    for logical_id in ("LauncherPostersFunction", "LauncherPosterFunction"):
        assert all("Auth" not in event["Properties"] for event in properties(logical_id)["Events"].values())
