"""Loading a registry file, the one way to change the registry (`load_registry`: `ops.registry.load` and the
console's upload both call it), and the console's asynchronous load (docs/registry.md, "The registry for staff").

From the console: `start_upload` gives the browser a form to post the file to S3 (`ott.uploads`) and records the
load, waiting; the bucket's event reaches `load_uploads` through SQS, which claims the load (a redelivered event
finds it claimed and does nothing), checks the file whole as the loader does (problems listed, nothing written),
then loads it; the console polls `load_status`. Only the event of the load's own key in the load's own bucket claims
it, and the file read is the upload that event announced (its entity tag): posted again, the form's second file is
not read (the bucket keeps both versions)."""

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from ott.audit import AuditEntry, entry
from ott.callers import Account, Operator, Staff
from ott.clock import epoch_seconds
from ott.documents import UPLOAD_LIMITS
from ott.errors import NotFound, PayloadTooLarge
from ott.observability import logger
from ott.registry.catalog import CatalogError, CatalogSnapshot
from ott.registry.service import read_registry_file
from ott.registry.staff import LoadStatus, RegistryFileParams, RegistryLoad, RegistryLoadParams, RegistryUpload
from ott.registry.store import ConcurrentLoad, RegistryStore, Summary
from ott.staff import Area, require_area
from ott.uploads import UploadBucket, Uploaded, UploadGone, upload_form, upload_key, uploaded_objects

# Uploads go under this prefix of the registry's upload bucket: `registry/<load id>-<file name>`.
PREFIX = "registry"
# A registry at scale (issue 11: 60k territories, 100k prefixes) is a few tens of MB of YAML.
MAX_FILE_BYTES = 64 * 1024 * 1024
# A load's status is kept this long; the audit trail keeps the load itself.
STATUS_KEPT = timedelta(days=30)
# A claimed load that has not moved for this long died with its function (the template's 900-second timeout):
# the event's redelivery takes it over.
STALE_SECONDS = 960


@dataclass(frozen=True)
class LoadOutcome:
    written: int
    before: Summary
    after: Summary


def load_registry(
    store: RegistryStore, staff: Staff, snapshot: CatalogSnapshot, source: str, now: datetime
) -> LoadOutcome:
    """Replace the registry with `snapshot` (a file checked whole), recorded in the audit trail with the
    registry it replaced and the one it published, in the publishing write. ConcurrentLoad: nothing published."""
    require_area(staff, Area.REGISTRY)
    summaries: list[Summary] = []

    def audited(before: Summary, after: Summary) -> AuditEntry:
        summaries.extend([before, after])
        return entry(Area.REGISTRY, "load", "registry", staff, now, detail=source, before=before, after=after)

    written = store.replace_catalog(snapshot, audited)
    before, after = summaries
    return LoadOutcome(written, before, after)


def start_upload(
    store: RegistryStore, bucket: UploadBucket, staff: Staff, params: RegistryFileParams, now: datetime
) -> RegistryUpload:
    """A load of the file `params.source`, waiting for it, and the form the browser posts it to storage with."""
    require_area(staff, Area.REGISTRY)
    key = upload_key(PREFIX, params.source)
    load = RegistryLoad(
        load_id=load_id_of(key),
        source=params.source,
        status=LoadStatus.WAITING,
        requested_by=staff.name,
        requested_at=now,
        updated_at=now,
    )
    store.begin_load(load, requester_record(staff), epoch_seconds(now + STATUS_KEPT))
    return RegistryUpload(load=load, form=upload_form(bucket, key, MAX_FILE_BYTES, now))


def load_status(store: RegistryStore, staff: Staff, params: RegistryLoadParams) -> RegistryLoad:
    """Where a load from the console is: waiting for its file, validating, invalid (its problems), loading,
    loaded or failed."""
    require_area(staff, Area.REGISTRY)
    load = store.registry_load(params.id)
    if load is None:
        raise NotFound(f"no registry load {params.id}")
    return load


def load_uploads(store: RegistryStore, bucket: UploadBucket, body: str, clock: Callable[[], datetime]) -> None:
    """Load every registry file an S3 event of `bucket` names, each once: an event of another bucket, a key that
    names no load or not the key its load's form was for, or a load already claimed (the event delivered again, or
    the form posted twice: reported in the log) is passed over. Whatever happens to a load it claims, it ends
    `invalid` or `failed` with the reason, on this delivery: a redelivery cannot do better (issue 28)."""
    for uploaded in uploaded_objects(body):
        if uploaded.bucket != bucket.name:
            logger.warning("registry upload passed over: another bucket", extra={"bucket": uploaded.bucket[:256]})
            continue
        load_id = load_id_of(uploaded.key)
        waiting = store.registry_load(load_id) if uploaded.key.partition("/")[0] == PREFIX and load_id else None
        if waiting is None or upload_key_of(waiting) != uploaded.key:
            logger.info("registry upload passed over: no load waits for it", extra={"key": uploaded.key[:1024]})
            continue
        claimed = store.claim_load(load_id, epoch_seconds(clock()) - STALE_SECONDS)
        if claimed is None:
            logger.warning(
                "registry upload passed over: its load is claimed already (the event again, or the form posted twice)",
                extra={"key": uploaded.key, "etag": uploaded.etag, "status": str(waiting.status)},
            )
            continue
        load, requester = claimed
        validating = _moved(store, load, LoadStatus.VALIDATING, clock)  # what the console polls says so at once
        _load_upload(store, bucket, uploaded, validating, staff_of(requester), clock)


def _load_upload(
    store: RegistryStore,
    bucket: UploadBucket,
    uploaded: Uploaded,
    load: RegistryLoad,
    staff: Staff,
    clock: Callable[[], datetime],
) -> None:
    try:
        text = bucket.read(uploaded.key, MAX_FILE_BYTES, uploaded.etag).decode("utf-8")
        snapshot = read_registry_file(text, load.source, UPLOAD_LIMITS)
    except CatalogError as error:
        _moved(store, load, LoadStatus.INVALID, clock, problems=error.problems)
        return
    except (PayloadTooLarge, UploadGone) as error:
        _moved(store, load, LoadStatus.INVALID, clock, problems=[f"{load.source}: {error}"])
        return
    except UnicodeDecodeError:
        _moved(store, load, LoadStatus.INVALID, clock, problems=[f"{load.source}: not UTF-8 text"])
        return
    except Exception as error:  # any other failure ends the load, reported
        logger.exception("registry upload: the check broke off", extra={"key": uploaded.key})
        detail = f"the check broke off ({type(error).__name__}); nothing was published: upload the file again"
        _moved(store, load, LoadStatus.FAILED, clock, detail=detail)
        return
    loading = _moved(store, load, LoadStatus.LOADING, clock)
    try:
        outcome = load_registry(store, staff, snapshot, load.source, clock())
    except ConcurrentLoad as error:
        _moved(store, loading, LoadStatus.FAILED, clock, detail=str(error))
        return
    except Exception as error:  # a redelivery would find the load ended
        logger.exception("registry upload: the load broke off", extra={"key": uploaded.key})
        detail = f"the load broke off ({type(error).__name__}); nothing was published: upload the file again"
        _moved(store, loading, LoadStatus.FAILED, clock, detail=detail)
        return
    _moved(
        store,
        loading,
        LoadStatus.LOADED,
        clock,
        before=outcome.before,
        after=outcome.after,
        written=outcome.written,
    )


def _moved(
    store: RegistryStore, load: RegistryLoad, status: LoadStatus, clock: Callable[[], datetime], **fields: object
) -> RegistryLoad:
    moved = load.model_copy(update={"status": status, "updated_at": clock(), **fields})
    store.save_load(moved)
    return moved


def upload_key_of(load: RegistryLoad) -> str:
    """The one key a load's form posts to (`upload_key`)."""
    return f"{PREFIX}/{load.load_id}-{load.source.rpartition('/')[2]}"


def load_id_of(key: str) -> str:
    """`registry/<load id>-<file name>` → the load id."""
    return key.partition("/")[2].partition("-")[0]


def requester_record(staff: Staff) -> str:
    """Who asked for a load, kept with it for the load's own check and audit entry."""
    if isinstance(staff, Operator):
        return json.dumps({"operator": staff.name})
    return json.dumps(
        {
            "accountId": staff.account_id,
            "clientId": staff.client_id,
            "scopes": sorted(staff.scopes),
            "username": staff.username,
        }
    )


def staff_of(record: str) -> Staff:
    """The staff member a load was asked for by, with the scopes their token had then."""
    fields = json.loads(record)
    if "operator" in fields:
        return Operator(fields["operator"])
    return Account(
        account_id=fields["accountId"],
        client_id=fields["clientId"],
        scopes=frozenset(fields["scopes"]),
        address="",
        username=fields["username"],
    )
