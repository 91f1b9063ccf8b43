from ipaddress import IPv4Network, IPv6Network, ip_network

from pydantic import Field, field_validator

from ott.config import EnvSettings


class HttpSettings(EnvSettings):
    # Proxies whose X-Forwarded-For is believed; empty means the TCP peer is the client.
    trusted_proxies: tuple[IPv4Network | IPv6Network, ...] = Field((), alias="TRUSTED_PROXIES")
    # Base URL the platform is reached at; empty derives it from each request's Host and stage.
    public_base_url: str = Field("", alias="PUBLIC_BASE_URL")

    @field_validator("trusted_proxies", mode="before")
    @classmethod
    def _split(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(ip_network(part.strip(), strict=False) for part in value.split(",") if part.strip())
        return value
