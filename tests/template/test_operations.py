"""template.yaml as operators need it (issue 7, Operations): every function names its service and keeps its
logs a bounded time, every queue consumer has a dead-letter queue someone is told about, the auth
authorizers keep concurrency a registry flood cannot take, and the alarms reach an encrypted topic."""

from typing import Any

import pytest

from local.template import Template

TEMPLATE = Template()
FUNCTIONS = TEMPLATE.of_type("AWS::Serverless::Function")
ALARMS = TEMPLATE.of_type("AWS::CloudWatch::Alarm")


def properties(logical_id: str) -> dict[str, Any]:
    return TEMPLATE.resources[logical_id].get("Properties", {})


def alarmed_dimensions() -> list[Any]:
    """The dimension values of every alarm, whether it watches one metric or a metric-math expression."""
    found = []
    for alarm in ALARMS.values():
        props = alarm["Properties"]
        stats = [props] + [query["MetricStat"]["Metric"] for query in props.get("Metrics", []) if "MetricStat" in query]
        found += [dimension["Value"] for stat in stats for dimension in stat.get("Dimensions", [])]
    return found


@pytest.mark.parametrize("logical_id", sorted(FUNCTIONS))
def test_every_function_logs_under_its_own_service_to_a_group_with_retention(logical_id):
    function = next(f for f in TEMPLATE.functions() if f.logical_id == logical_id)
    service = function.module.split(".")[1]  # functions.<service>.<method>.app
    assert function.environment["POWERTOOLS_SERVICE_NAME"] == service
    group = properties(logical_id)["LoggingConfig"]["LogGroup"]["Ref"]
    assert TEMPLATE.resources[group]["Type"] == "AWS::Logs::LogGroup"
    assert properties(group)["RetentionInDays"] == {"Ref": "LogRetentionDays"}


def test_every_queue_consumer_has_a_dead_letter_queue_with_a_depth_alarm():
    assert TEMPLATE.queue_consumers()
    for queue, _function in TEMPLATE.queue_consumers():
        dead_letter = properties(queue)["RedrivePolicy"]["deadLetterTargetArn"]["Fn::GetAtt"][0]
        assert {"Fn::GetAtt": [dead_letter, "QueueName"]} in alarmed_dimensions()


@pytest.mark.parametrize("logical_id", sorted(FUNCTIONS))
def test_every_function_errors_and_throttles_are_alarmed(logical_id):
    assert alarmed_dimensions().count({"Ref": logical_id}) == 2


def test_the_state_machine_and_the_api_are_alarmed():
    dimensions = alarmed_dimensions()
    assert {"Ref": "PhoneConfirmationStateMachine"} in dimensions
    assert properties("PlatformApi")["Name"] in dimensions


def test_the_bearer_authorizers_have_concurrency_of_their_own():
    """The required-bearer authorizer guards auth and phone routes; the registry's flood reaches only the
    optional one, and neither can be starved by the other functions, which are capped as well."""
    globals_ = TEMPLATE.document["Globals"]["Function"]
    reserved = {"Fn::If": ["ReservesFunctionConcurrency", {"Ref": "FunctionConcurrency"}, {"Ref": "AWS::NoValue"}]}
    assert globals_["ReservedConcurrentExecutions"] == reserved
    for authorizer in TEMPLATE.authorizers().values():
        assert properties(authorizer.function)["ReservedConcurrentExecutions"] == {
            "Fn::If": ["ReservesAuthorizerConcurrency", {"Ref": "AuthorizerConcurrency"}, {"Ref": "AWS::NoValue"}]
        }


def reserved_at_defaults(setting: Any) -> int:
    """What a function's ReservedConcurrentExecutions reserves with the template's default parameters."""
    if isinstance(setting, int):
        return setting
    condition, reserved, _ = setting["Fn::If"]
    parameter = condition.removeprefix("Reserves")  # ReservesFunctionConcurrency: FunctionConcurrency, ...
    if not int(TEMPLATE.parameters[parameter]):
        return 0
    return int(TEMPLATE.parameters[reserved["Ref"]]) if isinstance(reserved, dict) else int(reserved)


def test_what_the_functions_reserve_by_default_fits_an_account_of_1000():
    """Lambda refuses a reservation that leaves fewer than 100 of the account's 1000 default concurrent
    executions unreserved: a first deployment with the defaults must succeed."""
    default = TEMPLATE.document["Globals"]["Function"]["ReservedConcurrentExecutions"]
    total = sum(reserved_at_defaults(properties(f).get("ReservedConcurrentExecutions", default)) for f in FUNCTIONS)
    assert 0 < total <= 900


def test_alarms_reach_an_encrypted_topic_and_the_support_topic_is_encrypted():
    assert all(alarm["Properties"]["AlarmActions"] == [{"Ref": "AlarmTopic"}] for alarm in ALARMS.values())
    assert properties("AlarmTopic")["KmsMasterKeyId"] == {"Ref": "AlarmKey"}
    assert properties("SupportTopic")["KmsMasterKeyId"] == "alias/aws/sns"


def test_the_api_writes_json_access_logs():
    setting = properties("PlatformApi")["AccessLogSetting"]
    assert setting["DestinationArn"] == {"Fn::GetAtt": ["ApiAccessLogs", "Arn"]}
    assert '"status": "$context.status"' in setting["Format"]


def test_the_stage_throttle_is_set_by_the_stack_s_parameters():
    """Operations: the account's quota and the client base decide the API's throttle, not the code."""
    (api,) = TEMPLATE.of_type("AWS::Serverless::Api").values()
    (every_route,) = api["Properties"]["MethodSettings"]
    assert every_route["ThrottlingRateLimit"] == {"Ref": "ApiRateLimit"}
    assert every_route["ThrottlingBurstLimit"] == {"Ref": "ApiBurstLimit"}
    assert TEMPLATE.parameters["ApiRateLimit"] == "1000" and TEMPLATE.parameters["ApiBurstLimit"] == "2000"


def test_no_function_reading_the_registry_runs_longer_than_a_registry_load_waits_after_a_publish_for():
    """A function that took a cached version pointer reads with it until it returns: the wait between loads
    (ott.registry.store.publish_spacing) counts on LONGEST_REQUEST_SECONDS. The console's load runs for minutes,
    and takes no cached pointer: its store reads the pointer afresh (`registry_loader`)."""
    from ott.registry.store import registry_loader
    from ott.storage.versioned import LONGEST_REQUEST_SECONDS

    assert not registry_loader()._cached
    default = TEMPLATE.document["Globals"]["Function"]["Timeout"]
    readers = [
        function
        for function in TEMPLATE.functions()
        if "REGISTRY_TABLE" in function.environment and function.logical_id != "RegistryLoadFunction"
    ]
    assert readers
    for function in readers:
        assert properties(function.logical_id).get("Timeout", default) <= LONGEST_REQUEST_SECONDS, function.logical_id
