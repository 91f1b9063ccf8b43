"""M3U import in time linear in a line's length (issue 19: one #EXTINF with 8,000 `[a]` labels took 30 s): the
CPU time per label of converting a line of 1,000 and of 8,000 labels, best of five each (CPU time and best-of
runs, so that other work on the machine does not count)."""

import time

from ott.channels.m3u import convert_m3u

SIZES = (1_000, 8_000)
RUNS = 5
BAR = 2.0  # the per-label time at 8,000 labels over that at 1,000: about 1 when linear, 8 when quadratic


def seconds_per_label(labels: int) -> float:
    playlist = '#EXTM3U\n#EXTINF:-1 tvg-id="x.ru@SD",Title' + " [a]" * labels + "\nhttp://o/x.m3u8\n"
    best = float("inf")
    for _ in range(RUNS):
        started = time.process_time()
        convert_m3u(playlist)
        best = min(best, time.process_time() - started)
    return best / labels


def report_m3u_import() -> int:
    small, large = (seconds_per_label(size) for size in SIZES)
    ratio = large / small
    missed = ratio > BAR
    print("\nM3U import: CPU time per label of one #EXTINF line (best of five)")
    print(f"{SIZES[0]:,} labels: {small * 1e6:.2f} µs, {SIZES[1]:,} labels: {large * 1e6:.2f} µs")
    print(f"ratio {ratio:.2f} (bar <= {BAR}: linear) {'MISSED' if missed else 'ok'}")
    return int(missed)
