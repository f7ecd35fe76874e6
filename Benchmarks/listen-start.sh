#!/usr/bin/env bash
# Start-up benchmark (not a test) for `shelf listen` of a title never downloaded, started in its last part, on a
# throttled server: how long until the sound, this build beside another (an older build) in the same run, against
# the floor of one part's transfer (curl fetching that part alone at the same throttle).
#
# The open-access book of the demo library in 6 parts of 10 s; every connection capped at RATE bytes a second (the
# per-connection limit CDNs impose, so four parts at once take as long as one). Each run: a fresh home (the library
# added and synced, nothing downloaded), then `shelf listen --no-ui --from 0:55 --for 2s`. The wait is the run's
# wall time less the 2 s heard. Rounds take turns between the builds.
#
# Usage: Benchmarks/listen-start.sh other-shelf-binary [rate] [rounds]   (default: 12000 B/s, 3 rounds)
# The other binary needs its shelf-listen beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
other="$1"
rate="${2:-12000}"
rounds="${3:-3}"
. Benchmarks/common.sh
require_tools /usr/bin/time curl python3 bc
prepare
start_demo --part-count 6 --part-seconds 10
book="urn:uuid:7d3c0001-5a1e-4c6b-9f0e-d0c5e1f00001"
export SDL_AUDIODRIVER=dummy   # no sound card needed: the sound starts when the samples reach SDL

curl -sf "${url}works/${book}/fulfill/open-access" >"$work/manifest.json"
last=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['readingOrder'][-1]['href'])" "$work/manifest.json")
throttle() {
    curl -sf -X POST -H 'Content-Type: application/json' \
        --data "{\"audio\": {\"*\": {\"bytesPerSecond\": $rate}}}" "${url}_demo/switches" >/dev/null
}
throttle

floor() {
    /usr/bin/time -f "%e" -o "$work/time" curl -sf -o "$work/part" "$last"
    printf '%-8s %8s %8s\n' floor "$(cat "$work/time")" "$(stat -c %s "$work/part")"
}

run() { # label binary
    local home="$work/home-$RANDOM$RANDOM"
    "$2" library add demo "$url" --home "$home" --quiet
    "$2" sync --home "$home" --quiet --no-download
    throttle
    /usr/bin/time -f "%e" -o "$work/time" "$2" listen 7d3c0001 --no-ui --from 0:55 --for 2s --home "$home" \
        >"$work/out" 2>&1 || { cat "$work/out" >&2; exit 1; }
    printf '%-8s %8.2f %8s\n' "$1" "$(echo "$(cat "$work/time") - 2" | bc)" "-"
    rm -rf "$home"
}

echo "the last part at $rate B/s per connection"
printf '%-8s %8s %8s\n' build wait_s part_bytes
for _ in $(seq 1 "$rounds"); do
    floor
    run this "$bin/shelf"
    run other "$other"
done
