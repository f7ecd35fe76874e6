#!/usr/bin/env bash
# CLI read benchmark (not a test): `shelf list`, `shelf status` and `shelf show` on a synced catalog of generated
# Palace-style titles, each beside its floor in the same run: the sqlite3 tool running the query the command
# needs (with every column `shelf list --json --full` shows, with the stored columns a row of the table is made from,
# and with only the columns its table shows as they are stored).
# Each time is the median of 9 runs after one warm-up; RSS is the peak of one run (of every shelf command).
# Usage: Benchmarks/cli.sh [--baseline BIN_DIR] [sizes...]    (default size: 10000)
#   --baseline: another build's bin directory (e.g. an older commit built with --scratch-path), measured the same
#               way against a home it syncs itself, so both builds are compared in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
baseline=""
if [ "${1:-}" = "--baseline" ]; then baseline="$2"; shift 2; fi
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000)
. Benchmarks/common.sh
require_tools /usr/bin/time sqlite3 python3
prepare

# Prints the median wall time in ms of 9 runs of a command (after one warm-up run).
median_ms() {
    python3 - "$@" <<'PY'
import statistics, subprocess, sys, time
command = sys.argv[1:]
subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
times = []
for _ in range(9):
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    times.append((time.perf_counter() - start) * 1000)
print(f"{statistics.median(times):.1f}")
PY
}

peak_mb() {
    /usr/bin/time -f "%M" -o "$work/rss" "$@" >/dev/null 2>&1
    python3 -c "import sys; print(f'{int(open(sys.argv[1]).read().split()[-1]) / 1024:.1f}')" "$work/rss"
}

row() { printf '%-8s %-44s %10s %8s\n' "$@"; }

row entries measure median_ms rss_MB
for n in "${sizes[@]}"; do
    start_demo --generate "$n" --page-size 1000
    builds=("current:$bin")
    [ -z "$baseline" ] || builds+=("baseline:$baseline")
    for build in "${builds[@]}"; do
        name=${build%%:*}
        dir=${build#*:}
        home="$work/home-$name"
        rm -rf "$home"
        "$dir/shelf" library add bench "$url" --home "$home" --quiet
        "$dir/shelf" sync --home "$home" --quiet
        id=$(sqlite3 "$home/shelf.sqlite" "SELECT entry_id FROM edition ORDER BY id LIMIT 1 OFFSET $((n / 2))")
        suffix=${id: -12}
        row "$n" "$name: shelf list" "$(median_ms "$dir/shelf" list --home "$home")" "$(peak_mb "$dir/shelf" list --home "$home")"
        # The first rows: what a patron waits for before anything appears (the rest is never read: head exits).
        row "$n" "$name: shelf list | head -20" "$(median_ms sh -c "'$dir/shelf' list --home '$home' | head -20")" ""
        row "$n" "$name: shelf list --json" "$(median_ms "$dir/shelf" list --json --home "$home")" "$(peak_mb "$dir/shelf" list --json --home "$home")"
        # The first element of the lean array: what a script reading it waits for.
        row "$n" "$name: shelf list --json | head -2" "$(median_ms sh -c "'$dir/shelf' list --json --home '$home' | head -2")" ""
        if "$dir/shelf" list --help | grep -q -- --full; then
            row "$n" "$name: shelf list --json --full" "$(median_ms "$dir/shelf" list --json --full --home "$home")" "$(peak_mb "$dir/shelf" list --json --full --home "$home")"
            row "$n" "$name: list --json bytes a title (lean/full)" "$(( $("$dir/shelf" list --json --home "$home" | wc -c) / n ))/$(( $("$dir/shelf" list --json --full --home "$home" | wc -c) / n ))" ""
        else
            row "$n" "$name: list --json bytes a title" "$(( $("$dir/shelf" list --json --home "$home" | wc -c) / n ))" ""
        fi
        # No title of the generated catalog is downloaded: what a filter on a rare state costs.
        row "$n" "$name: shelf list --state downloaded" "$(median_ms "$dir/shelf" list --state downloaded --home "$home")" "$(peak_mb "$dir/shelf" list --state downloaded --home "$home")"
        row "$n" "$name: shelf status" "$(median_ms "$dir/shelf" status --home "$home")" "$(peak_mb "$dir/shelf" status --home "$home")"
        row "$n" "$name: shelf show (full id)" "$(median_ms "$dir/shelf" show "$id" --home "$home")" "$(peak_mb "$dir/shelf" show "$id" --home "$home")"
        row "$n" "$name: shelf show (end of the id)" "$(median_ms "$dir/shelf" show "$suffix" --home "$home")" "$(peak_mb "$dir/shelf" show "$suffix" --home "$home")"
        row "$n" "$name: shelf --version (start-up)" "$(median_ms "$dir/shelf" --version)" "$(peak_mb "$dir/shelf" --version)"
    done
    db="$work/home-current/shelf.sqlite"
    all_columns="SELECT e.*, l.* FROM edition e LEFT JOIN loan l ON l.edition_id = e.id WHERE e.library_id = 1 ORDER BY e.title COLLATE NOCASE, e.entry_id"
    shown="SELECT e.entry_id, e.title, e.authors, e.medium, e.state, e.availability_status, l.kind FROM edition e LEFT JOIN loan l ON l.edition_id = e.id WHERE e.library_id = 1 ORDER BY e.title COLLATE NOCASE, e.entry_id"
    # The stored columns a row of the table is made from: ID, TITLE (and whether it is still in the catalog), AUTHOR,
    # TYPE (medium, DRM), STATE, and the circulation AVAILABILITY is worded from (the catalog's and the loan's); the
    # row id, by which PROGRESS is looked up in the positions database.
    made_from="SELECT e.id, e.short_id, e.title, e.in_catalog, e.found_by, e.authors, e.medium, e.protection, e.state, e.entitlement, e.availability_status, e.availability_until, e.holds_position, e.holds_total, e.copies_available, e.copies_total, e.is_draft, e.is_paid, e.has_borrow, l.kind, l.until, l.holds_position, l.holds_total, l.copies_total, l.copies_available FROM edition e LEFT JOIN loan l ON l.edition_id = e.id WHERE e.library_id = 1 ORDER BY e.title COLLATE NOCASE, e.entry_id"
    row "$n" "floor: sqlite3, every column" "$(median_ms sqlite3 "$db" "$all_columns")" ""
    row "$n" "floor: sqlite3, the columns a row is made from" "$(median_ms sqlite3 "$db" "$made_from")" ""
    row "$n" "floor: sqlite3, the shown columns" "$(median_ms sqlite3 "$db" "$shown")" ""
    row "$n" "floor: sqlite3, the shown columns | head -20" "$(median_ms sh -c "sqlite3 '$db' '$shown' | head -20")" ""
    row "$n" "floor: sqlite3, state counts" "$(median_ms sqlite3 "$db" "SELECT state, COUNT(*) FROM edition WHERE library_id = 1 AND in_catalog = 1 GROUP BY state")" ""
    stop_demo
done
