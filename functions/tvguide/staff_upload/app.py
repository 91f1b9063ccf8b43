"""POST /staff/guide/upload.json"""

from datetime import UTC, datetime

from ott.audit import audit_log
from ott.config import load_settings
from ott.http.request import ApiRequest
from ott.http.staff import staff_route
from ott.staff import Area
from ott.tvguide.staff import GuideUpload, upload_guide
from ott.tvguide.store import GuideSettings, guide_store
from ott.uploads import UploadForm, upload_bucket


@staff_route(Area.GUIDE, reply=UploadForm, payload=GuideUpload, statuses=(404,))
def lambda_handler(request: ApiRequest[None, GuideUpload]) -> UploadForm:
    """A form to post an XMLTV guide for `zone` straight to the guide inbox (the import starts when it is in;
    its report is `report.json?key=<the form's key>`); 404 for a zone that does not exist."""
    inbox = upload_bucket(load_settings(GuideSettings).inbox_bucket)
    return upload_guide(guide_store(), inbox, audit_log(), request.account, request.payload, datetime.now(UTC))
