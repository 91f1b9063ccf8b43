"""POST /staff/launcher/decisions.json"""

from datetime import UTC, datetime

from ott.audit import audit_log
from ott.http.request import ApiRequest
from ott.http.staff import staff_route
from ott.launcher.edge import stored_anyway
from ott.launcher.models import ModeratedPoster, ModerationDecision
from ott.launcher.service import decide_poster
from ott.launcher.store import launcher_store
from ott.staff import Area


@staff_route(Area.LAUNCHER, reply=ModeratedPoster, payload=ModerationDecision, statuses=(404, 409, 422))
def lambda_handler(request: ApiRequest[None, ModerationDecision]) -> ModeratedPoster:
    """Approve a poster awaiting moderation (the public sees it from now on, until its content changes) or reject
    it with a comment; recorded with who and when, in the audit trail too. 409 when the block changed meanwhile."""
    store, now = launcher_store(audit=audit_log()), datetime.now(UTC)
    return stored_anyway(lambda: decide_poster(store, request.account, request.payload, now))
