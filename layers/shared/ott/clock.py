"""The platform's clock convention: whatever starts the work (a handler, a queue consumer, a schedule) reads
the clock once, `datetime.now(UTC)`, and passes it down as `now`, an aware UTC datetime; the domain never
reads the clock, so tests set it. Stored instants and TTL attributes are epoch seconds (DynamoDB's TTL unit)."""

from datetime import datetime


def epoch_seconds(moment: datetime) -> int:
    """The whole second `moment` falls in, as stored (what `int(time.time())` gives for the present)."""
    return int(moment.timestamp())
