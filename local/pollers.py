"""What Lambda's SQS event source mappings do, for the local stack and the tests: receive messages,
invoke the function with an SQS event, delete what it did not report as failed."""

import logging
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from local.gateway import run_function
from local.template import ACCOUNT, REGION, Function, Template

LOG = logging.getLogger(__name__)
# Seconds between receives on an empty queue: doubling from the first to the last while it stays empty, so that an
# idle stack costs little and a message that arrives after a busy spell is taken at once.
FIRST_PAUSE, LAST_PAUSE = 0.1, 1.0


def no_wait(_: Function) -> None:
    """What a poller waits for before its first receive by default: nothing."""


def deliver(sqs: Any, queue_url: str, queue_arn: str, function: Function) -> int:
    """One receive-invoke-delete round; returns how many messages were handled. It never long-polls: the
    emulator answers one request at a time, and a long poll would hold it (local.emulator)."""
    messages = sqs.receive_message(
        QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=0, AttributeNames=["All"]
    ).get("Messages", [])
    if not messages:
        return 0
    event = {
        "Records": [
            {
                "messageId": message["MessageId"],
                "receiptHandle": message["ReceiptHandle"],
                "body": message["Body"],
                "attributes": message.get("Attributes", {}),
                "messageAttributes": {},
                "md5OfBody": message.get("MD5OfBody", ""),
                "eventSource": "aws:sqs",
                "eventSourceARN": queue_arn,
                "awsRegion": REGION,
            }
            for message in messages
        ]
    }
    reply = run_function(function, event)
    failed = {item["itemIdentifier"] for item in (reply or {}).get("batchItemFailures", [])}
    for message in messages:
        if message["MessageId"] not in failed:
            sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
    return len(messages)


class QueuePollers:
    """A thread per SQS event source of the template, polling until stopped; `wait_for(function)` returns once the
    function may run (the local stack: once its service is loaded), before the first receive."""

    def __init__(self, template: Template, sqs: Any, wait_for: Callable[[Function], None] = no_wait) -> None:
        self._sqs = sqs
        self._wait_for = wait_for
        self._sources = [
            (template.queue_url(queue), template.arn(queue), function) for queue, function in template.queue_consumers()
        ]
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        for source in self._sources:
            thread = threading.Thread(target=self._poll, args=source, daemon=True, name=f"poll-{source[2].logical_id}")
            thread.start()
            self._threads.append(thread)

    def _poll(self, queue_url: str, queue_arn: str, function: Function) -> None:
        """Messages a function reports as failed (or all of a batch when it raises) are left to reappear after
        the queue's visibility timeout, then to move to its dead-letter queue, as with Lambda's mapping."""
        pause = FIRST_PAUSE
        self._wait_for(function)
        while not self._stop.is_set():
            try:
                if deliver(self._sqs, queue_url, queue_arn, function):
                    pause = FIRST_PAUSE
                    continue
            except Exception:  # keep polling, as the event source mapping does
                LOG.exception("%s failed on a batch of its queue", function.logical_id)
            self._stop.wait(pause)
            pause = min(LAST_PAUSE, pause * 2)

    def stop(self, within: float = 0.3) -> None:
        """Stop polling; an invocation still running is left to end with the process (daemon threads)."""
        self._stop.set()
        deadline = time.monotonic() + within
        for thread in self._threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))


def scheduled_event(function: Function) -> dict[str, Any]:
    """The event EventBridge sends a `Schedule` target."""
    return {
        "version": "0",
        "id": str(uuid.uuid4()),
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": ACCOUNT,
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "region": REGION,
        "resources": [f"arn:aws:events:{REGION}:{ACCOUNT}:rule/{function.logical_id}"],
        "detail": {},
    }


def run_scheduled(function: Function) -> Any:
    return run_function(function, scheduled_event(function))


class Schedules:
    """EventBridge schedules do not fire in the emulator: a thread per scheduled function runs it at its
    template rate, the first time right after start-up (so `make run` shows a schedule's work at once)."""

    def __init__(self, template: Template) -> None:
        self._entries = template.scheduled_functions()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        for function, period in self._entries:
            thread = threading.Thread(
                target=self._run, args=(function, period), daemon=True, name=f"schedule-{function.logical_id}"
            )
            thread.start()
            self._threads.append(thread)

    def _run(self, function: Function, period: int) -> None:
        while not self._stop.is_set():
            try:
                run_scheduled(function)
            except Exception:  # retried at the next tick, as EventBridge would
                LOG.exception("scheduled run of %s failed", function.logical_id)
            self._stop.wait(period)

    def stop(self) -> None:
        self._stop.set()
