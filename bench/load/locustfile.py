"""The load test's clients (`make load`; run by locust in its own virtualenv, .venv-load, so it imports only
locust and what locust brings): set-top boxes doing the traffic model's mix (bench/capacity/traffic.py, per
device and day) and encoders working the niche-content queue. What they sent is written to LOAD_RESULTS when
the run stops, for `bench.load` to check against what the platform stored."""

import itertools
import json
import os
import random
import threading
import uuid
from collections import Counter
from datetime import UTC, datetime

import requests
from locust import HttpUser, between, events, task

CLICK_QUEUE_URL = os.environ["LOAD_CLICK_QUEUE_URL"]  # on the local stack's emulator
RESULTS = os.environ["LOAD_RESULTS"]
TV = {"client_id": "demo-tv", "client_secret": "demo-tv-secret"}
ENCODER_KEY = {"x-api-key": "demo-encoder-key"}
LANGUAGE = {"Accept-Language": "ru-RU,ru;q=0.9,en;q=0.5"}
ZONES = ("3", "9")  # territories of the demo registry: Москва, Екатеринбург

lock = threading.Lock()
addresses = itertools.count(1)
clicks: Counter[str] = Counter()  # poster id -> click events sent (each once, however often delivered)
redeliveries = 0
families: list[dict] = []  # each device's token family: its latest refresh token
taken: Counter[str] = Counter()  # niche-content item id -> takes the API accepted


# The emulator tells services apart by the credential scope of a request's signature, and checks nothing else.
SQS_HEADERS = {
    "X-Amz-Target": "AmazonSQS.SendMessage",
    "Content-Type": "application/x-amz-json-1.0",
    "Authorization": "AWS4-HMAC-SHA256 Credential=load/20260101/us-east-1/sqs/aws4_request, SignedHeaders=host, "
    "Signature=0",
}


def send_click(body: dict) -> None:
    """One SQS SendMessage (the JSON protocol) to the emulator's click queue, as the tracking service sends it."""
    message = {"QueueUrl": CLICK_QUEUE_URL, "MessageBody": json.dumps(body)}
    reply = requests.post(CLICK_QUEUE_URL, json=message, headers=SQS_HEADERS, timeout=30)
    reply.raise_for_status()


class SetTopBox(HttpUser):
    """A box on its own address (X-Forwarded-For, believed from loopback): its requests weighted by the traffic
    model's per-day counts, a few seconds apart."""

    wait_time = between(0.5, 2)

    def on_start(self) -> None:
        number = next(addresses)
        self.address = f"10.{number // 60000}.{number // 250 % 240}.{number % 250 + 1}"
        self.zone = random.choice(ZONES)
        issued = self.token({"grant_type": "vendor:anonymous"}, "/auth/2/token (anonymous)")
        self.family = {"refresh_token": issued["refresh_token"], "address": self.address}
        with lock:
            families.append(self.family)
        self.access = issued["access_token"]
        self.snapshot_hash = ""

    def headers(self, bearer: bool = False) -> dict[str, str]:
        found = {"X-Forwarded-For": self.address, **LANGUAGE}
        if bearer:
            found["Authorization"] = f"Bearer {self.access}"
        return found

    def token(self, form: dict[str, str], name: str) -> dict:
        reply = self.client.post("/auth/2/token", data={**TV, **form}, headers=self.headers(), name=name)
        reply.raise_for_status()
        return reply.json()

    @task(2)
    def whereami(self) -> None:
        self.client.get("/registry/2/whereami.json", headers=self.headers())

    @task(8)
    def refresh(self) -> None:
        form = {"grant_type": "refresh_token", "refresh_token": self.family["refresh_token"]}
        issued = self.token(form, "/auth/2/token (refresh)")
        self.family["refresh_token"], self.access = issued["refresh_token"], issued["access_token"]

    @task(6)
    def guide_channels(self) -> None:
        path = "/tvguide/2/channels.json"
        self.client.get(path, params={"t": self.zone}, headers=self.headers(), name=path)

    @task(20)
    def guide_schedule(self) -> None:
        query = {"t": self.zone, "channel": random.choice(("101", "103"))}
        path = "/tvguide/2/schedule.json"
        self.client.get(path, params=query, headers=self.headers(), name=path)

    @task(8)
    def posters(self) -> None:
        reply = self.client.get("/launcher/1/posters.json", headers=self.headers(bearer=True))
        if reply.ok:
            self.snapshot_hash = reply.headers.get("X-Snapshot-Hash", "")
            self.shown = [poster["id"] for poster in reply.json().get("posters", [])]

    @task(1)
    def click(self) -> None:
        """A click on a poster the box was shown; one in four sent twice (SQS delivers at least once, and the
        tracking service may retry a send)."""
        if not self.snapshot_hash or not getattr(self, "shown", None):
            return
        global redeliveries
        poster = random.choice(self.shown)
        body = {
            "event_id": str(uuid.uuid4()),
            "poster_id": poster,
            "snapshot_hash": self.snapshot_hash,
            "device_id": self.address,
            "time": datetime.now(UTC).isoformat(),
        }
        send_click(body)
        twice = random.random() < 0.25
        if twice:
            send_click(body)
        with lock:
            clicks[str(poster)] += 1
            redeliveries += twice


class Encoder(HttpUser):
    """An encoder polling the list and taking items into work; encoders race for the same items."""

    wait_time = between(0.2, 1)
    weight = 1

    @task(5)
    def list_items(self) -> None:
        self.client.get("/1/niche-content/list.json", params={"p": "1"}, headers=ENCODER_KEY)

    @task(1)
    def take(self) -> None:
        listed = self.client.get("/1/niche-content/list.json", params={"p": "1"}, headers=ENCODER_KEY)
        items = listed.json().get("content_list", []) if listed.ok else []
        if not items:
            return
        item = random.choice(items[:3])
        query = {"status": "totranscoder", "id": item["id"]}
        path = "/1/niche-content/updateStatus.json"
        reply = self.client.post(path, params=query, headers=ENCODER_KEY, name=path)
        if reply.ok:
            with lock:
                taken[item["id"]] += 1


SetTopBox.weight = 20


@events.test_stop.add_listener
def write_results(**_: object) -> None:
    with open(RESULTS, "w", encoding="utf-8") as sink:
        json.dump({"clicks": clicks, "redeliveries": redeliveries, "families": families, "taken": taken}, sink)
