"""template.yaml as CloudFormation and SAM expand it: `Fn::ForEach` expanded as cfn-lint (what `make lint` checks
the template with) expands it, the Globals merged by SAM's rules; then what the expanded template must do, checked
against the code rather than restated: every function's permissions reach exactly the resources its code is told of,
every route and every function folder is deployed, every function has its log group and alarms, every service its
5xx alarm.

How a function's reach is derived (no table of functions to keep in step): a function finds its resources only
through its environment (settings models read variables by alias, `ott.config`). So
- every variable a function is given, other than the Globals' and its service's name, is one that its handler's
  code reads: an alias of a settings field in the handler or in an `ott` module it imports, transitively;
- every resource a policy grants on is one its environment names, or the bucket whose uploads its queue announces
  (nothing else), but for the actions that have no
  resource to scope to (task tokens, SMS to a number), granted on "*" and nothing more;
- every table, queue, bucket, secret or state machine its environment names has a grant (the code can reach it),
  but what NAMED_NOT_CALLED lists (a shared settings model names more than some of its functions call);
- every action is of the service of the resource it is granted on (dynamodb on tables, s3 on buckets...).
Which DynamoDB actions a function needs is not derived: every store goes through one adapter
(ott/storage/dynamo.py), so the code's text cannot tell them apart; the template's comments give the reasons."""

import ast
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cfnlint.template.transforms._language_extensions import language_extension

from local.template import REGION, Template, expand_language_extensions, load

ROOT = Path(__file__).resolve().parents[2]
LAYER = ROOT / "layers" / "shared"
DOCUMENT = load()
TEMPLATE = Template(DOCUMENT)
FUNCTIONS = TEMPLATE.of_type("AWS::Serverless::Function")
# Every function's variables: the Globals' and its service's name (test_operations.py checks that one).
SHARED_VARIABLES = {*DOCUMENT["Globals"]["Function"]["Environment"]["Variables"], "POWERTOOLS_SERVICE_NAME"}
# Actions with no resource to scope to: a task token is not an ARN, an SMS goes to a phone number.
UNSCOPED_ACTIONS = {"states:SendTaskSuccess", "states:SendTaskFailure", "sns:Publish"}
# The service whose actions each kind of resource takes.
SERVICE_OF = {
    "AWS::DynamoDB::Table": "dynamodb",
    "AWS::SQS::Queue": "sqs",
    "AWS::S3::Bucket": "s3",
    "AWS::SecretsManager::Secret": "secretsmanager",
    "AWS::Serverless::StateMachine": "states",
}
# Named in the environment for another purpose than a call: the console's page lists the upload buckets' origins;
# the phone service's one settings model (and the registry's store settings) name resources some of their
# functions never call, and those functions may not act on them.
NAMED_NOT_CALLED = {
    ("ConsoleFilesFunction", "CONSOLE_UPLOAD_BUCKETS"),
    ("PhoneChannelWorkerFunction", "STATE_MACHINE_ARN"),
    ("PhoneCheckCodeFunction", "STATE_MACHINE_ARN"),
    ("PhoneConfirmFunction", "AUTH_TABLE"),
    ("PhoneConfirmFunction", "PHONE_KEYS_SECRET"),
    ("PhoneVerifyFunction", "AUTH_TABLE"),
    ("PhoneVerifyFunction", "STATE_MACHINE_ARN"),
    ("PhoneVerifyFunction", "PHONE_KEYS_SECRET"),
    ("RegistryStaffLoadFunction", "REGISTRY_TABLE"),
    ("RegistryStaffUploadFunction", "REGISTRY_TABLE"),
}
ALIAS = re.compile(r"""alias=["']([A-Z][A-Z0-9_]*)["']""")


def cfn_lint_expansion(document: dict[str, Any]) -> dict[str, Any]:
    problems, expanded = language_extension(SimpleNamespace(template=document, regions=[REGION], filename=None))
    assert not problems, problems
    return expanded


def plain(node: Any) -> Any:
    """A `Fn::Sub` left with no variable is its string (cfn-lint writes it so, CloudFormation evaluates it so)."""
    if isinstance(node, dict):
        if list(node) == ["Fn::Sub"] and isinstance(node["Fn::Sub"], str) and "${" not in node["Fn::Sub"]:
            return node["Fn::Sub"]
        return {key: plain(value) for key, value in node.items()}
    if isinstance(node, list):
        return [plain(item) for item in node]
    return node


def named(value: Any) -> str:
    """The logical id or parameter a value names (`!Ref X`, `!GetAtt X.Arn`), a Sub's text, or the literal."""
    if isinstance(value, str):
        return value
    if "Fn::GetAtt" in value:
        return value["Fn::GetAtt"][0]
    return value.get("Ref") or value["Fn::Sub"]


def test_the_template_expands_as_cfn_lint_expands_it():
    reference = cfn_lint_expansion(DOCUMENT)
    ours = expand_language_extensions(DOCUMENT)
    for section in ("Resources", "Outputs", "Conditions"):
        assert plain(ours.get(section)) == plain(reference.get(section))


NESTED_LOOPS = {
    "Resources": {
        "Fn::ForEach::Functions": [
            "Function",
            ["AFunction", "BFunction"],
            {
                "${Function}Logs": {
                    "Type": "AWS::Logs::LogGroup",
                    "Properties": {"LogGroupName": {"Fn::Sub": "/ott/${AWS::StackName}/${Function}"}},
                },
                "Fn::ForEach::Alarms": [
                    "Metric",
                    ["Errors", "Throttles"],
                    {
                        "${Function}${Metric}Alarm": {
                            "Type": "AWS::CloudWatch::Alarm",
                            "Properties": {
                                "MetricName": {"Ref": "Metric"},
                                "Dimensions": [{"Name": "FunctionName", "Value": {"Ref": {"Fn::Sub": "${Function}"}}}],
                                "AlarmActions": [{"Ref": "AlarmTopic"}],
                            },
                        }
                    },
                ],
            },
        ]
    }
}


def alarm(function: str, metric: str) -> dict[str, Any]:
    dimensions = [{"Name": "FunctionName", "Value": {"Ref": function}}]
    properties = {"MetricName": metric, "Dimensions": dimensions, "AlarmActions": [{"Ref": "AlarmTopic"}]}
    return {"Type": "AWS::CloudWatch::Alarm", "Properties": properties}


def test_nested_loops_put_each_item_in_keys_sub_strings_and_refs_as_cloudformation_documents():
    """The identifier stands for the item in `${Identifier}`, alone in `Ref`, and a Ref of a Sub that is left
    with no variable names that resource; the stack's own variables stay for CloudFormation."""
    expected = {
        f"{function}Logs": {
            "Type": "AWS::Logs::LogGroup",
            "Properties": {"LogGroupName": {"Fn::Sub": f"/ott/${{AWS::StackName}}/{function}"}},
        }
        for function in ("AFunction", "BFunction")
    }
    expected |= {f"{f}{m}Alarm": alarm(f, m) for f in ("AFunction", "BFunction") for m in ("Errors", "Throttles")}
    assert plain(expand_language_extensions(NESTED_LOOPS)["Resources"]) == expected
    assert plain(cfn_lint_expansion(NESTED_LOOPS)["Resources"]) == expected


def test_ampersand_takes_the_item_without_its_non_alphanumeric_characters():
    document = {
        "Resources": {"Fn::ForEach::Topics": ["Name", ["a.b", "c-d"], {"Topic&{Name}": {"Type": "AWS::SNS::Topic"}}]}
    }
    expected = {"Topicab": {"Type": "AWS::SNS::Topic"}, "Topiccd": {"Type": "AWS::SNS::Topic"}}
    assert expand_language_extensions(document)["Resources"] == expected
    assert cfn_lint_expansion(document)["Resources"] == expected


def test_a_logical_id_made_twice_is_refused():
    document = {
        "Resources": {
            "Fn::ForEach::A": ["Name", ["X", "X"], {"Topic${Name}": {"Type": "AWS::SNS::Topic"}}],
        }
    }
    with pytest.raises(ValueError, match="TopicX is made twice"):
        expand_language_extensions(document)
    problems, _ = language_extension(SimpleNamespace(template=document, regions=[REGION], filename=None))
    assert problems


def test_a_collection_that_is_not_a_literal_list_is_refused_rather_than_guessed():
    document = {
        "Resources": {"Fn::ForEach::A": ["Name", {"Ref": "Names"}, {"Topic${Name}": {"Type": "AWS::SNS::Topic"}}]}
    }
    with pytest.raises(ValueError, match="literal list"):
        expand_language_extensions(document)


def test_the_language_extensions_transform_is_applied_and_sam_s_is_left():
    """What `make checkov` scans: the template as CloudFormation hands it to SAM, every resource in sight."""
    expanded = expand_language_extensions(DOCUMENT)
    assert DOCUMENT["Transform"] == ["AWS::LanguageExtensions", "AWS::Serverless-2016-10-31"]
    assert expanded["Transform"] == ["AWS::Serverless-2016-10-31"]
    assert expanded["Globals"] == DOCUMENT["Globals"]
    assert set(expanded["Resources"]) == set(TEMPLATE.resources)
    assert not any(key.startswith("Fn::ForEach") for key in expanded["Resources"])


def test_the_api_stage_name_is_read_back_so_the_transform_cannot_rename_the_stage():
    """AWS::LanguageExtensions folds `!Ref StageName` into a literal before SAM runs, and SAM names the stage of a
    literal name PlatformApi<name>Stage: a deployed stack's PlatformApiStage would get a second stage of the same
    name, which API Gateway refuses. Read back from a resource, the name stays an intrinsic no transform folds."""
    assert TEMPLATE.resources["PlatformApi"]["Properties"]["StageName"] == {"Fn::GetAtt": ["ApiStageName", "Value"]}
    assert TEMPLATE.resources["ApiStageName"]["Properties"]["Value"] == {"Ref": "StageName"}


def test_globals_reach_a_function_by_sam_s_rules():
    """SAM: the function's own value wins, maps are merged, lists are joined (the Globals' first)."""
    document = {
        "Globals": {
            "Function": {
                "Handler": "app.lambda_handler",
                "Timeout": 10,
                "Layers": ["Shared"],
                "Environment": {"Variables": {"A": "global", "B": "global"}},
            }
        },
        "Resources": {
            "F": {
                "Type": "AWS::Serverless::Function",
                "Properties": {"Handler": "app.other", "Layers": ["Own"], "Environment": {"Variables": {"B": "own"}}},
            }
        },
    }
    properties = Template(document).resources["F"]["Properties"]
    assert properties["Handler"] == "app.other"
    assert properties["Timeout"] == 10
    assert properties["Layers"] == ["Shared", "Own"]
    assert properties["Environment"]["Variables"] == {"A": "global", "B": "own"}


def test_every_function_runs_the_global_handler_but_the_authorizers():
    handlers = {function.logical_id: function.attribute for function in TEMPLATE.functions()}
    assert handlers.pop("AuthBearerAuthorizerFunction") == "required"
    assert handlers.pop("AuthOptionalBearerAuthorizerFunction") == "optional"
    assert set(handlers.values()) == {"lambda_handler"}


def module_file(name: str) -> Path | None:
    for base in (LAYER, ROOT):
        path = base.joinpath(*name.split("."))
        for candidate in (path.with_suffix(".py"), path / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


def imported(path: Path) -> set[str]:
    """The `ott` modules a file imports (`from ott.a import b` may import the module ott.a.b)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in names if name.split(".")[0] == "ott"}


def variables_read(handler: Path) -> set[str]:
    """Every settings alias in the handler and in the `ott` modules it reaches through its imports (and their
    packages' __init__). An upper bound of what the code may read, so a variable outside it is read by nothing."""
    seen: set[Path] = set()
    todo = [handler]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in imported(path):
            parts = name.split(".")
            for depth in range(1, len(parts) + 1):
                found = module_file(".".join(parts[:depth]))
                if found is not None:
                    todo.append(found)
    return {alias for path in seen for alias in ALIAS.findall(path.read_text())}


def handler_file(properties: dict[str, Any]) -> Path:
    module = properties["Handler"].rsplit(".", 1)[0]
    return ROOT / properties["CodeUri"] / f"{module}.py"


def resources_named(value: Any) -> set[str]:
    """The logical ids of the template's resources a value names: `!Ref X`, `!GetAtt X.Arn`, `!Sub "${X...}"`."""
    if isinstance(value, str):
        return set()
    if "Ref" in value:
        return {value["Ref"]} & set(TEMPLATE.resources)
    if "Fn::GetAtt" in value:
        return {value["Fn::GetAtt"][0]}
    text = value["Fn::Sub"] if isinstance(value["Fn::Sub"], str) else value["Fn::Sub"][0]
    return {name.split(".")[0] for name in re.findall(r"\$\{([\w.:]+)\}", text)} & set(TEMPLATE.resources)


def announcing(properties: dict[str, Any]) -> set[str]:
    """The buckets whose uploads reach the function: it reads the object an S3 event on its queue names."""
    queues = {
        event["Properties"]["Queue"]["Fn::GetAtt"][0]
        for event in properties.get("Events", {}).values()
        if event["Type"] == "SQS"
    }
    return {
        name
        for name, spec in TEMPLATE.of_type("AWS::S3::Bucket").items()
        for target in spec["Properties"].get("NotificationConfiguration", {}).get("QueueConfigurations", [])
        if target["Queue"]["Fn::GetAtt"][0] in queues
    }


def statements(properties: dict[str, Any]) -> list[dict[str, Any]]:
    return [statement for policy in properties.get("Policies", []) for statement in policy["Statement"]]


def own_variables(properties: dict[str, Any]) -> dict[str, Any]:
    variables = properties["Environment"]["Variables"]
    return {name: value for name, value in variables.items() if name not in SHARED_VARIABLES}


@pytest.mark.parametrize("logical_id", sorted(FUNCTIONS))
def test_every_variable_a_function_is_given_is_one_its_code_reads(logical_id):
    properties = FUNCTIONS[logical_id]["Properties"]
    unread = set(own_variables(properties)) - variables_read(handler_file(properties))
    assert not unread, f"{logical_id} is given {sorted(unread)}, which no code it imports reads"


@pytest.mark.parametrize("logical_id", sorted(FUNCTIONS))
def test_a_function_may_act_on_the_resources_its_environment_names_and_nothing_else(logical_id):
    properties = FUNCTIONS[logical_id]["Properties"]
    named = {
        resource
        for name, value in own_variables(properties).items()
        if (logical_id, name) not in NAMED_NOT_CALLED
        for resource in resources_named(value)
        if TEMPLATE.resources[resource]["Type"] in SERVICE_OF
    }
    named |= announcing(properties)
    granted: set[str] = set()
    for statement in statements(properties):
        assert statement["Effect"] == "Allow"
        actions = statement["Action"]
        targets = statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
        if targets == ["*"]:
            assert set(actions) <= UNSCOPED_ACTIONS, f"{logical_id}: {actions} on every resource"
            continue
        for target in targets:
            (resource,) = resources_named(target)
            service = SERVICE_OF[TEMPLATE.resources[resource]["Type"]]
            assert {action.split(":")[0] for action in actions} == {service}, (logical_id, resource, actions)
            granted.add(resource)
    assert granted <= named, f"{logical_id} may act on {sorted(granted - named)}, which its code is not told of"
    assert named <= granted, f"{logical_id} is told of {sorted(named - granted)} and may not act on it"


def test_every_function_folder_is_deployed_and_every_route_has_one_function():
    deployed = {FUNCTIONS[name]["Properties"]["CodeUri"].strip("/") for name in FUNCTIONS}
    folders = {str(path.parent.relative_to(ROOT)) for path in (ROOT / "functions").glob("*/*/app.py")}
    assert deployed == folders
    routes = [(route.method, route.path) for function in TEMPLATE.functions() for route in function.routes]
    assert routes and len(routes) == len(set(routes)), "a route served twice"
    for function in TEMPLATE.functions():
        events = FUNCTIONS[function.logical_id]["Properties"].get("Events", {})
        assert events or function.logical_id in {a.function for a in TEMPLATE.authorizers().values()}, (
            f"{function.logical_id} is reached by nothing"
        )


def test_every_function_has_its_log_group_and_both_alarms():
    for name, spec in FUNCTIONS.items():
        logs = TEMPLATE.resources[f"{name}Logs"]
        assert logs["Type"] == "AWS::Logs::LogGroup"
        assert logs["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}
        assert spec["Properties"]["LoggingConfig"] == {"LogGroup": {"Ref": f"{name}Logs"}}
        for metric in ("Errors", "Throttles"):
            properties = TEMPLATE.resources[f"{name}{metric}Alarm"]["Properties"]
            assert properties["MetricName"] == metric
            assert properties["Dimensions"] == [{"Name": "FunctionName", "Value": {"Ref": name}}]


def test_every_service_has_its_5xx_alarm():
    variables = [spec["Properties"]["Environment"]["Variables"] for spec in FUNCTIONS.values()]
    services = {each["POWERTOOLS_SERVICE_NAME"] for each in variables}
    alarmed = set()
    for spec in TEMPLATE.of_type("AWS::CloudWatch::Alarm").values():
        for query in spec["Properties"].get("Metrics", []):
            metric = query.get("MetricStat", {}).get("Metric", {})
            if metric.get("Namespace") == "OttPlatform" and metric.get("MetricName") == "ServerErrors":
                alarmed.update(dimension["Value"] for dimension in metric["Dimensions"])
    assert alarmed == services


def test_every_function_alarm_is_alike_but_for_its_function_and_metric():
    """The services' loops each write the alarm out: they must not drift. Any error (an unhandled exception or a
    timeout) or throttle in five minutes alarms, and the alarm says so to the operators' topic."""
    alarms = {
        name: dict(spec["Properties"])
        for name, spec in TEMPLATE.of_type("AWS::CloudWatch::Alarm").items()
        if spec["Properties"].get("Namespace") == "AWS/Lambda"
    }
    assert len(alarms) == 2 * len(FUNCTIONS)
    for name, properties in alarms.items():
        ((dimension),) = properties.pop("Dimensions")
        function, metric = dimension["Value"]["Ref"], properties.pop("MetricName")
        assert name == f"{function}{metric}Alarm" and dimension["Name"] == "FunctionName"
        assert plain(properties.pop("AlarmDescription")) == f"Lambda {metric} of {function} in five minutes"
        assert properties == {
            "Namespace": "AWS/Lambda",
            "Statistic": "Sum",
            "Period": 300,
            "EvaluationPeriods": 1,
            "ComparisonOperator": "GreaterThanThreshold",
            "Threshold": 0,
            "TreatMissingData": "notBreaching",
            "AlarmActions": [{"Ref": "AlarmTopic"}],
            "OKActions": [{"Ref": "AlarmTopic"}],
        }
