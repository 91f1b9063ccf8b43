"""GET /staff/channels/diff.json"""

from ott.channels.service import diff_versions
from ott.channels.staff import DiffParams, VersionDiff
from ott.channels.store import channel_store
from ott.http.request import ApiRequest
from ott.http.staff import staff_route
from ott.staff import Area


@staff_route(Area.CHANNELS, reply=VersionDiff, params=DiffParams, statuses=(404,))
def lambda_handler(request: ApiRequest[DiffParams, None]) -> VersionDiff:
    """What version `to` changes of version `from` (both kept, 404 otherwise): channels added, removed and
    changed field by field, and the other settings that differ."""
    return diff_versions(channel_store(), request.account, request.params)
