"""schemathesis on the staff routes that change something (issue 20), on the worker's scratch stack (they change
the demo data other local tests read): with a token of every staff scope (so every route is explored past its scope),
no 5xx, replies that match the OpenAPI document, and every 4xx a clear error in the requested format (JSON:
`error` and a non-empty `error_description`). The reads are under schemathesis in test_api_contract.py."""

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import negative_data_rejection, positive_data_acceptance, unsupported_method

from tests.fixtures.stack import RunningStack

pytestmark = pytest.mark.slow  # schemathesis sends hundreds of requests

API = schemathesis.pytest.from_fixture("scratch_schema")


@pytest.fixture(scope="module")
def chief(scratch_stack: RunningStack):
    """The demo staff member with every area, signed in through the console's public client (PKCE)."""
    from local.sign_in import access_token

    console = f"{scratch_stack.url}/console/"
    token = access_token(scratch_stack.url, "staff-console", None, "chief@example.com", "chief-password", console)
    return {"Authorization": f"Bearer {token}"}


def a_clear_error(ctx, response, case) -> None:
    """A refusal says what was wrong, in JSON (the staff routes' only format), never as an empty or HTML page."""
    if 400 <= response.status_code < 500:
        headers = {name.lower(): values[0] for name, values in response.headers.items()}
        assert headers.get("content-type", "").startswith("application/json"), headers
        answer = response.json()
        assert isinstance(answer.get("error"), str) and answer["error"], answer
        assert isinstance(answer.get("error_description"), str) and answer["error_description"].strip(), answer
        if case.method.upper() == case.operation.method.upper():  # not the gateway's 404 for a method it lacks
            assert headers.get("cache-control") == "no-store", headers


@API.include(path_regex="^/staff/", method="POST").parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_staff_changes_honour_the_contract_and_refuse_bad_input_clearly(case, chief):
    # A poster, version or item the schema allows may name none (404), a rejection without a comment is 422, a
    # zone name may be taken (409): "valid data is accepted" cannot apply. The staff token is always sent, which
    # makes a case schemathesis made negative by a missing token a valid one; unknown query parameters are ignored,
    # as on every route: "negative data is rejected" cannot apply either, and malformed input is held to a 4xx by
    # the check above and by tests/integration/test_*_staff_handlers.py.
    excluded = [positive_data_acceptance, negative_data_rejection, unsupported_method]
    case.call_and_validate(headers=chief, excluded_checks=excluded, additional_checks=[a_clear_error])
