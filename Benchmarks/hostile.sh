#!/usr/bin/env bash
# Hostile-server benchmark (not a test): each way a server can try to fill the disk, hold shelf for ever or lead it
# off the web, as the demo library's switches make it, met by this checkout's shelf and, side by side in the same
# run, by another shelf binary (an older build, the floor these bounds are measured against).
#
# For each case and binary: the exit status (or "stopped" when the case's time cap ran out first), the wall time,
# the peak resident memory (GNU time), the most bytes of the part on disk while it ran (sampled every 0.2 s) and
# after, and the bytes the server got out.
#
# Usage: Benchmarks/hostile.sh [other-shelf-binary] [cap-seconds]   (default cap: 180 s per run; a part's runs stop
# at 60 s at most, for an unbounded shelf writes gigabytes a minute on loopback)
# An older shelf lacks the options that bound a part: it runs each case without them, at its defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
other="${1:-}"
cap="${2:-180}"
. Benchmarks/common.sh
require_tools /usr/bin/time curl python3 timeout
prepare
start_demo
sherlock="urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"

switches() { curl -sf -X POST -H 'Content-Type: application/json' --data "$1" "${url}_demo/switches" >/dev/null; }
# The faults of one catalog page (the switches hold pages by number, which JSON spells as a list).
page_faults() { curl -sf -X POST -H 'Content-Type: application/json' --data "$2" "${url}_demo/pages/$1/faults" >/dev/null; }
reset_demo() { curl -sf -X POST "${url}_demo/reset" >/dev/null; }
sent() {
    curl -sf "${url}_demo/stats" | python3 -c "import json,sys; print(json.load(sys.stdin)['partBytesSent'].get('$sherlock/2', 0))"
}

# A home with the demo library added, synced and signed in, Sherlock on loan and not downloaded.
fresh_home() { # binary home
    "$1" library add demo "$url" --home "$2" --quiet
    "$1" sync --home "$2" --quiet
    printf '1234\n' | "$1" login --username demo --password-stdin --home "$2" >/dev/null
    "$1" sync --home "$2" --quiet --no-download
}

# The bytes of Sherlock's part 2 on disk, finished or not.
part_bytes() {
    { find "$1/books" -name 'part-002.mp3*' ! -name '*.json' -printf '%s\n' 2>/dev/null || true; } | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

# Runs one case and prints its row and the first line shelf wrote on standard error. The set-up is a command
# (`switches JSON` or `page_faults N JSON`) run once the home is ready.
run_case() { # label binary set-up shelf-arguments...
    local label=$1 binary=$2 setup=$3; shift 3
    local home="$work/home-$RANDOM$RANDOM"
    reset_demo
    fresh_home "$binary" "$home" >/dev/null 2>&1
    eval "$setup"
    local biggest=0
    (
        while sleep 0.2; do
            part_bytes "$home"
        done
    ) >"$work/sizes" &
    local sampler=$!
    /usr/bin/time -f "%e %M" -o "$work/time" timeout -k 10 "$case_cap" "$binary" "$@" --home "$home" \
        >/dev/null 2>"$work/err" && status=0 || status=$?
    kill "$sampler" 2>/dev/null || true
    wait "$sampler" 2>/dev/null || true
    biggest=$(sort -n "$work/sizes" | tail -1)
    local after
    after=$(part_bytes "$home")
    local wall peak
    read -r wall peak < <(tail -1 "$work/time")
    # timeout(1) stops shelf with SIGTERM (it keeps what arrived and ends) and waits for it, so its peak is known.
    [ "$status" = 124 ] && status="stopped"
    [ "$status" = 137 ] && status="killed"
    printf '%-44s %-7s %-7s %8.1f %9s %14s %14s %14s\n' "$label" "$build" "$status" \
        "$wall" "$peak" "${biggest:-0}" "${after:-0}" "$(sent)"
    head -1 "$work/err" | cut -c1-400 | sed 's/^/    /'
    rm -rf "$home"
    reset_demo
}

binaries=("$bin/shelf")
[ -n "$other" ] && binaries+=("$other")
supports() { "$1" download --help 2>&1 | grep -q -- "--rate-window"; }

printf '%-44s %-7s %-7s %8s %9s %14s %14s %14s\n' case build exit wall_s peak_KB most_on_disk left_on_disk bytes_sent
for binary in "${binaries[@]}"; do
    build=this; [ "$binary" = "$bin/shelf" ] || build=other
    window=(); pages=()
    if supports "$binary"; then window=(--rate-window 2); pages=(--max-pages 30); fi
    case_cap=$((cap < 60 ? cap : 60))
    run_case "part: states 10 GiB, sends for ever" "$binary" \
        "switches '{\"audio\": {\"$sherlock\": {\"parts\": [2], \"extraContentLength\": 10737418240, \"endless\": true}}}'" \
        download 7d3c0002
    run_case "part: sends for ever, no length" "$binary" \
        "switches '{\"audio\": {\"$sherlock\": {\"parts\": [2], \"endless\": true}}}'" download 7d3c0002
    run_case "part: drips 2 B/s" "$binary" \
        "switches '{\"audio\": {\"$sherlock\": {\"parts\": [2], \"bytesPerSecond\": 2}}}'" download 7d3c0002 "${window[@]}"
    run_case "part: redirected to file:" "$binary" \
        "switches '{\"audio\": {\"$sherlock\": {\"parts\": [2], \"response\": {\"redirectTo\": \"file:///etc/passwd\"}}}}'" \
        download 7d3c0002
    case_cap=$cap
    run_case "page: drips 2 B/s (slowloris)" "$binary" 'page_faults 2 "{\"bytesPerSecond\": 2}"' sync --no-download
    run_case "page: redirected to file:" "$binary" 'page_faults 2 "{\"redirectTo\": \"file:///etc/passwd\"}"' \
        sync --no-download
    run_case "pages without end, repeating titles" "$binary" 'switches "{\"endlessPages\": true}"' sync --no-download
    run_case "pages without end, new titles" "$binary" 'switches "{\"endlessPages\": true, \"endlessNewTitles\": true}"' \
        sync --no-download "${pages[@]}"
done
