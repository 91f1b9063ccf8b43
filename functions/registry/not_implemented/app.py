"""ANY /registry/2/{proxy+}: every registry path that no method serves."""

from ott.http.handler import api_handler
from ott.http.request import ApiRequest
from ott.registry.service import unknown_method
from ott.wire import FORMATS


@api_handler(reply=None, formats=FORMATS, statuses=(405, 501))
def lambda_handler(request: ApiRequest[None, None]) -> None:
    """Not a registry method: 400 for an unknown format, 501 otherwise."""
    raise unknown_method(request.path)
