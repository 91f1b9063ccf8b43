"""The channel fallback runs as a Step Functions execution per request; the service talks to it here."""

import json
from typing import Any, Literal, Protocol

from ott.errors import DependencyUnavailable

Outcome = Literal["confirmed", "switch", "expired"]
# Seconds a client waits before asking again when the workflow cannot start (Step Functions' StartExecution
# throttle refills its bucket every second).
RETRY_AFTER_SECONDS = 2


class WorkflowNotStarted(DependencyUnavailable):
    """StartExecution failed (a throttle, an outage): no execution runs for the request. 503 with Retry-After."""

    def __init__(self) -> None:
        super().__init__("the confirmation workflow cannot be started now; try again", RETRY_AFTER_SECONDS)


class Orchestrator(Protocol):
    def start(self, request_id: str, phone: str) -> None:
        """Start the request's execution; raise WorkflowNotStarted when it cannot start."""
        ...

    def advance(self, task_token: str, outcome: Outcome) -> None: ...
    def fail(self, task_token: str, error: str) -> None: ...


class StepFunctions:
    def __init__(self, client: Any, state_machine_arn: str) -> None:
        self._client = client
        self._state_machine = state_machine_arn

    def start(self, request_id: str, phone: str) -> None:
        execution = {"request_id": request_id, "key": f"REQ#{request_id}", "phone": phone}
        try:
            self._client.start_execution(
                stateMachineArn=self._state_machine, name=f"request-{request_id}", input=json.dumps(execution)
            )
        except self._client.exceptions.ExecutionAlreadyExists:
            return  # a retried request: the execution runs already
        except Exception as error:
            raise WorkflowNotStarted from error

    def advance(self, task_token: str, outcome: Outcome) -> None:
        """Finish the waiting stage. A stage that ended meanwhile (its timeout, a provider failure) is
        no error: the execution has moved on already."""
        try:
            self._client.send_task_success(taskToken=task_token, output=json.dumps({"result": outcome}))
        except (self._client.exceptions.TaskTimedOut, self._client.exceptions.InvalidToken):
            return
        except Exception as error:
            raise DependencyUnavailable("the confirmation workflow is unavailable; try again") from error

    def fail(self, task_token: str, error: str) -> None:
        try:
            self._client.send_task_failure(taskToken=task_token, error=error, cause=error)
        except (self._client.exceptions.TaskTimedOut, self._client.exceptions.InvalidToken):
            return
