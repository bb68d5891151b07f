#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A throw-away PostgreSQL server for the measurement-store tests (docs/store.md "Testing
# against a real server"): a cluster in DIR/cluster, listening on a Unix socket in DIR only
# (no TCP), with a superuser `ios`, trust authentication and a database `ios_test`.
#   tools/pg_test_cluster.sh start DIR   (stops a stale one first; DIR: absolute and short)
#   tools/pg_test_cluster.sh stop DIR    (stops it and removes DIR)
#   tools/pg_test_cluster.sh url DIR     (prints the store URL)
# PostgreSQL refuses to run as root: as root, the server runs as the `postgres` system user
# (created by Debian's postgresql package), so DIR should be somewhere it can reach (/tmp).
# PG_BIN overrides the binaries' folder.
set -euo pipefail

mode=${1:-}
dir=${2:-}
port=5432

pg_bin() {
    if [ -n "${PG_BIN:-}" ]; then echo "$PG_BIN"; return; fi
    local newest
    newest=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    if [ -z "$newest" ] || [ ! -x "$newest/initdb" ]; then
        echo "pg_test_cluster: no PostgreSQL server binaries (/usr/lib/postgresql/*/bin): install the Debian package postgresql" >&2
        exit 1
    fi
    echo "$newest"
}

as_server() { # runs a server binary as a user the server may run as
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

stop_cluster() {
    if [ -f "$dir/cluster/postmaster.pid" ]; then
        as_server "$(pg_bin)/pg_ctl" -D "$dir/cluster" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
}

case "$dir" in
/*) ;;
*) echo "usage: tools/pg_test_cluster.sh start|stop|url DIR (an absolute path)" >&2; exit 2 ;;
esac

case "$mode" in
start)
    if [ ${#dir} -gt 80 ]; then
        echo "pg_test_cluster: '$dir' is too long for a Unix socket path" >&2
        exit 1
    fi
    bin=$(pg_bin)
    if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
        echo "pg_test_cluster: running as root needs the 'postgres' system user (Debian package postgresql)" >&2
        exit 1
    fi
    stop_cluster
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres "$dir"
    if ! as_server "$bin/initdb" -D "$dir/cluster" -U ios --auth=trust -E UTF8 --locale=C \
            >"$dir/initdb.log" 2>&1; then
        echo "pg_test_cluster: initdb failed:" >&2
        cat "$dir/initdb.log" >&2
        exit 1
    fi
    if ! as_server "$bin/pg_ctl" -D "$dir/cluster" -l "$dir/server.log" -w -t 60 \
            -o "-k $dir -p $port -c listen_addresses= -c fsync=off -c max_connections=100" \
            start >/dev/null 2>&1; then
        echo "pg_test_cluster: the server did not start:" >&2
        cat "$dir/server.log" >&2 || true
        exit 1
    fi
    "$bin/createdb" -h "$dir" -p "$port" -U ios ios_test
    ;;
stop)
    stop_cluster
    ;;
url)
    echo "postgresql:///ios_test?host=$dir&port=$port&user=ios"
    ;;
*)
    echo "usage: tools/pg_test_cluster.sh start|stop|url DIR" >&2
    exit 2
    ;;
esac
