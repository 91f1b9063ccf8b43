"""Functions run in-process on the sample events of events/, as the integration tests and the benchmarks
run them."""

import json
import uuid
from typing import Any

from local.gateway import LambdaContext
from local.template import ROOT

EVENTS = ROOT / "events"


def sample_event(function: str) -> dict[str, Any]:
    return json.loads((EVENTS / f"{function}.json").read_text(encoding="utf-8"))


def context(function: str) -> LambdaContext:
    return LambdaContext(function_name=function, aws_request_id=str(uuid.uuid4()))


def access_token() -> str:
    """A fresh anonymous account's access token from the demo client."""
    from functions.auth_token import app

    body = "grant_type=vendor%3Aanonymous&client_id=demo-tv&client_secret=demo-tv-secret"
    reply = app.lambda_handler({**sample_event("auth_token"), "body": body}, context("auth_token"))
    return json.loads(reply["body"])["access_token"]


def principal_of(token: str, required: bool = True) -> dict[str, Any]:
    """What the API's authorizer passes on for this token."""
    from functions.auth_authorizer import app

    event = {**sample_event("auth_authorizer"), "headers": {"Authorization": f"Bearer {token}"}}
    decision = (app.required if required else app.optional)(event, context("auth_authorizer"))
    return {**decision["context"], "principalId": decision["principalId"]}
