"""GET /staff/me.json"""

from ott.console.models import StaffMember
from ott.console.service import who_am_i
from ott.http.request import ApiRequest
from ott.http.staff import staff_route


@staff_route(None, reply=StaffMember)
def lambda_handler(request: ApiRequest[None, None]) -> StaffMember:
    """The signed-in staff member: the name the audit trail gives them and the areas their token opens (403
    `insufficient_scope` for a token without any staff scope). The console shows only those areas."""
    return who_am_i(request.account)
