"""GET /staff/guide/configuration.json"""

from ott.http.request import ApiRequest
from ott.http.staff import staff_route
from ott.staff import Area
from ott.tvguide.staff import ConfigurationReply, configuration
from ott.tvguide.store import guide_store


@staff_route(Area.GUIDE, reply=ConfigurationReply)
def lambda_handler(request: ApiRequest[None, None]) -> ConfigurationReply:
    """The guide configuration (zones, channel overrides, rubrics) and its version, for the editor."""
    return configuration(guide_store(fresh=True), request.account)
