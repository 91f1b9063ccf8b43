"""GET /staff/niche-content/queue.json"""

from datetime import UTC, datetime

from ott.http.request import ApiRequest
from ott.http.staff import staff_route
from ott.nichecontent.service import queue_page
from ott.nichecontent.staff import QueuePage, QueueParams
from ott.nichecontent.store import niche_store
from ott.staff import Area


@staff_route(Area.NICHE_CONTENT, reply=QueuePage, params=QueueParams)
def lambda_handler(request: ApiRequest[QueueParams, None]) -> QueuePage:
    """The queue by `status` (awaiting, in_work, retrying, failed), page `p` of 20, oldest first: what encoders
    are given, what they hold, what the queue retries by itself and what waits for an operator's retry."""
    return queue_page(niche_store(), request.account, request.params, datetime.now(UTC))
