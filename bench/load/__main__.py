"""`make load`: a bounded load test of the local stack on loopback. It starts the stack (as `make run` does,
believing X-Forwarded-For from loopback so that each simulated box has an address of its own), runs locust
(.venv-load: bench/load/locustfile.py) for LOAD_SECONDS with LOAD_USERS clients in the traffic model's mix,
prints locust's latency percentiles per route, then checks that nothing was lost or counted twice:

- every click event counted exactly once (each poster's counter grew by the events sent for it, redeliveries
  included: one in four is sent twice), once the click queue is drained, and none in its dead-letter queue;
- every encoder take applied once (each item taken has one encoder transition in its history, and the
  awaiting list and its count agree);
- every token family consistent (each box's latest refresh token still refreshes).
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import boto3
import requests

from local.announce import local_stack_file, wait_for_banner
from local.stack import free_port
from local.template import REGION, ROOT, Template

LOCUST = ROOT / ".venv-load" / "bin" / "locust"
USERS = int(os.environ.get("LOAD_USERS", "40"))
SECONDS = int(os.environ.get("LOAD_SECONDS", "60"))
DRAINED_WITHIN = 300  # seconds the click consumer may take to drain the queue after the run


def start_stack(port: int, console: Path) -> subprocess.Popen:
    env = {**os.environ, "PORT": str(port), "TRUSTED_PROXIES": "127.0.0.1/32"}
    env["ANONYMOUS_ACCOUNTS_PER_IP_PER_HOUR"] = "100000"  # every box signs up at once; the limit is per address
    with console.open("w") as sink:
        process = subprocess.Popen([sys.executable, "-m", "local"], cwd=ROOT, env=env, stdout=sink, stderr=sink)
    wait_for_banner(process, console, within=900)
    return process


def aws(service: str, endpoint: str) -> Any:
    return boto3.client(
        service, endpoint_url=endpoint, region_name=REGION, aws_access_key_id="load", aws_secret_access_key="load"
    )


def counters(dynamodb: Any, table: str) -> Counter[str]:
    pages = dynamodb.get_paginator("scan").paginate(  # each poster's counter is its own partition CLICKS#<id>
        TableName=table,
        FilterExpression="begins_with(pk, :p)",
        ExpressionAttributeValues={":p": {"S": "CLICKS#"}},
        ConsistentRead=True,
    )
    items = [item for page in pages for item in page["Items"]]
    return Counter({str(int(item["pk"]["S"][7:])): int(item.get("total", {}).get("N", "0")) for item in items})


def drained(sqs: Any, url: str) -> bool:
    names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    found = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=names)["Attributes"]
    return all(found[name] == "0" for name in names)


def check_clicks(dynamodb: Any, sqs: Any, template: Template, before: Counter[str], sent: dict) -> list[str]:
    queue = sqs.get_queue_url(QueueName=template.physical_name("LauncherClickQueue"))["QueueUrl"]
    dead = sqs.get_queue_url(QueueName=template.physical_name("LauncherClickDeadLetterQueue"))["QueueUrl"]
    deadline = time.monotonic() + DRAINED_WITHIN
    while not drained(sqs, queue) and time.monotonic() < deadline:
        time.sleep(1)
    problems = [] if drained(sqs, queue) else [f"the click queue is not drained after {DRAINED_WITHIN} s"]
    if not drained(sqs, dead):
        problems.append("click events went to the dead-letter queue")
    after = counters(dynamodb, template.physical_name("LauncherTable"))
    for poster in sorted(set(sent["clicks"]) | set(after), key=int):
        counted = after[poster] - before[poster]
        if counted != sent["clicks"].get(poster, 0):
            problems.append(f"poster {poster}: {sent['clicks'].get(poster, 0)} click events sent, {counted} counted")
    print(
        f"clicks: {sum(sent['clicks'].values())} events sent ({sent['redeliveries']} of them twice), "
        f"{sum(after.values()) - sum(before.values())} counted"
    )
    return problems


def check_takes(dynamodb: Any, template: Template, sent: dict) -> list[str]:
    table = template.physical_name("NicheContentTable")
    problems = []
    for item_id in sent["taken"]:
        key = {"pk": {"S": f"ITEM#{item_id}"}, "sk": {"S": "ITEM"}}
        doc = json.loads(dynamodb.get_item(TableName=table, Key=key, ConsistentRead=True)["Item"]["doc"]["S"])
        updates = [entry for entry in doc["history"] if entry["cause"] == "update"]
        if len(updates) != 1:
            problems.append(f"niche-content item {item_id}: {len(updates)} encoder transitions, 1 expected")
    rows = dynamodb.query(
        TableName=table,
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": {"S": "AWAITING"}},
        ConsistentRead=True,
    )["Items"]
    count = next((int(row["n"]["N"]) for row in rows if row["sk"]["S"] == "#COUNT"), 0)
    listed = sum(1 for row in rows if row["sk"]["S"] != "#COUNT")
    if count != listed:
        problems.append(f"niche-content awaiting: count {count}, {listed} items listed")
    accepted = sum(sent["taken"].values())
    print(f"encoder takes: {accepted} accepted for {len(sent['taken'])} items; awaiting {listed} (count {count})")
    return problems


def check_families(url: str, sent: dict) -> list[str]:
    problems = []
    for family in sent["families"]:
        form = {"grant_type": "refresh_token", "refresh_token": family["refresh_token"]}
        form |= {"client_id": "demo-tv", "client_secret": "demo-tv-secret"}
        address = {"X-Forwarded-For": family["address"]}
        reply = requests.post(f"{url}/auth/2/token", data=form, headers=address, timeout=60)
        if reply.status_code != 200:
            problems.append(f"the family of {family['address']}: its latest refresh token got {reply.status_code}")
    print(f"token families: {len(sent['families'])}, each refreshed once more")
    return problems


def main() -> int:
    if not LOCUST.exists():
        print(f"{LOCUST} is missing: make .venv-load/bin/locust", file=sys.stderr)
        return 2
    template = Template()
    port = free_port()
    work = Path(tempfile.mkdtemp(prefix="load-"))
    stack = start_stack(port, work / "stack.log")
    try:
        url = f"http://127.0.0.1:{port}"
        endpoint = json.loads(local_stack_file(str(port)).read_text(encoding="utf-8"))["endpoint"]
        dynamodb, sqs = aws("dynamodb", endpoint), aws("sqs", endpoint)
        before = counters(dynamodb, template.physical_name("LauncherTable"))
        queue = sqs.get_queue_url(QueueName=template.physical_name("LauncherClickQueue"))["QueueUrl"]
        env = {**os.environ, "LOAD_CLICK_QUEUE_URL": queue}
        env["LOAD_RESULTS"] = str(work / "sent.json")
        run = [str(LOCUST), "-f", str(ROOT / "bench" / "load" / "locustfile.py"), "--headless", "--host", url]
        run += ["--users", str(USERS), "--spawn-rate", str(max(1, USERS // 10)), "--run-time", f"{SECONDS}s"]
        run += ["--only-summary", "--stop-timeout", "10"]
        subprocess.run(run, env=env, check=False, timeout=SECONDS + 300)
        sent = json.loads((work / "sent.json").read_text(encoding="utf-8"))
        problems = check_clicks(dynamodb, sqs, template, before, sent)
        problems += check_takes(dynamodb, template, sent)
        problems += check_families(url, sent)
    finally:
        stack.terminate()
        stack.wait(timeout=60)
    for problem in problems:
        print(f"LOST OR DOUBLED: {problem}")
    print("nothing lost, nothing counted twice" if not problems else f"{len(problems)} problem(s); stack log: {work}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
