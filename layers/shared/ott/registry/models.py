"""Resources of the registry as clients see them (spec document 3, section 2.C).

Field names on the wire are the spec's; enums travel by name, the service type by its string identifier.
"""

from enum import StrEnum
from typing import Annotated

from pydantic import ConfigDict, Field

from ott.wire import Int32, UInt32, WireModel

# How many entries the whole list has, when it is sent in pages (`offset`, `limit`); not part of spec 2.C.
Total = Annotated[UInt32 | None, Field(description="entries in the whole list (paging)")]


class ServiceType(StrEnum):
    """Service.Type: the member name is the enum name, the value the string identifier used on the wire."""

    FILMS = "films"
    IPTV = "iptv"
    BRANDTV = "brandtv"
    BRANDNET = "brandnet"
    TV_GUIDE = "tv_guide"
    NOTIFICATION = "notification"
    TRACKING = "tracking"
    AUTH = "auth"
    DATA = "user_data"
    USERS_MERGE = "user_data_merge"
    MEDIA_LOCATOR = "media_locator"
    PINGER = "pinger"
    RADIO = "radio"
    CATALOGUE = "catalogue"
    PROMO = "promo"
    BRANDFOG = "brandfog"
    PORTCHECKER = "portchecker"
    INTERNET = "internet"
    REGISTRY = "registry"
    MONEY_MINER = "money_miner"
    LAUNCHER = "launcher"
    APPCONFIG = "appconfig"
    PROMO_BLOCK = "promo_block"
    PROMOCODE = "promocode"
    FEED = "feed"
    PURCHASES = "purchases"
    WEATHER = "weather"


class ApiType(StrEnum):
    FILMS = "FILMS"
    IPTV = "IPTV"
    TV_RECORDS = "TV_RECORDS"


class PrivateOfficeIdiom(StrEnum):
    WEB = "WEB"
    TV = "TV"
    MOBILE = "MOBILE"


class ProfileType(StrEnum):
    SQUARE_SOLID = "SQUARE_SOLID"
    LAUNCHER = "LAUNCHER"
    LAUNCHER_KIDS = "LAUNCHER_KIDS"
    PROGRESSBAR_POSITION = "PROGRESSBAR_POSITION"
    PROGRESSBAR_POSITION_KIDS = "PROGRESSBAR_POSITION_KIDS"
    LAUNCHER_VERTICAL = "LAUNCHER_VERTICAL"
    LAUNCHER_VERTICAL_KIDS = "LAUNCHER_VERTICAL_KIDS"


class TthSearch(StrEnum):
    NONE = "NONE"
    WITHPRIO = "WITHPRIO"
    FULL = "FULL"


class ContractorImage(WireModel):
    width: UInt32
    height: UInt32
    url: str = Field(alias="URL")
    profile: ProfileType | None = None


class ContractorInfo(WireModel):
    contractor_id: UInt32
    name: str | None = None
    images: list[ContractorImage] | None = None
    brand_name: str | None = None
    private_office_url: str | None = Field(None, alias="privateOfficeURL")
    call_center_number: str | None = None
    partner_tags: list[str] | None = None
    supported_office_idioms: list[PrivateOfficeIdiom] | None = None


class TerritoryInfo(WireModel):
    territory_id: UInt32
    name: str | None = None
    parent_id: UInt32 | None = None
    is_leaf: bool | None = None
    parent: "TerritoryInfo | None" = None
    timezone: Int32 | None = None
    content_languages: list[str] | None = Field(None, alias="content_languages")


class APIVersion(WireModel):
    major_version: UInt32
    minor_version: UInt32
    location: str
    params: str | None = None


class Service(WireModel):
    type: ServiceType
    contractor: ContractorInfo | None = None
    name: str
    api_versions: list[APIVersion]
    ping_interval: UInt32 | None = None
    id: UInt32


class APIInfo(WireModel):
    api_type: ApiType
    name: str
    api_versions: list[APIVersion]


class WhereAmI(WireModel):
    contractor: ContractorInfo | None = None
    territories: list[TerritoryInfo]
    apis: list[APIInfo]
    services: list[Service]
    ip_address: str


class ContractorList(WireModel):
    contractors: list[ContractorInfo]
    total: Total = None


class TerritoryList(WireModel):
    territories: list[TerritoryInfo]
    total: Total = None


class Area(WireModel):
    area_id: UInt32
    name: str
    cost: UInt32 = 0


class AreaList(WireModel):
    areas: list[Area]
    total: Total = None


class IPAddress(WireModel):
    hostname: str
    port: Annotated[int, Field(ge=1, le=65535)]


class Hub(WireModel):
    name: str
    addresses: list[IPAddress]
    node_address: IPAddress | None = None
    areas: AreaList


class HubList(WireModel):
    hubs: list[Hub]
    total: Total = None


class HubIsolation(WireModel):
    from_hub: str
    to_hub: str
    tth_search: TthSearch = TthSearch.NONE
    text_search: bool = False
    u2u: bool = Field(False, alias="u2u")


class HubIsolationList(WireModel):
    hub_isolations: list[HubIsolation]
    total: Total = None


class Prefix(WireModel):
    cidr: str = Field(alias="CIDR")
    nat: str | None = Field(None, alias="NAT")
    peers_access: bool = False
    contractor: ContractorInfo
    territories: list[TerritoryInfo]


class PrefixList(WireModel):
    prefixes: list[Prefix]
    total: Total = None


class KnownInfo(WireModel):
    model_config = ConfigDict(extra="ignore")

    contractor_id: UInt32 | None = None
    contractor_name: Annotated[str, Field(max_length=256)] | None = None
    territory_id: UInt32 | None = None
    territory_name: Annotated[str, Field(max_length=256)] | None = None
    parent_territory_id: UInt32 | None = None
    iptv_playlist_address: Annotated[str, Field(max_length=2048)] | None = None
    uid: Annotated[str, Field(max_length=256)] | None = None


class KnownInfoReceipt(WireModel):
    """Reply of knownInfo: the identifier under which moderators find the report."""

    id: str
