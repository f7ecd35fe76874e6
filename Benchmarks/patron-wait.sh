#!/usr/bin/env bash
# Patron write wait during a slow sync (not a test): a generated catalog in pages of 1,000, every response delayed
# (400 ms by default), synced by `shelf sync` while a patron's writer takes the catalog's write lock every 100 ms
# (BEGIN IMMEDIATE, one UPDATE, COMMIT on shelf.sqlite, waiting for the lock as shelf's commands do: what `shelf
# return`, `archive` or `library set` do to the store). For a first sync and for a re-sync after 5% of the entries
# changed it reports the sync's wall time, how long it spent applying what it fetched (its "applied … in … s" line
# under -v; the write lock is taken in steps within it), and the writer's waits during the sync beside the same
# writer on an idle store (the floor): count, median, 99th percentile and the longest.
# Usage: Benchmarks/patron-wait.sh [entries] [delay_ms]     (default: 100000 400)
set -euo pipefail
cd "$(dirname "$0")/.."
entries=${1:-100000}
delay=${2:-400}
. Benchmarks/common.sh
require_tools curl python3
prepare

start_demo --generate "$entries" --page-size 1000 --delay-ms "$delay"
home="$work/home"
"$bin/shelf" library add demo "$url" --home "$home" --no-check >/dev/null

# Writes every 100 ms until the flag file goes; prints one wait in seconds per line.
writer() { # database flag out
    python3 - "$@" <<'PY'
import os, sqlite3, sys, time
database, flag, out = sys.argv[1:]
connection = sqlite3.connect(database, timeout=0, isolation_level=None)
waits = []
while os.path.exists(flag):
    start = time.monotonic()
    # Waits as shelf's own commands do (Store.waitForWriteLock): looking again every 4 ms, for up to 60 s.
    while True:
        try:
            connection.execute("BEGIN IMMEDIATE")
            break
        except sqlite3.OperationalError:
            if time.monotonic() - start > 60:
                raise
            time.sleep(0.004)
    connection.execute("UPDATE library SET notify = notify")
    connection.execute("COMMIT")
    waits.append(time.monotonic() - start)
    time.sleep(0.1)
open(out, "w").write("\n".join(f"{w:.6f}" for w in waits) + "\n")
PY
}

summary() { # label waits_file [sync_wall applied]
    python3 - "$@" <<'PY'
import statistics, sys
label, path = sys.argv[1], sys.argv[2]
extra = sys.argv[3:]
waits = sorted(float(line) for line in open(path) if line.strip())
p99 = waits[min(len(waits) - 1, int(len(waits) * 0.99))]
wall = f"{float(extra[0]):8.1f}" if extra else f"{'':>8}"
held = extra[1] if len(extra) > 1 else ""
print(f"{label:<22} {wall} {held:>9} {len(waits):7d} {statistics.median(waits) * 1000:9.2f} {p99 * 1000:9.2f} "
      f"{waits[-1] * 1000:10.2f}")
PY
}

# The floor: the same writer on the same store with no sync running (after the first sync made it full size).
run_sync() { # label
    local flag="$work/writing" start end
    touch "$flag"
    writer "$home/shelf.sqlite" "$flag" "$work/waits-$1" &
    local writer_pid=$!
    start=$(date +%s.%N)
    "$bin/shelf" sync --home "$home" --quiet --no-download -v 2>"$work/sync-$1.log"
    end=$(date +%s.%N)
    rm "$flag"
    wait "$writer_pid"
    local held
    held=$(sed -n 's/.*applied [0-9]* pages in \([0-9.]*\) s.*/\1/p' "$work/sync-$1.log" | tail -1)
    summary "$1" "$work/waits-$1" "$(python3 -c "print($end - $start)")" "${held}s"
}

printf '%-22s %8s %9s %7s %9s %9s %10s\n' run sync_s applying writes p50_ms p99_ms longest_ms
# A first sync needs the schema: the first write waits for it, so the store is made by an empty `library list`.
"$bin/shelf" library list --home "$home" >/dev/null
run_sync "first sync ($entries)"
curl -sf -X POST "${url}_demo/mutate" -H 'Content-Type: application/json' \
    -d '{"fraction":0.05,"seed":7,"prerender":true}' >/dev/null
run_sync "re-sync, 5% changed"
touch "$work/idle"
writer "$home/shelf.sqlite" "$work/idle" "$work/waits-idle" &
idle_pid=$!
sleep 10
rm "$work/idle"
wait "$idle_pid"
summary "idle store (floor)" "$work/waits-idle"
echo "(every response delayed ${delay} ms; pages of 1,000 entries)"
