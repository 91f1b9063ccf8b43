"""GET /staff/guide/report.json"""

from ott.http.request import ApiRequest
from ott.http.staff import staff_route
from ott.staff import Area
from ott.tvguide.staff import ImportReport, ReportParams, report
from ott.tvguide.store import guide_store


@staff_route(Area.GUIDE, reply=ImportReport, params=ReportParams, statuses=(404,))
def lambda_handler(request: ApiRequest[ReportParams, None]) -> ImportReport:
    """One import's report by its `key` (the uploaded object's): its progress while it runs, then what it did;
    404 past its week."""
    return report(guide_store(), request.account, request.params.key)
