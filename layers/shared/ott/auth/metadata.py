"""RFC 8414 authorization server metadata."""

from ott.auth.models import ServerMetadata
from ott.auth.policy import GRANTS, AuthPolicy

AUTH_METHODS = ["client_secret_post", "client_secret_basic"]


def server_metadata(base_url: str, policy: AuthPolicy) -> ServerMetadata:
    auth = f"{base_url}/auth/2"
    return ServerMetadata(
        issuer=base_url,
        authorization_endpoint=f"{auth}/authorize",
        token_endpoint=f"{auth}/token",
        device_authorization_endpoint=f"{auth}/device_authorization",  # RFC 8628; the spec's PIN flow: device_code
        revocation_endpoint=f"{auth}/revoke",
        introspection_endpoint=f"{auth}/introspect",  # RFC 7662, for resource servers only
        grant_types_supported=[grant for grant in GRANTS if grant not in policy.disabled_grants],
        response_types_supported=["code", "pin_code"],
        token_endpoint_auth_methods_supported=AUTH_METHODS,
        revocation_endpoint_auth_methods_supported=AUTH_METHODS,
        introspection_endpoint_auth_methods_supported=AUTH_METHODS,
        code_challenge_methods_supported=["S256"],  # `plain` would show the verifier to whoever sees the request
    )
