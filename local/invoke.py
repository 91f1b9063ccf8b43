"""Functions run in-process on the sample events of events/, as the integration tests and the benchmarks
run them."""

import importlib
import json
import uuid
from collections.abc import Callable
from typing import Any

from local.gateway import LambdaContext
from local.template import ROOT

EVENTS = ROOT / "events"


def module_of(function: str) -> str:
    """The module of a function's handler: "registry/whereami" (its folder under functions/) →
    functions.registry.whereami.app."""
    return f"functions.{function.replace('/', '.')}.app"


def handler_in(function: str) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    return importlib.import_module(module_of(function)).lambda_handler


def sample_event(function: str) -> dict[str, Any]:
    return json.loads((EVENTS / f"{function}.json").read_text(encoding="utf-8"))


def context(function: str) -> LambdaContext:
    return LambdaContext(function_name=function, aws_request_id=str(uuid.uuid4()))


def access_token() -> str:
    """A fresh anonymous account's access token from the demo client."""
    from functions.auth.token import app

    body = "grant_type=vendor%3Aanonymous&client_id=demo-tv&client_secret=demo-tv-secret"
    reply = app.lambda_handler({**sample_event("auth/token"), "body": body}, context("auth/token"))
    return json.loads(reply["body"])["access_token"]


def principal_of(token: str, required: bool = True) -> dict[str, Any]:
    """What the API's authorizer passes on for this token."""
    from functions.auth.authorizer import app

    event = {**sample_event("auth/authorizer"), "headers": {"Authorization": f"Bearer {token}"}}
    decision = (app.required if required else app.optional)(event, context("auth/authorizer"))
    return {**decision["context"], "principalId": decision["principalId"]}
