"""The guide's HTTP edge: the caching policies of its methods, and each reply's Cache-Control from how long
the domain's answer stays true and whether the caller's address chose it."""

from ott.http.caching import CachePolicy
from ott.http.request import Reply
from ott.tvguide.service import CATALOGUE_MAX_AGE, SCHEDULE_MAX_AGE, Answer

# Titles and descriptions are chosen by Accept-Language: caches keep a reply per language list.
VARY = ("Accept-Language",)
GUIDE_CACHE = CachePolicy(SCHEDULE_MAX_AGE, VARY)
CATALOGUE_CACHE = CachePolicy(CATALOGUE_MAX_AGE, VARY)
XMLTV_CONTENT_TYPE = "application/xml; charset=UTF-8"


def guide_reply(answer: Answer) -> Reply:
    """Public when the reply holds for anyone who asks the same; private when the address chose the zone."""
    scope = "private" if answer.by_address else "public"
    headers = {"Cache-Control": f"{scope}, max-age={max(0, answer.max_age)}", "Vary": ", ".join(VARY)}
    return Reply(answer.body, headers=headers)


def xmltv_reply(answer: Answer[str]) -> Reply:
    """The XMLTV document as it is, cached as the schedule is."""
    reply = guide_reply(answer)
    return Reply(reply.body, headers={**reply.headers, "Content-Type": XMLTV_CONTENT_TYPE})


def redirect_reply(answer: Answer[str]) -> Reply:
    """A 302 to the address the answer holds, cached as the answer says (shorter than the address lasts)."""
    reply = guide_reply(answer)
    return Reply(None, 302, headers={**reply.headers, "Location": answer.body})
