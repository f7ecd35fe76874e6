#!/usr/bin/env bash
# Sync benchmark (not a test): a generated Palace-style catalog, pages of 1,000 entries with circulation markup
# on every entry, served by shelf-demo-library from loopback. For each catalog size it reports:
#   full sync (entries/s, including the SQLite writes), peak RSS, unchanged re-sync (all 304), and re-sync
#   after 5% of the entries changed (spread over every page).
# Each size is synced twice from the same server in one run: the OPDS 1 (Atom) feeds at the root and the same
# catalog as OPDS 2 (JSON) at /opds2/, side by side. After the OPDS 1 full sync, the floors: libxml2's xmlTextReader
# in C over the same pages (Benchmarks/SyncFloor/opds-floor.c), and that parse plus storing the rows the sync stored
# in a fresh store with shelf's schema and pragmas, in one transaction (store-floor.c); shelf's CPU as a multiple of
# each, and the store's size beside the floor's.
# With --profile, the OPDS 1 full sync runs under `perf record` (Debian's linux-perf), and its CPU is split by where it
# was spent: libxml2, SQLite, zlib, the kernel, libc and shelf's own code, in seconds, beside the floors of the same run.
# Usage: Benchmarks/sync.sh [--profile] [sizes...]     (default: 10000 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
profile=false
if [ "${1:-}" = --profile ]; then profile=true; shift; fi
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000)
. Benchmarks/common.sh
require_tools /usr/bin/time curl python3
if $profile; then require_tools perf; fi
prepare

# Runs `shelf sync` and prints "wall_s user_s sys_s maxrss_kb added changed removed pages not_modified"; with an
# argument, under `perf record` writing to that file (the sampling costs a few per cent, in the figures too).
measure() {
    local sampler=()
    [ $# -eq 0 ] || sampler=(perf record -q -F 999 -o "$1" --)
    "${sampler[@]}" /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$bin/shelf" sync --home "$work/home" --json \
        >"$work/sync.json"
    python3 - "$work/time" "$work/sync.json" <<'PY'
import json, sys
wall, user, system, rss = open(sys.argv[1]).read().split()[-4:]
s = json.load(open(sys.argv[2]))[0]
print(wall, user, system, rss, s["added"], s["changed"], s["removed"], s["pages"], s["pagesNotModified"])
PY
}

# The floor: the same pages saved to files (the root, its crawlable feed and that feed's next pages), read by libxml2's
# xmlTextReader in C touching each entry's id, updated and links (Benchmarks/SyncFloor/opds-floor.c, built here);
# then shelf's full sync beside it: CPU as a multiple of the floor's, and its entries/s as a share of the floor's.
cc -O2 $(pkg-config --cflags libxml-2.0) Benchmarks/SyncFloor/opds-floor.c -o "$work/opds-floor" \
    $(pkg-config --libs libxml-2.0)
cc -O2 Benchmarks/SyncFloor/store-floor.c -o "$work/store-floor" -lsqlite3
floor() {
    local n=$1 catalog=$2 wall=$3 user=$4 system=$5
    rm -rf "$work/pages" && mkdir "$work/pages"
    python3 - "$catalog" "$work/pages" <<'PY'
import re, sys, urllib.request
# The pages a sync reads: the root, the crawlable feed of the whole collection it links, and every rel="next".
root, directory = sys.argv[1], sys.argv[2]
queue, seen = [root], {root}
while queue:
    url = queue.pop(0)
    body = urllib.request.urlopen(url).read()
    open(f"{directory}/{len(seen) - len(queue):04}.xml", "wb").write(body)
    for link in re.findall(rb"<link[^>]*>", body):
        rel, href = re.search(rb'rel="([^"]*)"', link), re.search(rb'href="([^"]*)"', link)
        crawlable = rel and rel.group(1) == b"http://opds-spec.org/crawlable" and url == root
        if rel and href and (rel.group(1) == b"next" or crawlable):
            target = href.group(1).decode().replace("&amp;", "&")
            if target.startswith(root) and target not in seen:
                seen.add(target)
                queue.append(target)
PY
    read -r entries _ cpu _ < <("$work/opds-floor" "$work/pages"/*.xml)
    # The storing half: the rows this sync stored, inserted into a store shelf made, in one transaction.
    rm -rf "$work/floor-home"
    "$bin/shelf" library list --home "$work/floor-home" >/dev/null
    read -r rows store_cpu < <("$work/store-floor" "$work/home/shelf.sqlite" "$work/floor-home/shelf.sqlite")
    local shelf_bytes floor_bytes
    shelf_bytes=$(stat -c %s "$work/home/shelf.sqlite")
    floor_bytes=$(stat -c %s "$work/floor-home/shelf.sqlite")
    python3 - "$n" "$entries" "$cpu" "$wall" "$user" "$system" "$rows" "$store_cpu" "$shelf_bytes" "$floor_bytes" <<'PY'
import sys
n, entries, floor_cpu, wall, user, system = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:7])
rows, store_cpu, shelf_bytes, floor_bytes = int(sys.argv[7]), float(sys.argv[8]), int(sys.argv[9]), int(sys.argv[10])
floor_rate = entries / floor_cpu
both = floor_cpu + store_cpu
print(f"{n:<8} {'floor xmlTextReader':<22} {'-':>8} {floor_rate:10.0f} {floor_cpu:8.2f} {'':>9} {entries} entries (rate per CPU second)")
print(f"{n:<8} {'floor parse+store':<22} {'-':>8} {entries / both:10.0f} {both:8.2f} {'':>9} {rows} rows stored in {store_cpu:.2f} s")
print(f"{n:<8} {'shelf/floor':<22} {'':>8} {int(n) / wall / floor_rate:9.2f}× {(user + system) / floor_cpu:7.2f}×"
      f"   (entries/s as a share of the parse floor's; CPU as a multiple of the parse floor's)")
print(f"{n:<8} {'shelf/parse+store':<22} {'':>8} {'':>10} {(user + system) / both:7.2f}×   (CPU as a multiple of the parse+store floor's)")
print(f"{n:<8} {'store size':<22} {'':>8} {'':>10} {'':>8} {'':>9} shelf {shelf_bytes / 1e6:.1f} MB ({shelf_bytes / int(n):.0f} B a title), "
      f"the floor's {floor_bytes / 1e6:.1f} MB")
PY
}

# The sampled sync's CPU split by where it was spent: each shared object's share of the samples times the CPU time.
where_spent() {
    local n=$1 user=$2 system=$3
    perf report -i "$work/perf.data" --sort dso --no-children -g none --stdio 2>/dev/null \
        | python3 -c '
import re, sys
n, cpu = sys.argv[1], float(sys.argv[2]) + float(sys.argv[3])
groups = {"libxml2": 0.0, "SQLite": 0.0, "zlib": 0.0, "kernel": 0.0, "libc": 0.0, "shelf": 0.0, "other": 0.0}
for line in sys.stdin:
    match = re.match(r"\s*([0-9.]+)%\s+(\S+)", line)
    if not match:
        continue
    share, dso = float(match.group(1)) / 100, match.group(2)
    name = ("libxml2" if dso.startswith("libxml2") else "SQLite" if dso.startswith("libsqlite3") else
            "zlib" if dso.startswith("libz.") else "kernel" if dso.startswith("[kernel") else
            "libc" if dso.startswith("libc.") else "shelf" if dso == "shelf" else "other")
    groups[name] += share * cpu
libraries = groups["libxml2"] + groups["SQLite"] + groups["zlib"] + groups["kernel"]
where, spent = "shelf by where", "in C libraries+kernel"
print(f"{n:<8} {where:<22} " + " · ".join(f"{k} {v:.2f} s" for k, v in groups.items()))
print(f"{n:<8} {spent:<22} {libraries:.2f} s of {cpu:.2f} s (libxml2, SQLite, zlib and the kernel)")
' "$n" "$user" "$system"
}

printf '%-8s %-22s %8s %10s %8s %9s %s\n' entries run wall_s entries/s cpu_s rss_MB "added/changed/removed pages(304)"
for n in "${sizes[@]}"; do
  for format in opds1 opds2; do
    rm -rf "$work/home"
    start_demo --generate "$n" --page-size 1000
    catalog="$url"
    [ "$format" = opds1 ] || catalog="${url}opds2/"
    "$bin/shelf" library add bench "$catalog" --home "$work/home" --quiet
    for step in full unchanged changed-5%; do
        run="$format $step"
        if [ "$step" = changed-5% ]; then
            curl -sf -X POST "${url}_demo/mutate" -H 'Content-Type: application/json' \
                -d '{"fraction":0.05,"seed":7,"prerender":true}' >/dev/null
        fi
        sampled=()
        if $profile && [ "$format" = opds1 ] && [ "$step" = full ]; then sampled=("$work/perf.data"); fi
        read -r wall user system rss added changed removed pages notmod < <(measure "${sampled[@]}")
        python3 - "$n" "$run" "$wall" "$user" "$system" "$rss" "$added" "$changed" "$removed" "$pages" "$notmod" <<'PY'
import sys
n, run, wall, user, system, rss, added, changed, removed, pages, notmod = sys.argv[1:]
wall = float(wall); cpu = float(user) + float(system)
rate = int(n) / wall if wall > 0 else 0
print(f"{n:<8} {run:<22} {wall:8.2f} {rate:10.0f} {cpu:8.2f} {int(rss)/1024:9.1f} {added}/{changed}/{removed} {pages}({notmod})")
PY
        if [ "$format" = opds1 ] && [ "$step" = full ]; then
            floor "$n" "$catalog" "$wall" "$user" "$system"
            if $profile; then where_spent "$n" "$user" "$system"; fi
        fi
    done
    stop_demo
  done
done
