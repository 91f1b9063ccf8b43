"""The niche-content block of template.yaml (issue 10): the encoders' routes need an API key (spec document 3,
section 5) and no bearer token, each function may do only what it does, and the sweeper runs on a schedule."""

from local.template import Template

TEMPLATE = Template()


def properties(logical_id: str) -> dict:
    return TEMPLATE.resources[logical_id]["Properties"]


def statements(logical_id: str) -> list[dict]:
    return [statement for policy in properties(logical_id)["Policies"] for statement in policy["Statement"]]


def test_the_encoders_routes_require_an_api_key_and_no_bearer_token():
    routes = {}
    for function in TEMPLATE.functions():
        if function.logical_id in ("NicheContentListFunction", "NicheContentUpdateStatusFunction"):
            (event,) = properties(function.logical_id)["Events"].values()
            assert event["Properties"]["Auth"] == {"Authorizer": "NONE", "ApiKeyRequired": True}
            routes.update({(route.method, route.path): route.authorizer for route in function.routes})
    assert routes == {("GET", "/1/niche-content/list.json"): None, ("POST", "/1/niche-content/updateStatus.json"): None}


def test_each_function_may_do_only_what_it_does():
    table = {"Fn::GetAtt": ["NicheContentTable", "Arn"]}
    assert statements("NicheContentListFunction") == [
        {"Effect": "Allow", "Action": ["dynamodb:Query"], "Resource": table}
    ]
    assert statements("NicheContentUpdateStatusFunction") == [
        {
            "Effect": "Allow",
            "Action": ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:DeleteItem", "dynamodb:UpdateItem"],
            "Resource": table,
        }
    ]
    sweeper = statements("NicheContentSweeperFunction")
    assert sweeper[1] == {
        "Effect": "Allow",
        "Action": ["dynamodb:Query"],
        "Resource": {"Fn::Sub": "${NicheContentTable.Arn}/index/attention"},
    }
    assert "dynamodb:DeleteItem" not in sweeper[0]["Action"] + statements("NicheContentIntakeFunction")[0]["Action"]


def test_the_sweeper_runs_every_five_minutes_and_the_intake_reads_its_queue():
    schedules = {function.logical_id: period for function, period in TEMPLATE.scheduled_functions()}
    assert schedules["NicheContentSweeperFunction"] == 300
    consumers = {queue: function.logical_id for queue, function in TEMPLATE.queue_consumers()}
    assert consumers["NicheContentIntakeQueue"] == "NicheContentIntakeFunction"
