"""Operators' files parsed within bounds (issue 28, findings 1 and 2): the worst shapes the parsers accept (a flow
list, many keys, deep mappings, a long scalar, in YAML and JSON; an M3U at the import's bounds), each parsed in a
process of its own, its CPU time and peak memory against half the Timeout and MemorySize the template gives the
function that reads it. Lambda gives a function CPU in proportion to its memory (one vCPU at 1,769 MB): the time
shown for Lambda is the CPU time measured here scaled by that share (a busy machine measures more)."""

import subprocess
import sys
import textwrap

from ott.documents import REQUEST_LIMITS, UPLOAD_LIMITS, Limits

VCPU_MB = 1769
# The function, its Timeout (s) and MemorySize (MB), as template.yaml gives them.
REQUEST_FUNCTION = ("RegistryStaffCheckFunction / ChannelsStaffLoadFunction", 30, 512)
UPLOAD_FUNCTION = ("RegistryLoadFunction", 900, 2048)


def shapes(limits: Limits) -> dict[str, tuple[str, bool]]:
    """The worst texts within `limits`: (text builder as Python source, as JSON)."""
    n = limits.nodes - 16
    return {
        "YAML flow list": (f"'territories: [' + '1,' * {n - 3} + '1]\\n'", False),
        "YAML many keys": (f"''.join(f'k{{i}}: {{i}}\\n' for i in range({n // 2 - 2}))", False),
        "YAML deep mappings": (
            f"''.join(f'k{{i}}:\\n' + ''.join('  ' * d + 'a:\\n' for d in range(1, {limits.depth - 1})) "
            f"for i in range(min({n // limits.depth}, {limits.bytes // (limits.depth * limits.depth + 64)})))",
            False,
        ),
        "YAML long scalar": (f"'a: ' + 'x' * {limits.bytes - 16} + '\\n'", False),
        "JSON flow list": (f"'[' + '1.5,' * {n - 1} + '1]'", True),
        "JSON many objects": (f"'[' + '{{}},' * {n // 2 - 2} + '{{}}]'", True),
    }


PROBE = textwrap.dedent(
    """
    import resource, sys, time
    from ott.documents import parse_document, DocumentError, {limits}
    text = {builder}
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.process_time()
    try:
        parse_document(text, "worst", {as_json}, aliases=False, limits={limits})
        outcome = "accepted"
    except DocumentError as error:
        outcome = "refused: " + error.problems[0][:80]
    print(time.process_time() - started, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024, len(text), outcome)
    """
)


def measured(builder: str, as_json: bool, limits: str) -> tuple[float, int, int, str]:
    code = PROBE.format(builder=builder, as_json=as_json, limits=limits)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    seconds, peak, size, outcome = done.stdout.strip().split(" ", 3)
    return float(seconds), int(peak), int(size), outcome


def report_documents() -> int:
    missed = 0
    print("\nOperators' files: the worst shapes within the parsers' bounds (CPU time, peak memory of the process)")
    for (name, timeout, memory), limits, label in (
        (REQUEST_FUNCTION, REQUEST_LIMITS, "REQUEST_LIMITS"),
        (UPLOAD_FUNCTION, UPLOAD_LIMITS, "UPLOAD_LIMITS"),
    ):
        share = min(1.0, memory / VCPU_MB)
        print(f"{name}: {limits.nodes:,} values, {limits.bytes:,} bytes; bars {timeout / 2:.0f} s, {memory // 2} MB")
        for shape, (builder, as_json) in shapes(limits).items():
            seconds, peak, size, outcome = measured(builder, as_json, label)
            on_lambda = seconds / share
            over = on_lambda > timeout / 2 or peak > memory / 2
            missed += over
            print(
                f"  {shape:20} {size / 1e6:6.1f} MB  {seconds:6.2f} s here, {on_lambda:6.1f} s on Lambda  "
                f"{peak:5d} MB  {outcome}  {'MISSED' if over else 'ok'}"
            )
    return missed


if __name__ == "__main__":
    sys.exit(1 if report_documents() else 0)
