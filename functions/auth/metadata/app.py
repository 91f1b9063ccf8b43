"""GET /.well-known/oauth-authorization-server"""

from ott.auth.metadata import server_metadata
from ott.auth.models import ServerMetadata
from ott.auth.policy import AuthPolicy
from ott.config import load_settings
from ott.http.handler import api_handler
from ott.http.request import ApiRequest


@api_handler(reply=ServerMetadata)
def lambda_handler(request: ApiRequest[None, None]) -> ServerMetadata:
    """RFC 8414 authorization server metadata."""
    return server_metadata(request.base_url, load_settings(AuthPolicy))
