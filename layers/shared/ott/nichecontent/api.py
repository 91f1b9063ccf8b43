"""What the niche-content handlers read at the HTTP edge."""

from ott.http.request import ApiRequest


def encoder_of(request: ApiRequest) -> str | None:
    """The encoder, as the id of the API key it called with (API Gateway puts it in the request context).
    It tells two encoders apart: the move just made is repeated without change only by the one who made it."""
    return request.event.get("requestContext", {}).get("identity", {}).get("apiKeyId") or None
