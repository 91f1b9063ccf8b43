"""GET /staff/guide/imports.json"""

from ott.http.request import ApiRequest
from ott.http.staff import staff_route
from ott.staff import Area
from ott.tvguide.staff import ImportsParams, ImportsReply, imports
from ott.tvguide.store import guide_store


@staff_route(Area.GUIDE, reply=ImportsReply, params=ImportsParams)
def lambda_handler(request: ApiRequest[ImportsParams, None]) -> ImportsReply:
    """The imports of the last week, of one `zone` or all, the newest first, each with its report."""
    return imports(guide_store(), request.account, request.params.zone)
