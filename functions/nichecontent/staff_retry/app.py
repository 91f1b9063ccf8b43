"""POST /staff/niche-content/retry.json"""

from datetime import UTC, datetime

from ott.audit import audit_log
from ott.config import load_settings
from ott.http.request import ApiRequest
from ott.http.staff import staff_route
from ott.nichecontent.models import NicheItem
from ott.nichecontent.service import retry
from ott.nichecontent.settings import NicheSettings
from ott.nichecontent.staff import RetryRequest
from ott.nichecontent.store import niche_store
from ott.staff import Area


@staff_route(Area.NICHE_CONTENT, reply=NicheItem, payload=RetryRequest, statuses=(404, 409, 503))
def lambda_handler(request: ApiRequest[None, RetryRequest]) -> NicheItem:
    """A failed item back to awaiting (encoders are given it again), its automatic retries renewed, the operator
    named in its history and the audit trail; an item already awaiting is answered as it is (a retry sent twice
    changes nothing), 409 for any other that is not failed."""
    store, now = niche_store(audit_log()), datetime.now(UTC)
    return retry(store, load_settings(NicheSettings).policy, request.account, request.payload.id, now)
