"""The zone's export: a message of the export queue names a zone whose guide changed; its whole guide is written
to the export bucket again (docs/tvguide.md, "The export")."""

from ott.observability import logger, observed
from ott.queues import CORRELATION, each_message
from ott.tvguide.export_queue import requested_zone
from ott.tvguide.store import guide_store
from ott.tvguide.zone_export import export_bucket, write_zone_export


def run(body: str) -> None:
    zone = requested_zone(body)
    if zone is None:
        logger.error("export request without a zone name: dropped", extra={"body": body[:200]})
        return
    written = write_zone_export(guide_store(fresh=True), export_bucket(), zone)
    logger.info("guide export", extra={"zone": zone, "written": written.__dict__ if written else "deleted"})


lambda_handler = observed(lambda event, context: each_message(event, run), correlation_id_path=CORRELATION)
