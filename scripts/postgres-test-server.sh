#!/usr/bin/env bash
# A throwaway PostgreSQL server for tradelab's PostgreSQL storage tests.
#
#   scripts/postgres-test-server.sh start   # prints TRADELAB_TEST_POSTGRES_URL=postgres://…
#   scripts/postgres-test-server.sh stop    # stops the server and removes its directory
#
# start finds the server binaries (/usr/lib/postgresql/*/bin, else initdb/pg_ctl on PATH) and,
# when there are none, installs Debian's `postgresql` with apt-get (root only; set
# TRADELAB_PG_NO_INSTALL=1 to exit with status 3 instead). It creates a cluster in $TRADELAB_PG_DIR
# (default /tmp/tradelab-test-pg) with trust auth on 127.0.0.1 only, starts it on the first free
# port from $TRADELAB_PG_PORT (default 54329), creates the database tradelab_test and prints one
# line on stdout. Running start again while the server runs just prints the URL. Everything else
# goes to stderr.
set -euo pipefail

DIR="${TRADELAB_PG_DIR:-/tmp/tradelab-test-pg}"
DATA="$DIR/data"
LOG="$DIR/server.log"
MARKER="$DIR/.tradelab-test-pg"
FIRST_PORT="${TRADELAB_PG_PORT:-54329}"
DB=tradelab_test
SUPERUSER=postgres

say() { printf 'postgres-test-server: %s\n' "$*" >&2; }
die() {
  say "error: $1"
  [ $# -lt 2 ] || say "fix: $2"
  exit "${3:-1}"
}

# Directory holding initdb and pg_ctl, newest version first; empty when there is none.
find_bin_dir() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
      echo "$dir"
      return
    fi
  done
  if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then
    dirname "$(command -v initdb)"
  fi
}

install_postgres() {
  if [ "${TRADELAB_PG_NO_INSTALL:-}" = 1 ]; then
    die "no PostgreSQL server binaries (looked in /usr/lib/postgresql/*/bin and PATH)" \
      "install PostgreSQL (Debian/Ubuntu: apt-get install postgresql), or set TRADELAB_TEST_POSTGRES_URL" 3
  fi
  if [ "$(id -u)" != 0 ]; then
    die "no PostgreSQL server binaries, and installing them needs root" \
      "run 'sudo apt-get install postgresql' (or your system's package), then start again"
  fi
  command -v apt-get >/dev/null ||
    die "no PostgreSQL server binaries and no apt-get to install them" \
      "install the PostgreSQL server with your system's package manager"
  say "installing PostgreSQL with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  { apt-get update && apt-get install -y --no-install-recommends postgresql; } >&2 ||
    die "apt-get install postgresql failed (output above)" \
      "check the network and apt sources, or install PostgreSQL yourself"
}

# Runs a server command as the cluster's owner: PostgreSQL refuses to run as root.
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    (cd / && runuser -u "$SUPERUSER" -- "$@")
  else
    "$@"
  fi
}

ensure_owner_user() {
  [ "$(id -u)" = 0 ] || return 0
  id -u "$SUPERUSER" >/dev/null 2>&1 && return 0
  say "creating system user $SUPERUSER (PostgreSQL will not run as root)"
  useradd --system --no-create-home --shell /usr/sbin/nologin "$SUPERUSER" ||
    die "could not create the $SUPERUSER user" "create it by hand: useradd --system $SUPERUSER"
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

free_port() {
  local port=$FIRST_PORT
  while port_in_use "$port"; do
    port=$((port + 1))
    [ "$port" -lt $((FIRST_PORT + 100)) ] ||
      die "no free port in $FIRST_PORT..$((port - 1)) on 127.0.0.1" "set TRADELAB_PG_PORT to a free port"
  done
  echo "$port"
}

is_running() { [ -f "$DATA/postmaster.pid" ] && as_owner "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; }

# The port a running server listens on: line 4 of postmaster.pid.
running_port() { sed -n 4p "$DATA/postmaster.pid"; }

show_log() {
  if [ -f "$LOG" ]; then
    say "last lines of $LOG:"
    tail -n 20 "$LOG" >&2
  fi
}

ensure_database() {
  local port=$1 exists
  exists=$("$BIN/psql" -h 127.0.0.1 -p "$port" -U "$SUPERUSER" -d postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname = '$DB'") ||
    die "could not connect to the server on 127.0.0.1:$port" "see $LOG; stop and start again"
  if [ "$exists" != 1 ]; then
    "$BIN/createdb" -h 127.0.0.1 -p "$port" -U "$SUPERUSER" "$DB" ||
      die "could not create database $DB on 127.0.0.1:$port" "see $LOG"
  fi
}

start() {
  BIN=$(find_bin_dir)
  if [ -z "$BIN" ]; then
    install_postgres
    BIN=$(find_bin_dir)
    [ -n "$BIN" ] || die "apt-get installed postgresql but no initdb/pg_ctl was found" \
      "look for the server binaries and put their directory on PATH"
  fi
  ensure_owner_user

  if is_running; then
    ensure_database "$(running_port)"
    echo "TRADELAB_TEST_POSTGRES_URL=postgres://$SUPERUSER@127.0.0.1:$(running_port)/$DB"
    return
  fi

  if [ -e "$DIR" ] && [ ! -f "$MARKER" ]; then
    die "$DIR exists but was not made by this script" \
      "remove it, or set TRADELAB_PG_DIR to another directory"
  fi
  mkdir -p "$DIR" || die "could not create $DIR" "set TRADELAB_PG_DIR to a writable directory"
  touch "$MARKER"
  if [ "$(id -u)" = 0 ]; then chown -R "$SUPERUSER:" "$DIR"; fi

  if [ ! -f "$DATA/PG_VERSION" ]; then
    rm -rf "$DATA"
    if ! as_owner "$BIN/initdb" -D "$DATA" -U "$SUPERUSER" --auth=trust --encoding=UTF8 \
      --no-locale >"$DIR/initdb.log" 2>&1; then
      cat "$DIR/initdb.log" >&2
      die "initdb failed in $DATA (output above)" \
        "make sure user $(if [ "$(id -u)" = 0 ]; then echo "$SUPERUSER"; else id -un; fi) can write $DIR"
    fi
    # Trust, but only over TCP on 127.0.0.1 (and the socket directory inside $DIR).
    cat >"$DATA/pg_hba.conf" <<'EOF'
local all all trust
host  all all 127.0.0.1/32 trust
EOF
  fi

  local port
  port=$(free_port)
  if ! as_owner "$BIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories='$DIR' -c fsync=off" \
    start >&2; then
    show_log
    die "pg_ctl could not start the server on 127.0.0.1:$port" \
      "read the log above; run '$0 stop' and start again"
  fi
  ensure_database "$port"
  echo "TRADELAB_TEST_POSTGRES_URL=postgres://$SUPERUSER@127.0.0.1:$port/$DB"
}

stop() {
  [ -e "$DIR" ] || return 0
  [ -f "$MARKER" ] || die "$DIR was not made by this script; not touching it" \
    "stop that server yourself, or set TRADELAB_PG_DIR to the test server's directory"
  BIN=$(find_bin_dir)
  if [ -n "$BIN" ] && is_running; then
    as_owner "$BIN/pg_ctl" -D "$DATA" -w -t 60 -m fast stop >&2 ||
      die "pg_ctl could not stop the server in $DATA" "kill the postgres process in $DATA by hand"
  fi
  rm -rf "$DIR"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) die "usage: $0 start|stop" "start prints TRADELAB_TEST_POSTGRES_URL=…; stop removes the server" 2 ;;
esac
