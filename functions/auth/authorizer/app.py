"""The API's Lambda authorizers (REQUEST type): `required` for protected routes, `optional` where a
bearer token only adds who the client is (the registry)."""

from typing import Any

from aws_lambda_powertools.metrics import MetricUnit

from ott.auth.bearer import decide
from ott.auth.store import auth_store
from ott.http.request import ApiRequest
from ott.observability import logger, metrics, observed


def _decide(event: dict[str, Any], required: bool) -> dict[str, Any]:
    token, in_query = ApiRequest(event, "json", None, None).bearer
    try:
        decision = decide(auth_store(), token, event["methodArn"], required, in_query=in_query)
    except PermissionError:
        metrics.add_metric(name="BearerMissing", unit=MetricUnit.Count, value=1)
        raise
    effect = decision["policyDocument"]["Statement"][0]["Effect"]
    if decision["context"].get("tokenRejected"):
        effect = "Ignored"
        logger.info("bad bearer token on a public route: served as anonymous")
    metrics.add_metric(name=f"Bearer{effect}", unit=MetricUnit.Count, value=1)
    return decision


required = observed(lambda event, context: _decide(event, required=True))
optional = observed(lambda event, context: _decide(event, required=False))
