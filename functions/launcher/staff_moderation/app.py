"""GET /staff/launcher/moderation.json"""

from datetime import UTC, datetime

from ott.http.request import ApiRequest
from ott.http.staff import staff_route
from ott.launcher.models import PosterList
from ott.launcher.service import moderation_queue
from ott.launcher.store import launcher_store
from ott.staff import Area


@staff_route(Area.LAUNCHER, reply=PosterList)
def lambda_handler(request: ApiRequest[None, None]) -> PosterList:
    """Every poster marked for pre-moderation, whoever it is for, with its state (pending, approved, rejected and
    why), as a set-top box shows it: images in their profiles, colour, title, a collection's members."""
    return moderation_queue(launcher_store(), request.account, datetime.now(UTC))
