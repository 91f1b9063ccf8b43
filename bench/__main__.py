import sys

from bench.auth.token_cpu import report_token_cpu
from bench.channels.calls import report_channel_calls
from bench.channels.m3u_import import report_m3u_import
from bench.channels.xtream_calls import report_xtream_calls
from bench.coldstart import report_cold_starts
from bench.documents import report_documents
from bench.dynamodb_calls import report_dynamodb_calls
from bench.layer import report_layer_size
from bench.local_stack import report_local_stack
from bench.registry.scale import report_registry_scale
from bench.tvguide.guide import report_guide


def main() -> int:
    failures = (
        report_cold_starts()
        + report_layer_size()
        + report_dynamodb_calls()
        + report_channel_calls()
        + report_xtream_calls()
        + report_m3u_import()
        + report_documents()
        + report_token_cpu()
        + report_registry_scale()
        + report_guide()
        + report_local_stack()
    )
    print(f"\n{'all bars met' if not failures else f'{failures} bar(s) missed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
