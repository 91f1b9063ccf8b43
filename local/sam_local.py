"""`make sam-local`: the platform as `sam build` made it, served by `sam local start-api` in Docker, against the
local stack's AWS emulator with the demo data.

In order: the Lambda base image SAM CLI runs the functions in (`python -m local.lambda_image`: pulled, or built once
from Debian packages and PyPI), `sam build`, the local stack's emulator with every resource and the demo data (the
state machines, queue consumers and schedules run in this process as under `make run`), served to the containers on
the Docker bridge's address as well, then `sam local start-api --skip-pull-image` over `.aws-sam/build`, with every
function's environment as the local stack names things (`--env-vars`) and `AWS_ENDPOINT_URL` pointing at the
emulator (local/sam_cli.py). `SAM_WARM_CONTAINERS` (LAZY by default) picks EAGER or LAZY; `PORT` the API's port.
Ctrl-C stops all of it.

`python -m local.sam_local --invoke FUNCTION EVENT` runs one `sam local invoke` against a fresh emulator instead.

Lines it prints for scripts (tests/samlocal): `emulator: URL` (the emulator as this machine reaches it), `session:
JSON` (how to `sam local invoke` against the same emulator) and `sam-local: URL` once the API answers."""

import argparse
import ipaddress
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import yaml

from local.lambda_image.__main__ import ensure, local_architecture, runtimes_of_template
from local.stack import LocalStack, free_port
from local.template import LOCAL_PARAMETERS, PER_SERVICE_VARIABLES, REGION, ROOT, Template

SAM_VENV = ROOT / ".venv-sam"
SAM = SAM_VENV / "bin" / "sam"
SAM_CLI = [str(SAM_VENV / "bin" / "python"), str(ROOT / "local" / "sam_cli.py")]
# SAM_LOCAL_BUILD_DIR: another build folder than `sam build`'s own (the tests build beside `make validate`).
BUILD_DIR = Path(os.environ.get("SAM_LOCAL_BUILD_DIR") or ROOT / ".aws-sam" / "build")
BUILT_TEMPLATE = BUILD_DIR / "template.yaml"
SERVED_TEMPLATE = BUILD_DIR / "template-sam-local.yaml"  # beside it: the artifacts' relative paths hold
LOCAL_TIMEOUT = 60  # seconds: served_template says why
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local", "AWS_DEFAULT_REGION": REGION}


def docker_bridge_address() -> str:
    """The host's address on Docker's default bridge network, where the containers reach this machine."""
    found = subprocess.run(
        ["docker", "network", "inspect", "bridge", "--format", "{{json .IPAM.Config}}"],  # noqa: S607
        capture_output=True,
        text=True,
        check=True,
    )
    config = json.loads(found.stdout)[0]
    # Docker 20.10 (Debian's docker.io) names only the subnet: the bridge takes its first address.
    return config.get("Gateway") or str(next(ipaddress.ip_network(config["Subnet"]).hosts()))


def python_path() -> str:
    """PATH with the runtime's interpreter first: `sam build` looks for `python3.13` on it (the project's virtualenv
    is one, where the Makefile's PATH has none)."""
    return f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"


def sam_build() -> subprocess.Popen:
    """`sam build`, started: the local stack loads its demo data meanwhile (`built` waits for it). The artifacts
    are for this machine's architecture: the template's `Architecture` parameter, and the layer's wheels (its
    Makefile's `LAMBDA_ARCHITECTURE`: `sam build` passes no parameter to a makefile build)."""
    folders = ["--build-dir", str(BUILD_DIR), "--cache-dir", str(BUILD_DIR.parent / f"{BUILD_DIR.name}-cache")]
    environment = {**os.environ, "PATH": python_path(), "LAMBDA_ARCHITECTURE": local_architecture()}
    command = [str(SAM), "build", *folders, *parameter_overrides()]
    return subprocess.Popen(command, cwd=ROOT, env=environment)  # noqa: S603 - cached, parallel (samconfig)


def built(build: subprocess.Popen, started: float) -> None:
    if build.wait() != 0:
        sys.exit(f"sam build failed ({build.returncode})")
    print(f"sam build: done {time.monotonic() - started:.0f} s after the start", flush=True)


def function_environments(template: Template) -> dict[str, dict[str, str]]:
    """Every function's variables as the local stack resolves them (its resource names, the local parameters),
    with what the local stack overrides in its own environment (tests lower the password hash cost, say)."""
    return {
        function.logical_id: {
            name: value if name in PER_SERVICE_VARIABLES else os.environ.get(name, value)
            for name, value in function.environment.items()
        }
        for function in template.functions()
    }


def functions_in(node: Any) -> list[dict[str, Any]]:
    """The properties of every function, in an `Fn::ForEach` loop's fragment too."""
    found = []
    if isinstance(node, dict):
        if node.get("Type") == "AWS::Serverless::Function" and isinstance(node.get("Properties"), dict):
            found.append(node["Properties"])
        for value in node.values():
            found += functions_in(value)
    elif isinstance(node, list):
        for value in node:
            found += functions_in(value)
    return found


def served_template() -> Path:
    """The built template as `sam local` can serve it; nothing else changes:
    - the API's stage name is an SSM parameter's value read back (template.yaml says why), which SAM CLI leaves
      unresolved: the authorizers' method ARNs then hold the expression and SAM CLI matches no policy. Here the stage
      takes the parameter's own value;
    - an authorizer's FunctionArn `!Ref Function.Alias` (SnapStart runs a published version: SAM's AutoPublishAlias
      makes the alias) is one SAM CLI 1.170 cannot parse ("Unable to parse the Lambda ARN for Authorizer", and the
      routes go unguarded): here it is `!GetAtt Function.Arn`, the same code (sam local runs no versions);
    - a function's Timeout is at least `LOCAL_TIMEOUT`: SAM CLI counts a container's cold start (Python importing
      the code, in a fresh container, on a machine that may be busy) against it, where Lambda gives the init its
      own 10 s; a 10 s function whose container starts beside others would time out (502) before it ran."""
    document = yaml.safe_load(BUILT_TEMPLATE.read_text(encoding="utf-8"))
    resources = document["Resources"]
    for spec in resources.values():
        props = spec.get("Properties", {}) if isinstance(spec, dict) else {}  # not an Fn::ForEach
        if not props or spec.get("Type") != "AWS::Serverless::Api":
            continue
        if "Fn::GetAtt" in (props.get("StageName") or {}):
            source, attribute = props["StageName"]["Fn::GetAtt"]
            if resources[source]["Type"] == "AWS::SSM::Parameter" and attribute == "Value":
                props["StageName"] = resources[source]["Properties"]["Value"]
        for authorizer in (props.get("Auth") or {}).get("Authorizers", {}).values():
            function = (authorizer.get("FunctionArn") or {}).get("Ref")
            if isinstance(function, str) and function.endswith(".Alias"):
                authorizer["FunctionArn"] = {"Fn::GetAtt": [function.removesuffix(".Alias"), "Arn"]}
    for function in [document.get("Globals", {}).get("Function", {}), *functions_in(resources)]:
        if isinstance(function.get("Timeout"), int):
            function["Timeout"] = max(function["Timeout"], LOCAL_TIMEOUT)
    SERVED_TEMPLATE.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return SERVED_TEMPLATE


def parameter_overrides() -> list[str]:
    """The local stack's parameters with this machine's architecture (Docker here runs no other), and the template's
    `Fn::ForEach` expanded (samconfig.toml says so for the checkout's template, but SAM CLI reads it beside the built
    one)."""
    parameters = {**LOCAL_PARAMETERS, "Architecture": local_architecture()}
    return [
        "--language-extensions",
        "--parameter-overrides",
        " ".join(f"{name}={value}" for name, value in parameters.items()),
    ]


class SamLocal:
    """The emulator with the demo data, and the files and environment `sam local` needs to reach it."""

    def __init__(self, api_port: int) -> None:
        self.api_url = f"http://127.0.0.1:{api_port}"
        self.stack = LocalStack(port=free_port())
        self.stack.base_url = self.api_url  # the demo data's links lead to the API sam local serves
        self._files = tempfile.TemporaryDirectory(prefix="sam-local-")
        self.env_vars = Path(self._files.name) / "env-vars.json"
        self.container_url = ""

    def start(self) -> None:
        """The emulator with every resource, reachable from the containers; the demo data goes on loading (`ready`)."""
        self.stack.start()
        emulator = self.stack.emulator
        assert emulator is not None  # noqa: S101 - started above
        self.container_url = emulator.serve_also(docker_bridge_address())
        self.env_vars.write_text(json.dumps(function_environments(self.stack.template)), encoding="utf-8")
        print(f"emulator: {emulator.url}", flush=True)

    def ready(self) -> None:
        while not self.stack.ready(within=0.5):
            pass

    def session(self) -> dict[str, Any]:
        """What another `sam local invoke` needs to reach the same emulator (tests/samlocal): `sam_cli`'s command,
        its environment's additions, and the arguments every invoke takes."""
        emulator = self.stack.emulator
        assert emulator is not None  # noqa: S101 - started
        extra = {name: value for name, value in self.environment().items() if os.environ.get(name) != value}
        arguments = ["--template", str(SERVED_TEMPLATE), "--skip-pull-image", "--region", REGION]
        arguments += ["--env-vars", str(self.env_vars), *parameter_overrides()]
        return {
            "api": self.api_url,
            "emulator": emulator.url,
            "sam": SAM_CLI,
            "environment": extra,
            "arguments": arguments,
        }

    def environment(self) -> dict[str, str]:
        emulator = self.stack.emulator
        assert emulator is not None  # noqa: S101 - started
        container = {
            "AWS_ENDPOINT_URL": self.container_url,
            "S3_BROWSER_ENDPOINT": emulator.url,  # presigned forms for a browser on this machine
            "GUIDE_EXPORT_ENDPOINT": emulator.url,
        }
        return {**os.environ, **CREDENTIALS, "SAM_CLI_TELEMETRY": "0", "SAM_LOCAL_CONTAINER_ENV": json.dumps(container)}

    def stop(self) -> None:
        self.stack.stop()
        self._files.cleanup()


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=60):  # noqa: S310 - the local API
            return True
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False


def start_api(local: SamLocal, port: int, warm: str) -> subprocess.Popen:
    command = [
        *SAM_CLI,
        "local",
        "start-api",
        "--template",
        str(served_template()),
        "--skip-pull-image",
        "--warm-containers",
        warm,
        "--port",
        str(port),
        "--host",
        "127.0.0.1",
        "--region",
        REGION,
        "--env-vars",
        str(local.env_vars),
        *parameter_overrides(),
    ]
    return subprocess.Popen(command, cwd=ROOT, env=local.environment())  # noqa: S603


def invoke(local: SamLocal, function: str, event: Path) -> int:
    command = [
        *SAM_CLI,
        "local",
        "invoke",
        function,
        "--template",
        str(served_template()),
        "--event",
        str(event),
        "--skip-pull-image",
        "--region",
        REGION,
        "--env-vars",
        str(local.env_vars),
        *parameter_overrides(),
    ]
    return subprocess.run(command, cwd=ROOT, env=local.environment(), check=False).returncode  # noqa: S603


def interrupt(*_: Any) -> None:
    raise KeyboardInterrupt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--invoke", nargs=2, metavar=("FUNCTION", "EVENT"), help="one sam local invoke, then stop")
    parser.add_argument("--no-build", action="store_true", help="serve .aws-sam/build as it is")
    args = parser.parse_args()
    # SIGTERM stops it as Ctrl-C does, and so does SIGINT when it was started with SIGINT ignored (a background job):
    # a handler of its own also gives `sam` the default SIGINT back, which stops it and its containers.
    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGINT, interrupt)
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # the emulator's line per request
    port = int(os.environ.get("PORT", "3000"))
    started = time.monotonic()
    if subprocess.run(["docker", "info"], capture_output=True, check=False).returncode != 0:  # noqa: S607
        sys.exit("sam local needs a Docker daemon: apt-get install docker.io, then start dockerd (README)")
    for runtime, architecture in runtimes_of_template():
        ensure(runtime, architecture, pull=os.environ.get("SAM_SKIP_PULL_IMAGE") is None)
    build = None if args.no_build else sam_build()
    local = SamLocal(port)
    api: subprocess.Popen | None = None
    try:
        local.start()
        if build is not None:
            built(build, started)
        if args.invoke:
            local.ready()
            sys.exit(invoke(local, args.invoke[0], Path(args.invoke[1])))
        api = start_api(local, port, os.environ.get("SAM_WARM_CONTAINERS", "LAZY"))
        local.ready()
        print(f"demo data: loaded {time.monotonic() - started:.0f} s after the start", flush=True)
        while not answers(f"{local.api_url}/nowhere"):  # the gateway's own 404: no function, no container
            if api.poll() is not None:
                sys.exit(f"sam local start-api stopped ({api.returncode})")
            time.sleep(0.5)
        print(f"session: {json.dumps(local.session())}", flush=True)
        print(f"sam-local: {local.api_url} (ready in {time.monotonic() - started:.0f} s)", flush=True)
        print(f"  try: curl {local.api_url}/registry/2/whereami.json", flush=True)
        api.wait()
    except KeyboardInterrupt:
        pass
    finally:
        if build is not None and build.poll() is None:
            build.terminate()
        if api is not None and api.poll() is None:
            api.send_signal(signal.SIGINT)  # sam stops its containers on Ctrl-C
            try:
                api.wait(timeout=180)  # EAGER: sam stops its 74 containers one by one
            except subprocess.TimeoutExpired:
                api.kill()
        local.stop()
    os._exit(0)


if __name__ == "__main__":
    main()
