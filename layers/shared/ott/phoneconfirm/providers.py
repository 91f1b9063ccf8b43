"""The real delivery providers: Amazon SNS and sms.ru for SMS, sms.ru for the flash call, the operator's
SIM-push gateway over HTTP.

Every failure is one of the two errors of the ports: `DeliveryFailed` when asking again cannot help (the
number, the account or the request is wrong), `ProviderUnavailable` when it can (timeouts, 5xx, throttling,
replies we cannot read). Credentials never appear in an exception message.

The HTTP adapters use only the standard library, imported on first request: `http.client` and
`urllib.request` cost ~30 ms of imports that the functions using SNS alone should not pay.
"""

import json
import urllib.parse
from typing import Any

from ott.phoneconfirm.ports import DeliveryFailed, ProviderUnavailable, PushStatus

SMS_RU_URL = "https://sms.ru"

# Errors an AWS client may answer after botocore's own retries, for which a later attempt may succeed.
_SNS_TRANSIENT = frozenset(
    {
        "Throttling",
        "ThrottlingException",
        "Throttled",
        "ThrottledException",
        "TooManyRequestsException",
        "RequestLimitExceeded",
        "KMSThrottling",
        "InternalError",
        "InternalFailure",
        "ServiceUnavailable",
    }
)
# sms.ru status codes worth a retry: 220 "service temporarily unavailable", 500 "server error, repeat the request".
_SMS_RU_TRANSIENT = frozenset({220, 500})


def _digits(phone: str) -> str:
    """The number as the 11 digits the providers take; a leading + is dropped.

    Anything else cannot be delivered to, so it is `DeliveryFailed` rather than a retry.
    """
    number = phone.removeprefix("+")
    if len(number) != 11 or not (number.isascii() and number.isdigit()):
        raise DeliveryFailed("not an 11-digit phone number")
    return number


def _http_url(url: str) -> str:
    """The URL, if http(s): a bad setting fails when the adapter is built, not on every request."""
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise ValueError("a provider URL must be http(s)")
    return url


def _exchange(
    provider: str, url: str, timeout: float, data: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, bytes]:
    """The status and body of one request, whatever the status. Redirects are not followed, so that the
    credentials go to the configured host only. Transport failures (refused, reset, timeout) are transient.
    """
    import http.client
    import urllib.request

    # Without HTTPErrorProcessor every status comes back as a response and no redirect is followed.
    opener = urllib.request.OpenerDirector()
    for handler in (urllib.request.ProxyHandler(), urllib.request.HTTPHandler(), urllib.request.HTTPSHandler()):
        opener.add_handler(handler)
    request = urllib.request.Request(url, data=data, headers=headers or {})  # noqa: S310 - http(s), see _http_url
    try:
        with opener.open(request, timeout=timeout) as response:
            return response.status, response.read()
    except (OSError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", exc)  # URLError wraps the socket error; the URL itself is not shown
        raise ProviderUnavailable(f"{provider} unreachable: {type(reason).__name__}") from exc


def _check_http_status(provider: str, status: int) -> None:
    """2xx passes; 429 and 5xx are transient; any other status (a 4xx, a redirect) will not change on retry."""
    if 200 <= status < 300:
        return
    error = ProviderUnavailable if status == 429 or status >= 500 else DeliveryFailed
    raise error(f"{provider} answered HTTP {status}")


class SnsSms:
    """SMS through Amazon SNS, as Transactional: SNS then routes for reliability rather than cost, as codes need.

    Throttling and internal errors (those left after botocore's retries) and connection or read failures are
    `ProviderUnavailable`; any other error of the request (invalid parameter, authorization...) is
    `DeliveryFailed`.
    """

    def __init__(self, sns_client: Any) -> None:
        self._sns = sns_client

    def send(self, phone: str, text: str) -> None:
        from botocore import exceptions  # already loaded by whoever built the client

        number = f"+{_digits(phone)}"
        try:
            self._sns.publish(
                PhoneNumber=number,
                Message=text,
                MessageAttributes={"AWS.SNS.SMS.SMSType": {"DataType": "String", "StringValue": "Transactional"}},
            )
        except exceptions.ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "")
            status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
            error = ProviderUnavailable if code in _SNS_TRANSIENT or status >= 500 else DeliveryFailed
            raise error(f"SNS refused the SMS: {code}") from exc
        except (exceptions.ConnectionError, exceptions.HTTPClientError) as exc:
            raise ProviderUnavailable(f"SNS unreachable: {type(exc).__name__}") from exc


def _check_sms_ru_status(part: Any) -> None:
    """Raise unless `part` (the reply, or its entry for a number) has `"status": "OK"`."""
    if not isinstance(part, dict) or part.get("status") not in ("OK", "ERROR"):
        raise ProviderUnavailable("sms.ru: unexpected reply")
    if part["status"] == "ERROR":
        code = part.get("status_code")
        error = ProviderUnavailable if code in _SMS_RU_TRANSIENT else DeliveryFailed
        raise error(f"sms.ru error {code}")


class _SmsRuApi:
    """A GET of the sms.ru HTTP API with `json=1`, authenticated by the `api_id` query parameter.

    Mapping of failures:
    - HTTP 429 or 5xx, a timeout, a refused or broken connection, a body that is not the expected JSON:
      `ProviderUnavailable`; any other non-2xx HTTP status: `DeliveryFailed`.
    - `"status": "ERROR"`, at the top of the reply or for the number: `ProviderUnavailable` for
      `status_code` 220 (service temporarily unavailable) and 500 (server error); any other code
      (200 bad api_id, 201 not enough money, 202 bad number, 207 no route to the number, 230-233 limits...)
      is `DeliveryFailed`.
    """

    def __init__(self, base_url: str, api_id: str, timeout: float = 5.0) -> None:
        self._base = _http_url(base_url).rstrip("/")
        self._api_id = api_id
        self._timeout = timeout

    def _get(self, path: str, **params: str) -> dict[str, Any]:
        query = urllib.parse.urlencode({**params, "api_id": self._api_id, "json": "1"})
        status, body = _exchange("sms.ru", f"{self._base}{path}?{query}", self._timeout)
        _check_http_status("sms.ru", status)
        try:
            reply = json.loads(body)
        except ValueError as exc:
            raise ProviderUnavailable("sms.ru: the reply is not JSON") from exc
        _check_sms_ru_status(reply)
        return reply


class SmsRuSms(_SmsRuApi):
    """SMS through sms.ru: `GET /sms/send?api_id=&to=<11 digits>&msg=&json=1`. The reply holds a status for the
    request and one per number (`"sms": {"7912...": {"status": "OK", "sms_id": ...}}`); both must be OK.
    Failures map as `_SmsRuApi` says.
    """

    def send(self, phone: str, text: str) -> None:
        number = _digits(phone)
        reply = self._get("/sms/send", to=number, msg=text)
        sms = reply.get("sms")
        _check_sms_ru_status(sms.get(number) if isinstance(sms, dict) else None)


class SmsRuCall(_SmsRuApi):
    """Flash call through sms.ru ("authorization by call"): `GET /code/call?phone=<11 digits>&ip=-1&api_id=&json=1`
    makes sms.ru call the number from a random number; the reply's `code` is that number's last 4 digits.
    `ip=-1` tells sms.ru that the request comes from a server, not from the subscriber's address. Failures map
    as `_SmsRuApi` says; a reply without a 4-digit code is `ProviderUnavailable`.
    """

    def flash_call(self, phone: str) -> str:
        reply = self._get("/code/call", phone=_digits(phone), ip="-1")
        code = reply.get("code")
        if not (isinstance(code, str) and len(code) == 4 and code.isascii() and code.isdigit()):
            raise ProviderUnavailable("sms.ru: the reply has no 4-digit code")
        return code


class HttpSimPush:
    """SIM-push through the mobile operator's gateway, which has no public standard; the protocol is ours:

        POST {endpoint}
        Authorization: Bearer <token>
        Content-Type: application/json
        {"phone": "<11 digits>", "text": "..."}

    answered 200 `{"status": "accepted" | "delivered" | "not_delivered" | "rejected"}` (see `PushStatus`).
    A 4xx other than 429, or a redirect, is `DeliveryFailed`; 429, 5xx, a timeout, a refused connection,
    a body that is not that JSON or an unknown status is `ProviderUnavailable`.
    """

    def __init__(self, endpoint: str, token: str, timeout: float = 5.0) -> None:
        self._endpoint = _http_url(endpoint)
        self._token = token
        self._timeout = timeout

    def push(self, phone: str, text: str) -> PushStatus:
        body = json.dumps({"phone": _digits(phone), "text": text}, ensure_ascii=False).encode()
        headers = {"Authorization": f"Bearer {self._token}", "Content-Type": "application/json"}
        status, reply = _exchange("SIM-push gateway", self._endpoint, self._timeout, body, headers)
        _check_http_status("SIM-push gateway", status)
        try:
            return PushStatus(json.loads(reply)["status"])
        except (ValueError, TypeError, KeyError) as exc:
            raise ProviderUnavailable("SIM-push gateway: unexpected reply") from exc
