"""The template's access for machine clients (issue 10, Access): API keys with a usage plan that throttles
and sets a quota on the API's stage, and /channels requires a key and no bearer token."""

from local.template import Template

TEMPLATE = Template()


def properties(logical_id: str) -> dict:
    return TEMPLATE.resources[logical_id]["Properties"]


def test_the_usage_plan_throttles_and_sets_a_quota_on_the_apis_stage():
    plan = properties("MachineClientsUsagePlan")
    assert plan["ApiStages"] == [{"ApiId": {"Ref": "PlatformApi"}, "Stage": {"Ref": "PlatformApi.Stage"}}]
    assert plan["Throttle"]["RateLimit"] > 0 and plan["Throttle"]["BurstLimit"] >= plan["Throttle"]["RateLimit"]
    assert plan["Quota"]["Limit"] > 0 and plan["Quota"]["Period"] == "DAY"


def test_both_machine_clients_have_a_key_in_the_plan():
    keys = {
        properties(name)["KeyId"]["Ref"]
        for name in TEMPLATE.of_type("AWS::ApiGateway::UsagePlanKey")
        if properties(name)["UsagePlanId"] == {"Ref": "MachineClientsUsagePlan"}
    }
    assert keys == {"StreamAuthorizationApiKey", "EncoderApiKey"}
    assert all(properties(key)["Enabled"] is True and "Value" not in properties(key) for key in keys)


def test_channels_requires_an_api_key_and_no_bearer_authorizer():
    (route,) = [route for f in TEMPLATE.functions() for route in f.routes if route.path == "/channels"]
    assert route.method == "GET" and route.api_key_required and route.authorizer is None
    assert "INVALID_API_KEY" in TEMPLATE.gateway_responses()
    assert TEMPLATE.gateway_responses()["INVALID_API_KEY"]["StatusCode"] == "403"


def test_the_function_reads_its_table_and_nothing_else():
    statements = properties("ChannelsListFunction")["Policies"][0]["Statement"]
    assert statements == [
        {
            "Effect": "Allow",
            "Action": ["dynamodb:GetItem", "dynamodb:BatchGetItem"],
            "Resource": {"Fn::GetAtt": ["ChannelsTable", "Arn"]},
        }
    ]


def test_the_api_gzips_playlists_for_players_that_accept_it():
    """Issue 29: API Gateway compresses a reply from MinimumCompressionSize bytes when the request's Accept-Encoding
    allows: a playlist's every channel is two lines of well over a hundred bytes."""
    assert properties("PlatformApi")["MinimumCompressionSize"] == 1024
