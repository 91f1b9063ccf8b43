"""template.yaml read as the local stack and the tests need it: functions, their routes and environment,
and the resources they name, as CloudFormation and SAM expand them (`Fn::ForEach`, then the Globals).
CloudFormation intrinsics are resolved the way the local stack names things.

`python -m local.template` prints the template with its `Fn::ForEach` expanded, as CloudFormation hands it to
the SAM transform: what `make checkov` scans, since checkov does not expand `Fn::ForEach` itself."""

import hashlib
import json
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "template.yaml"
DEMO_API_KEYS = ROOT / "local" / "demo" / "api_keys.yaml"
REGION = "us-east-1"
ACCOUNT = "123456789012"
# Parameters the local stack and the tests run with: the fake delivery providers (ott.phoneconfirm.fakes);
# the guide keeps every day (the real sample guides the tests import are from 2021 and 2024).
LOCAL_PARAMETERS = {"PhoneProviders": "fake", "GuideRetentionDays": "0"}
# Set per service in the template; the local stack's one process cannot take them all.
PER_SERVICE_VARIABLES = ("POWERTOOLS_SERVICE_NAME",)
# What an API Gateway `ANY` method stands for.
ANY_METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")
LANGUAGE_EXTENSIONS = "AWS::LanguageExtensions"
FOR_EACH = "Fn::ForEach::"
# `${Name}` and `&{Name}` (the value without its non-alphanumeric characters) in a loop's fragment.
LOOP_PLACEHOLDER = re.compile(r"([$&])\{([\w:]+)\}")


@dataclass(frozen=True)
class Route:
    path: str  # API Gateway form, e.g. /registry/2/{proxy+}
    method: str  # upper case, or ANY
    function: str  # logical id
    authorizer: str | None = None  # name in the API's Auth.Authorizers
    api_key_required: bool = False  # API Gateway refuses a request without a valid key in x-api-key


@dataclass(frozen=True)
class Authorizer:
    function: str  # logical id of the authorizer function


@dataclass(frozen=True)
class Function:
    logical_id: str
    module: str  # importable module of the handler, e.g. functions.registry.whereami.app
    attribute: str
    environment: dict[str, str]
    routes: list[Route] = field(default_factory=list)


def load(path: Path = TEMPLATE) -> dict[str, Any]:
    from cfnlint.decode import decode  # cfn-lint's import takes half a second: only where a template is read anew

    template, problems = decode(str(path))
    if template is None:
        raise ValueError(f"cannot read {path}: {problems}")
    return template


def expand_language_extensions(document: dict[str, Any]) -> dict[str, Any]:
    """The document as CloudFormation's AWS::LanguageExtensions transform hands it to the next transform (SAM):
    every `Fn::ForEach` expanded, and that transform gone from `Transform`."""
    expanded = expand_for_each(document, mappings=document.get("Mappings", {}))
    transforms = expanded.get("Transform", [])
    if isinstance(transforms, list) and LANGUAGE_EXTENSIONS in transforms:
        expanded["Transform"] = [name for name in transforms if name != LANGUAGE_EXTENSIONS]
    return expanded


def expand_for_each(
    node: Any, values: Mapping[str, str] | None = None, mappings: Mapping[str, Any] | None = None
) -> Any:
    """`Fn::ForEach::Loop: [Identifier, [items...], {OutputKey: OutputValue}]` as CloudFormation expands it: the
    fragment once per item, the item in place of `${Identifier}` (and `&{Identifier}`) in its keys and strings
    and of `Ref: Identifier`; loops nest. A collection must be a literal list: the template needs no more, and
    anything else is refused rather than guessed. cfn-lint's own expansion is the reference
    (tests/template/test_expansion.py); it is not used here because it copies the whole template at every
    level (0.6 s of CPU for this one, against milliseconds). A `Fn::FindInMap` whose map and keys are literal once
    the loop's values are in is the value it finds in `mappings`, as the transform resolves it."""
    values = values or {}
    if isinstance(node, str):
        return substitute(node, values)
    if isinstance(node, list):
        return [expand_for_each(item, values, mappings) for item in node]
    if not isinstance(node, dict):
        return node
    if list(node) == ["Ref"] and isinstance(node["Ref"], str) and node["Ref"] in values:
        return values[node["Ref"]]
    expanded: dict[str, Any] = {}
    for key, value in node.items():
        if key.startswith(FOR_EACH):
            identifier, collection, fragment = value
            if not isinstance(collection, list) or not all(isinstance(item, str) for item in collection):
                raise ValueError(f"{key}: the local stack expands a literal list of names only")
            parts = [expand_for_each(fragment, {**values, identifier: item}, mappings) for item in collection]
        else:
            parts = [{substitute(key, values): expand_for_each(value, values, mappings)}]
        for part in parts:
            for name, content in part.items():
                if name in expanded:
                    raise ValueError(f"{name} is made twice by {key}")
                expanded[name] = content
    return found_in_map(named_by_a_plain_sub(expanded), mappings or {})


def found_in_map(node: dict[str, Any], mappings: Mapping[str, Any]) -> Any:
    """`Fn::FindInMap: [Map, Key, Name]` with all three literal: the mapping's value (else left as it is)."""
    if list(node) != ["Fn::FindInMap"] or not isinstance(node["Fn::FindInMap"], list):
        return node
    path = node["Fn::FindInMap"]
    if len(path) != 3 or not all(isinstance(part, str) for part in path):
        return node
    name, key, attribute = path
    try:
        return mappings[name][key][attribute]
    except KeyError:
        raise ValueError(f"Fn::FindInMap: no {name}.{key}.{attribute} in Mappings") from None


def substitute(text: str, values: Mapping[str, str]) -> str:
    def value_of(match: re.Match[str]) -> str:
        sign, name = match.groups()
        if name not in values:
            return match.group(0)  # a parameter, a resource or a pseudo parameter: Fn::Sub's own
        return values[name] if sign == "$" else re.sub(r"[^0-9A-Za-z]", "", values[name])

    return LOOP_PLACEHOLDER.sub(value_of, text) if values else text


def named_by_a_plain_sub(node: dict[str, Any]) -> dict[str, Any]:
    """With the transform, `Ref` and `Fn::GetAtt` take an intrinsic for the logical id (`Ref: !Sub "${Loop}"`);
    once the loop's values are in and no variable is left, the `Fn::Sub` is that id."""

    def plain(value: Any) -> Any:
        if isinstance(value, dict) and list(value) == ["Fn::Sub"] and isinstance(value["Fn::Sub"], str):
            return value["Fn::Sub"] if "${" not in value["Fn::Sub"] else value
        return value

    if list(node) == ["Ref"]:
        return {"Ref": plain(node["Ref"])}
    if list(node) == ["Fn::GetAtt"] and isinstance(node["Fn::GetAtt"], list):
        return {"Fn::GetAtt": [plain(part) for part in node["Fn::GetAtt"]]}
    return node


def local_api_key_id(logical_id: str) -> str:
    """`!Ref` of an API key is its id: locally, the name of the demo key standing for it."""
    demo = yaml.safe_load(DEMO_API_KEYS.read_text(encoding="utf-8"))
    ids = [key["name"] for key in demo["keys"] if key.get("resource") == logical_id]
    if not ids:
        raise ValueError(f"no key of {DEMO_API_KEYS.name} stands for {logical_id}")
    return ids[0]


def sam_resources(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    from cfnlint.template.transforms._sam_globals import merge_globals  # SAM's Globals rules, as cfn-lint applies them

    return dict(merge_globals(expand_language_extensions(document)).get("Resources", {}))


# template.yaml read and expanded, kept per content of the template and of this module: every process of the
# local stack, its `ops --local` commands and the test workers read the same file (cfn-lint's import and the
# expansion took two thirds of a second each time).
EXPANDED_CACHE = ROOT / ".aws-sam" / "local-template"


def read_template() -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    key = hashlib.sha256(TEMPLATE.read_bytes() + Path(__file__).read_bytes()).hexdigest()[:32]
    cached = EXPANDED_CACHE / f"{key}.json"
    if cached.exists():
        kept = json.loads(cached.read_text(encoding="utf-8"))
        return kept["document"], kept["resources"]
    document = load()
    resources = sam_resources(document)
    EXPANDED_CACHE.mkdir(parents=True, exist_ok=True)
    written = cached.with_suffix(f".{os.getpid()}.tmp")
    written.write_text(json.dumps({"document": document, "resources": resources}), encoding="utf-8")
    written.replace(cached)  # atomic: another process reads the whole file or none
    for stale in EXPANDED_CACHE.glob("*.json"):  # an earlier template's
        if stale != cached:
            stale.unlink(missing_ok=True)
    return document, resources


class Template:
    """`document` is template.yaml as written; `resources` are its resources as SAM sees them: `Fn::ForEach`
    expanded, then each function given the Globals by SAM's rules (the function's own value wins, maps are
    merged, lists joined after the Globals')."""

    def __init__(self, document: dict[str, Any] | None = None, parameters: dict[str, str] | None = None) -> None:
        if document is None:
            self.document, self.resources = read_template()
        else:
            self.document, self.resources = document, sam_resources(document)
        self.parameters = {
            name: str(spec.get("Default", "")) for name, spec in self.document.get("Parameters", {}).items()
        }
        self.parameters.update(parameters if parameters is not None else LOCAL_PARAMETERS)

    def of_type(self, kind: str) -> dict[str, dict[str, Any]]:
        return {name: spec for name, spec in self.resources.items() if spec.get("Type") == kind}

    def physical_name(self, logical_id: str) -> str:
        """Resources are named after their logical ids locally (CloudFormation would add a suffix)."""
        props = self.resources[logical_id].get("Properties", {})
        if self.resources[logical_id].get("Type") == "AWS::S3::Bucket":  # bucket names are lower case
            return props.get("BucketName") or logical_id.lower()
        if self.resources[logical_id].get("Type") == "AWS::SQS::Queue" and props.get("FifoQueue"):
            return f"{logical_id}.fifo"  # as CloudFormation names a FIFO queue
        return props.get("TableName") or props.get("Name") or logical_id

    def arn(self, logical_id: str) -> str:
        kind, name = self.resources[logical_id]["Type"], self.physical_name(logical_id)
        arns = {
            "AWS::DynamoDB::Table": f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{name}",
            "AWS::SQS::Queue": f"arn:aws:sqs:{REGION}:{ACCOUNT}:{name}",
            "AWS::SNS::Topic": f"arn:aws:sns:{REGION}:{ACCOUNT}:{name}",
            "AWS::Serverless::StateMachine": f"arn:aws:states:{REGION}:{ACCOUNT}:stateMachine:{name}",
            "AWS::Serverless::Function": f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{name}",
            "AWS::SecretsManager::Secret": name,
        }
        return arns[kind]

    def queue_url(self, logical_id: str) -> str:
        return f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT}/{self.physical_name(logical_id)}"

    def resolve(self, value: Any) -> str:
        if isinstance(value, str):
            return value
        if isinstance(value, (int, float, bool)):
            return str(value).lower() if isinstance(value, bool) else str(value)
        if isinstance(value, dict) and len(value) == 1:
            ((name, argument),) = value.items()
            if name == "Ref":
                return self._ref(argument)
            if name == "Fn::GetAtt":
                resource, attribute = argument if isinstance(argument, list) else argument.split(".", 1)
                return self._get_att(resource, attribute)
            if name == "Fn::Sub" and isinstance(argument, str):
                return re.sub(r"\$\{([^}]+)\}", lambda m: self._sub(m.group(1)), argument)
        raise ValueError(f"the local stack cannot resolve {value!r}")

    def _ref(self, name: str) -> str:
        pseudo = {"AWS::Region": REGION, "AWS::AccountId": ACCOUNT, "AWS::StackName": "ott-local"}
        if name in pseudo:
            return pseudo[name]
        if name in self.parameters:
            return self.parameters[name]
        kind = self.resources[name]["Type"]
        if kind == "AWS::SQS::Queue":
            return self.queue_url(name)
        if kind in ("AWS::SNS::Topic", "AWS::Serverless::StateMachine"):
            return self.arn(name)
        if kind == "AWS::ApiGateway::ApiKey":
            return local_api_key_id(name)
        return self.physical_name(name)

    def _get_att(self, resource: str, attribute: str) -> str:
        if attribute == "Arn":
            return self.arn(resource)
        if attribute in ("QueueName", "TopicName"):
            return self.physical_name(resource)
        raise ValueError(f"the local stack cannot resolve {resource}.{attribute}")

    def _sub(self, expression: str) -> str:
        if "." in expression:
            return self._get_att(*expression.split(".", 1))
        return self._ref(expression)

    def functions(self) -> list[Function]:
        found = []
        for logical_id, spec in self.of_type("AWS::Serverless::Function").items():
            props = spec.get("Properties", {})
            variables = props.get("Environment", {}).get("Variables", {})
            code = props["CodeUri"].strip("/").replace("/", ".")
            module, attribute = props["Handler"].rsplit(".", 1)
            routes = [
                Route(
                    event["Properties"]["Path"],
                    event["Properties"]["Method"].upper(),
                    logical_id,
                    self._authorizer_of(event["Properties"]),
                    self._api_key_required(event["Properties"]),
                )
                for event in props.get("Events", {}).values()
                if event.get("Type") == "Api"
            ]
            found.append(
                Function(
                    logical_id=logical_id,
                    module=f"{code}.{module}",
                    attribute=attribute,
                    environment={name: self.resolve(value) for name, value in variables.items()},
                    routes=routes,
                )
            )
        return found

    def _api(self, event_properties: dict[str, Any]) -> dict[str, Any]:
        api = event_properties.get("RestApiId", {}).get("Ref")
        return self.resources.get(api, {}).get("Properties", {}) if api else {}

    def _authorizer_of(self, event_properties: dict[str, Any]) -> str | None:
        name = event_properties.get("Auth", {}).get("Authorizer") or self._api(event_properties).get("Auth", {}).get(
            "DefaultAuthorizer"
        )
        return None if name in (None, "NONE") else name

    def _api_key_required(self, event_properties: dict[str, Any]) -> bool:
        """The event's Auth.ApiKeyRequired, else its API's (SAM's default for every route of that API)."""
        required = event_properties.get("Auth", {}).get("ApiKeyRequired")
        if required is None:
            required = self._api(event_properties).get("Auth", {}).get("ApiKeyRequired", False)
        return bool(required)

    def authorizers(self) -> dict[str, Authorizer]:
        """Every API's Lambda authorizers."""
        found = {}
        for spec in self.of_type("AWS::Serverless::Api").values():
            for name, authorizer in spec.get("Properties", {}).get("Auth", {}).get("Authorizers", {}).items():
                found[name] = Authorizer(authorizer_function(authorizer["FunctionArn"]))
        return found

    def gateway_responses(self) -> dict[str, dict[str, Any]]:
        """The replies API Gateway makes itself, by response type (UNAUTHORIZED, DEFAULT_4XX...)."""
        found: dict[str, dict[str, Any]] = {}
        for spec in self.of_type("AWS::Serverless::Api").values():
            found.update(spec.get("Properties", {}).get("GatewayResponses", {}))
        return found

    def queue_consumers(self) -> list[tuple[str, Function]]:
        """(queue logical id, function) for every SQS event source, as Lambda's event source mappings."""
        found = []
        for function in self.functions():
            events = self.resources[function.logical_id].get("Properties", {}).get("Events", {})
            for event in events.values():
                if event.get("Type") == "SQS":
                    found.append((event["Properties"]["Queue"]["Fn::GetAtt"][0], function))
        return found

    def scheduled_functions(self) -> list[tuple[Function, int]]:
        """(function, period in seconds) for every EventBridge `Schedule` event with a `rate(...)`."""
        found = []
        for function in self.functions():
            events = self.resources[function.logical_id].get("Properties", {}).get("Events", {})
            for event in events.values():
                if event.get("Type") == "Schedule":
                    found.append((function, rate_seconds(self.resolve(event["Properties"]["Schedule"]))))
        return found

    def environment(self) -> dict[str, str]:
        """The union of every function's environment; one process serves them all, so none may disagree
        (but on the Powertools service name, which names each function's service and is left out)."""
        merged: dict[str, str] = {}
        for function in self.functions():
            for name, value in function.environment.items():
                if name in PER_SERVICE_VARIABLES:
                    continue
                if merged.setdefault(name, value) != value:
                    raise ValueError(f"functions disagree on {name}; the local stack needs one value")
        return merged


RATE = re.compile(r"rate\((\d+) (minute|minutes|hour|hours|day|days)\)")
RATE_UNITS = {"minute": 60, "hour": 3600, "day": 86400}


def rate_seconds(expression: str) -> int:
    """`rate(1 hour)` → 3600. Cron expressions are not used by the template."""
    match = RATE.fullmatch(expression.strip())
    if match is None:
        raise ValueError(f"unsupported schedule expression {expression!r}")
    return int(match.group(1)) * RATE_UNITS[match.group(2).rstrip("s")]


if __name__ == "__main__":
    sys.stdout.write(json.dumps(expand_language_extensions(load()), indent=1) + "\n")


def authorizer_function(arn: dict[str, Any]) -> str:
    """The function an authorizer's FunctionArn names: `!GetAtt Fn.Arn`, or `!Ref Fn.Alias` (the alias SAM's
    AutoPublishAlias makes: a SnapStart function runs from a published version only)."""
    if "Fn::GetAtt" in arn:
        target = arn["Fn::GetAtt"]
        return str(target[0] if isinstance(target, list) else target.split(".", 1)[0])
    return str(arn["Ref"]).removesuffix(".Alias")
