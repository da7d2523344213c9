#!/usr/bin/env bash
# Container entrypoint (also runnable on a bare host): one role per Ray node.
#   head         Ray head node + `deltamatch serve` (the API and the scheduler actor) on it
#   worker       a Ray node that joins RAY_ADDRESS and offers its GPUs to the worker actors
#   serve        `deltamatch serve` alone, as a driver of the cluster at RAY_ADDRESS
#   healthcheck  exit 0 iff GET DELTAMATCH_HEALTH_URL (default: this node's /readyz) is 200
# Any other arguments are run as a command. Every setting is an environment variable
# (the README's deployment table); `deltamatch serve` reads its DELTAMATCH_* variables itself.
set -euo pipefail

die() { echo "deltamatch-entrypoint: $*" >&2; exit 2; }

# Ray >= 2.60 enables token authentication by default; a cluster only works when every
# node (and the service) uses the same mode and, in token mode, the same token.
check_ray_auth() {
    export RAY_AUTH_MODE="${RAY_AUTH_MODE:-token}"
    case "$RAY_AUTH_MODE" in
        token)
            if [[ -z "${RAY_AUTH_TOKEN:-}" ]]; then
                unset RAY_AUTH_TOKEN
                [[ -s "${RAY_AUTH_TOKEN_PATH:-$HOME/.ray/auth_token}" ]] || die \
                    "RAY_AUTH_MODE=token needs RAY_AUTH_TOKEN (the same value on every node) or a token file at" \
                    "RAY_AUTH_TOKEN_PATH; or set RAY_AUTH_MODE=disabled on a closed network"
            fi
            ;;
        disabled) unset RAY_AUTH_TOKEN ;;
        *) die "RAY_AUTH_MODE must be 'token' or 'disabled', not '$RAY_AUTH_MODE'" ;;
    esac
}

# Options every `ray start` of this image shares; empty variables leave Ray's defaults.
ray_node_args=()
collect_ray_node_args() {
    ray_node_args=(--disable-usage-stats
                   "--dashboard-agent-listen-port=${RAY_DASHBOARD_AGENT_LISTEN_PORT:-52365}")
    [[ -n "${RAY_NODE_IP_ADDRESS:-}" ]] && ray_node_args+=("--node-ip-address=$RAY_NODE_IP_ADDRESS")
    [[ -n "${RAY_NUM_CPUS:-}" ]] && ray_node_args+=("--num-cpus=$RAY_NUM_CPUS")
    [[ -n "${RAY_NUM_GPUS:-}" ]] && ray_node_args+=("--num-gpus=$RAY_NUM_GPUS")
    [[ -n "${RAY_RESOURCES:-}" ]] && ray_node_args+=("--resources=$RAY_RESOURCES")
    [[ -n "${RAY_OBJECT_STORE_MEMORY:-}" ]] && ray_node_args+=("--object-store-memory=$RAY_OBJECT_STORE_MEMORY")
    [[ -n "${RAY_TEMP_DIR:-}" ]] && ray_node_args+=("--temp-dir=$RAY_TEMP_DIR")
    return 0
}

# Wait until the GCS at $1 answers; with $2 (the local head's pid), give up when it exits.
wait_for_gcs() {
    local address="$1" head_pid="${2:-}" deadline=$((SECONDS + ${RAY_WAIT_SECONDS:-120})) out
    until out=$(ray health-check --address "$address" 2>&1); do
        [[ -z "$head_pid" ]] || kill -0 "$head_pid" 2>/dev/null || die "the Ray head exited during start"
        [[ "$out" != *AuthenticationError* ]] || die "the Ray cluster at $address rejected this node's" \
            "credentials: every node needs the same RAY_AUTH_MODE and, in token mode, the same RAY_AUTH_TOKEN"
        ((SECONDS < deadline)) || die "no Ray GCS answered at $address within ${RAY_WAIT_SECONDS:-120} s:" \
            "${out##*$'\n'}"
        sleep 1
    done
}

# Run until one of the given pids exits or TERM/INT arrives, then stop them in the given
# order, each waited for (the service first: it leaves Ray cleanly before its node goes).
supervise() {
    local status=0 pid
    trap : TERM INT
    wait -n "$@" || status=$?
    for pid in "$@"; do
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    exit "$status"
}

role="${1:-head}"
case "$role" in
    head)
        check_ray_auth
        collect_ray_node_args
        port="${RAY_PORT:-6379}"
        ray start --head --block --port="$port" \
            "--ray-client-server-port=${RAY_CLIENT_SERVER_PORT:-10001}" \
            "--include-dashboard=${RAY_INCLUDE_DASHBOARD:-false}" \
            "${ray_node_args[@]}" &
        ray_pid=$!
        wait_for_gcs "127.0.0.1:$port" "$ray_pid"
        RAY_ADDRESS="127.0.0.1:$port" deltamatch serve &
        serve_pid=$!
        supervise "$serve_pid" "$ray_pid"
        ;;
    worker)
        check_ray_auth
        collect_ray_node_args
        [[ -n "${RAY_ADDRESS:-}" ]] || die "the worker role needs RAY_ADDRESS=<head host>:<port>"
        wait_for_gcs "$RAY_ADDRESS"
        exec ray start --block --address="$RAY_ADDRESS" "${ray_node_args[@]}"
        ;;
    serve)
        check_ray_auth
        [[ -n "${RAY_ADDRESS:-}" ]] || die "the serve role needs RAY_ADDRESS=<head host>:<port>"
        exec deltamatch serve
        ;;
    healthcheck)
        url="${DELTAMATCH_HEALTH_URL:-http://127.0.0.1:${DELTAMATCH_PORT:-8000}/readyz}"
        exec python -c 'import sys, urllib.request
try:
    sys.exit(0 if urllib.request.urlopen(sys.argv[1], timeout=4).status == 200 else 1)
except Exception as exc:
    print(exc, file=sys.stderr)
    sys.exit(1)' "$url"
        ;;
    *)
        exec "$@"
        ;;
esac
