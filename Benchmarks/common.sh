# Shared by the benchmark scripts: release builds, a scratch directory, and the demo library started and stopped.
# shellcheck shell=bash

# Fails with a hint when a tool is missing.
require_tools() {
    for tool in "$@"; do
        command -v "$tool" >/dev/null || { echo "bench: $tool is missing (apt-get install time curl aria2 bc mpv)" >&2; exit 1; }
    done
}

# Builds shelf and the demo library as Scripts/install builds what a patron runs (release, Swift's runtime and
# Foundation linked in statically); sets $bin and $work and cleans up on exit.
prepare() {
    local release=(-c release --static-swift-stdlib)
    swift build "${release[@]}" --product shelf >/dev/null
    swift build "${release[@]}" --product shelf-listen >/dev/null
    swift build "${release[@]}" --product shelf-demo-library >/dev/null
    bin=$(swift build "${release[@]}" --show-bin-path)
    work=$(mktemp -d)
    server_pid=""
    trap 'stop_demo; rm -rf "$work"' EXIT
}

# Starts shelf-demo-library with the given options; sets $url once it listens.
start_demo() {
    "$bin/shelf-demo-library" "$@" >"$work/server.out" 2>"$work/server.err" &
    server_pid=$!
    for _ in $(seq 1 600); do grep -q 'listening on' "$work/server.out" 2>/dev/null && break; sleep 0.1; done
    url=$(sed -n 's/^listening on //p' "$work/server.out")
    [ -n "$url" ] || { echo "bench: the demo library did not start" >&2; cat "$work/server.err" >&2; exit 1; }
}

stop_demo() {
    [ -z "${server_pid:-}" ] || { kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; }
    server_pid=""
}
