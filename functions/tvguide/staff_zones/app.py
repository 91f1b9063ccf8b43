"""GET /staff/guide/zones.json"""

from ott.http.request import ApiRequest
from ott.http.staff import staff_route
from ott.staff import Area
from ott.tvguide.staff import ZonesReply, zones
from ott.tvguide.store import guide_store


@staff_route(Area.GUIDE, reply=ZonesReply)
def lambda_handler(request: ApiRequest[None, None]) -> ZonesReply:
    """Every zone with its labels, time zone, territories, the channels it holds a schedule of and its last
    import of the week."""
    return zones(guide_store(), request.account)
