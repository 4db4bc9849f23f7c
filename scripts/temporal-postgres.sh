#!/usr/bin/env bash
# Temporal on PostgreSQL on this machine: the production engine (docker-compose.yml's) without Docker.
#
#   scripts/temporal-postgres.sh start [--fresh]   build what is missing, start whatever of PostgreSQL and
#                                                  the server is down
#   scripts/temporal-postgres.sh stop              stop both; no process is left
#   scripts/temporal-postgres.sh status            exits 0 only when both run; prints the address
#   scripts/temporal-postgres.sh supervise         stays in the foreground: every TEMPORAL_SUPERVISE_INTERVAL
#                                                  seconds (default 10) starts whatever is down, rotates logs
#   scripts/temporal-postgres.sh systemd-unit      prints a systemd unit that runs `supervise` at boot, as
#                                                  this user (TEMPORAL_SERVICE_USER names another)
#   scripts/temporal-postgres.sh rotate-logs       rotates server.log and postgresql.log past TEMPORAL_LOG_MAX_MB
#   scripts/temporal-postgres.sh render-config     deploy/temporal/config.yaml.tmpl rendered with this
#                                                  environment, on stdout (what compose's image renders)
#   scripts/temporal-postgres.sh batch-store-url   prints PAYRUN_BATCH_STORE_URL=postgres://… of payrun's
#                                                  own database beside Temporal's (its batch store)
#
# start prints TEMPORAL_ADDRESS=127.0.0.1:PORT on stdout (everything else goes to stderr) and writes it
# to $TEMPORAL_PG_DIR/address.env. TEMPORAL_SHARDS (default 4) sets the history shard count of a new
# cluster; every port is settable (scripts/lib/temporal-ports.sh: TEMPORAL_PORT_BASE, TEMPORAL_PG_PORT,
# TEMPORAL_FRONTEND_GRPC_PORT, …). Shards are fixed when the databases are created, so another count needs --fresh, which
# deletes the cluster and its data first. State and data live in this checkout's .temporal-postgres/
# (TEMPORAL_PG_DIR moves it): two checkouts never share, and the script deletes no data folder it did
# not create for that state folder. docs/operations.md, "Running Temporal on PostgreSQL".
set -euo pipefail
umask 077 # the config holds the database password; logs and state are nobody else's business either

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# systemd starts services without HOME unless the unit sets it (the printed unit does): the user's home
# from the password database, where the caches are.
HOME="${HOME:-$(getent passwd "$(id -un)" | cut -d: -f6)}"
export HOME
# shellcheck source=scripts/lib/temporal-ports.sh
. "$ROOT/scripts/lib/temporal-ports.sh"
CACHE_DIR="${PAYRUN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/payrun}"
BIN_DIR="$CACHE_DIR/bin"
SERVER_VERSION="1.29.1" # deploy/temporal-server/go.mod pins it, with the CLI's module graph
SERVER_BIN="$BIN_DIR/temporal-server"
SQL_TOOL="$BIN_DIR/temporal-sql-tool"
# Per checkout, never per cache folder: two checkouts (or CI jobs with their own XDG_CACHE_HOME) that
# shared one place destroyed each other's clusters (issue 29).
DIR="${TEMPORAL_PG_DIR:-$ROOT/.temporal-postgres}"
SHARDS="${TEMPORAL_SHARDS:-4}"
NAMESPACE="default"
RETENTION="${TEMPORAL_RETENTION:-72h}"

say() { echo "temporal-postgres: $*" >&2; }
die() {
  say "$*"
  exit 1
}

usage() {
  echo "usage: scripts/temporal-postgres.sh start [--fresh] | stop | status | supervise | systemd-unit | rotate-logs | render-config | batch-store-url" >&2
  exit 2
}

# PostgreSQL refuses to run as root, so when root runs this the cluster runs as the postgres user, in the
# same state folder (which is then open to be passed through, 0711; everything in it stays owner-only).
if [ "$(id -u)" = 0 ]; then
  PG_USER=postgres
else
  PG_USER="$(id -un)"
fi
PGDATA="${TEMPORAL_PGDATA:-$DIR/pgdata}"
# Written into a cluster's data folder when this script creates it: the state folder it belongs to. The
# script deletes a data folder only when it names this state folder.
OWNER_FILE="$PGDATA/payrun-temporal-owner"
LOG_MAX_MB="${TEMPORAL_LOG_MAX_MB:-50}"
LOG_KEEP=3

as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u "$PG_USER" -- "$@"; else "$@"; fi
}

pg_bindir() {
  local d
  d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)"
  if [ -n "$d" ] && [ -x "$d/initdb" ]; then
    echo "$d"
  elif command -v initdb >/dev/null 2>&1; then
    dirname "$(command -v initdb)"
  fi
}

ensure_postgresql() {
  PG_BIN="$(pg_bindir)"
  [ -n "$PG_BIN" ] && return 0
  if [ "$(id -u)" != 0 ]; then
    die "PostgreSQL is missing and only root can install it: run 'apt-get install -y postgresql' as root, then start again."
  fi
  say "installing PostgreSQL from Debian's packages (one time)..."
  # The package's own "main" cluster is not wanted: payrun runs a private cluster of its own.
  mkdir -p /etc/postgresql-common/createcluster.d
  echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.d/payrun.conf
  if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2; }; then
    die "installing PostgreSQL with apt-get failed (see the output above)."
  fi
  PG_BIN="$(pg_bindir)"
  [ -n "$PG_BIN" ] || die "PostgreSQL was installed but initdb is not found under /usr/lib/postgresql."
}

# The server and the SQL tool, built inside the Temporal CLI v1.5.1's module graph (deploy/temporal-server):
# after the CLI's own build (scripts/ensure-temporal.sh) nearly every package is already compiled.
ensure_binaries() {
  local want="temporal version ${SERVER_VERSION}"
  if [ -x "$SERVER_BIN" ] && [ -x "$SQL_TOOL" ] && [ "$("$SERVER_BIN" --version 2>/dev/null)" = "$want" ] &&
    "$SQL_TOOL" --version 2>/dev/null | grep -q " ${SERVER_VERSION}\$"; then
    return 0
  fi
  command -v go >/dev/null 2>&1 ||
    die "Go is missing; install Go 1.25 or newer so the Temporal server v${SERVER_VERSION} can be built once."
  mkdir -p "$BIN_DIR"
  local started
  started=$(date +%s)
  say "building Temporal server and SQL tool v${SERVER_VERSION} into $BIN_DIR (one time)..."
  if ! (cd "$ROOT/deploy/temporal-server" && export GOFLAGS="${GOFLAGS:-} -buildvcs=false" &&
    go build -o "$SERVER_BIN" go.temporal.io/server/cmd/server >&2 &&
    go build -o "$SQL_TOOL" go.temporal.io/server/cmd/tools/sql >&2); then
    die "building the Temporal server failed (see the go output above); check 'go version' (1.25 or newer) and that the Go module proxy is reachable."
  fi
  say "built in $(($(date +%s) - started)) s"
}

# N distinct free loopback ports below 32768: Temporal's PostgreSQL schema keeps membership ports in a
# smallint, and the kernel's own choice (port 0) is 32768 or above. Held together while choosing, so no
# two are the same.
free_ports() {
  node -e '
    const net = require("node:net");
    const n = Number(process.argv[1]);
    const held = [];
    const tryPort = (left) => {
      if (held.length === n) {
        console.log(held.map((s) => s.address().port).join(" "));
        held.forEach((s) => s.close());
        return;
      }
      if (left === 0) { console.error("temporal-postgres: no free loopback ports between 20000 and 32767"); process.exit(1); }
      const s = net.createServer();
      s.once("error", () => tryPort(left - 1));
      s.listen(20000 + Math.floor(Math.random() * 12768), "127.0.0.1", () => { held.push(s); tryPort(left); });
    };
    tryPort(1000);' "$1"
}

port_busy() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

pid_alive() {
  [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null
}

# The recorded pid, only while it is still our server (a pid left from before a reboot may be reused).
server_pid() {
  local pid
  pid="$(cat "$DIR/server.pid" 2>/dev/null || true)"
  if [ -n "$pid" ] && tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -q "^$SERVER_BIN "; then
    echo "$pid"
  fi
}

# Running means a live postmaster of this data folder (a pid left from before a reboot may be reused).
pg_running() {
  local pid
  pid="$(head -1 "$PGDATA/postmaster.pid" 2>/dev/null || true)"
  pid_alive "$pid" && tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -qF -- "-D $PGDATA "
}

# Deletes the cluster's data folder only when this state folder created it (or it is empty).
remove_pgdata() {
  [ -e "$PGDATA" ] || return 0
  if [ "$(cat "$OWNER_FILE" 2>/dev/null || true)" != "$DIR" ] && [ -n "$(ls -A "$PGDATA" 2>/dev/null)" ]; then
    die "$PGDATA holds a PostgreSQL cluster that $DIR did not create; not deleting it. Point TEMPORAL_PGDATA elsewhere or remove it yourself."
  fi
  pg_running && die "PostgreSQL is running in $PGDATA; run 'scripts/temporal-postgres.sh stop' first."
  rm -rf "$PGDATA"
}

# As root, PostgreSQL runs as postgres and must pass through every folder above its data.
check_pg_user_reaches() {
  [ "$(id -u)" = 0 ] || return 0
  runuser -u "$PG_USER" -- test -x "$(dirname "$PGDATA")" ||
    die "PostgreSQL runs as $PG_USER, who cannot reach $(dirname "$PGDATA") (a folder above it is closed to other users); set TEMPORAL_PG_DIR to a folder it can reach."
}

load_state() {
  # shellcheck disable=SC1091
  [ -f "$DIR/state.env" ] && . "$DIR/state.env"
  # A state folder serves the data folder it was created with, no other.
  if [ -n "${STATE_PGDATA:-}" ] && [ "$STATE_PGDATA" != "$PGDATA" ]; then
    die "$DIR/state.env belongs to the cluster in $STATE_PGDATA, not $PGDATA; unset TEMPORAL_PGDATA or use another TEMPORAL_PG_DIR."
  fi
  return 0
}

temporal_cli() {
  "$ROOT/scripts/ensure-temporal.sh"
}

namespace_answers() {
  "$CLI" operator namespace describe --address "$ADDRESS" --namespace "$NAMESPACE" >/dev/null 2>&1
}

# Renders deploy/temporal/config.yaml.tmpl the way the image's dockerize does, for the only two forms
# the template may use; anything else is refused, so the script never runs a half-rendered config.
render_config() {
  node -e '
    const fs = require("node:fs");
    const [src, dst] = process.argv.slice(1);
    const text = fs.readFileSync(src, "utf8");
    const out = text.replace(/\{\{\s*(?:default\s+\.Env\.([A-Z0-9_]+)\s+"([^"]*)"|\.Env\.([A-Z0-9_]+))\s*\}\}/g,
      (_, name, dflt, bare) => {
        const v = process.env[name ?? bare];
        return v !== undefined && v !== "" ? v : (dflt ?? "");
      });
    const left = out.split("\n").findIndex((l) => l.includes("{{"));
    if (left >= 0) {
      console.error(`temporal-postgres: ${src} line ${left + 1}: only {{ default .Env.NAME "value" }} and {{ .Env.NAME }} are supported`);
      process.exit(1);
    }
    if (dst === "-") process.stdout.write(out);
    else fs.writeFileSync(dst, out, { mode: 0o600 });' "$ROOT/deploy/temporal/config.yaml.tmpl" "$1"
}

create_cluster() {
  say "creating a PostgreSQL cluster in $PGDATA ($SHARDS history shards)..."
  local ports password pwfile
  ports="$(choose_ports)" || exit 1
  password="$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  mkdir -p "$PGDATA"
  chmod 700 "$PGDATA"
  [ "$(id -u)" = 0 ] && chown "$PG_USER": "$PGDATA"
  check_pg_user_reaches
  pwfile="$(mktemp "$DIR/.pw.XXXXXX")"
  printf '%s\n' "$password" >"$pwfile"
  [ "$(id -u)" = 0 ] && chown "$PG_USER": "$pwfile"
  # scram-sha-256 for every connection: other users of this machine cannot connect without the password.
  if ! as_pg "$PG_BIN/initdb" -D "$PGDATA" -U temporal --pwfile="$pwfile" --auth=scram-sha-256 \
    -E UTF8 --locale=C.UTF-8 >"$DIR/initdb.log" 2>&1; then
    rm -f "$pwfile"
    die "initdb failed; see $DIR/initdb.log."
  fi
  rm -f "$pwfile"
  printf '%s\n' "$DIR" >"$OWNER_FILE"
  cat >"$DIR/state.env" <<EOF
$ports
SHARDS=$SHARDS
PG_PASSWORD=$password
SCHEMA_DONE=0
STATE_PGDATA=$PGDATA
EOF
  chmod 600 "$DIR/state.env"
}

start_postgres() {
  pg_running && return 0
  if port_busy "$PG_PORT"; then
    die "port $PG_PORT (this cluster's PostgreSQL port, in $DIR/state.env) is taken by another process; stop it or start again with --fresh."
  fi
  check_pg_user_reaches
  # TCP on loopback only, no Unix socket: nothing outside this machine reaches it, and nothing in /run
  # needs creating. Sized for one Temporal server (its pools: 20 + 10 connections per store).
  if ! as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -l "$PGDATA/postgresql.log" -w -t 60 start \
    -o "-c listen_addresses=127.0.0.1 -c port=$PG_PORT -c unix_socket_directories='' -c max_connections=200 -c shared_buffers=256MB" \
    >&2 9>&-; then
    die "PostgreSQL did not start; see $PGDATA/postgresql.log."
  fi
}

apply_schemas() {
  [ "${SCHEMA_DONE:-0}" = 1 ] && return 0
  say "applying Temporal's PostgreSQL schemas..."
  local db
  for db in temporal temporal_visibility; do
    local schema="postgresql/v12/temporal"
    [ "$db" = temporal_visibility ] && schema="postgresql/v12/visibility"
    local sql=("$SQL_TOOL" --plugin postgres12 --ep 127.0.0.1 -p "$PG_PORT" -u temporal --db "$db")
    if ! { SQL_PASSWORD="$PG_PASSWORD" "${sql[@]}" create-database &&
      SQL_PASSWORD="$PG_PASSWORD" "${sql[@]}" setup-schema -v 0.0 &&
      SQL_PASSWORD="$PG_PASSWORD" "${sql[@]}" update-schema --schema-name "$schema"; } >>"$DIR/schema.log" 2>&1; then
      die "setting up the $db database failed; see $DIR/schema.log."
    fi
  done
  sed -i 's/^SCHEMA_DONE=0$/SCHEMA_DONE=1/' "$DIR/state.env"
}

# payrun's batch store (src/batch/store/postgres.ts): its own database and role beside Temporal's, created
# once and checked on every start. The role owns only its database: payrun never reaches Temporal's. The
# tables are payrun's to create (its migrations run when a process first uses the store).
ensure_batch_store() {
  if [ -z "${BATCH_STORE_PASSWORD:-}" ]; then
    BATCH_STORE_PASSWORD="$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
    echo "BATCH_STORE_PASSWORD=$BATCH_STORE_PASSWORD" >>"$DIR/state.env"
  fi
  if ! PGPASSWORD="$PG_PASSWORD" psql -q -X -h 127.0.0.1 -p "$PG_PORT" -U temporal -d postgres \
    -v ON_ERROR_STOP=1 >>"$DIR/schema.log" 2>&1 <<SQL; then
SELECT 'CREATE ROLE payrun LOGIN' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'payrun')\gexec
ALTER ROLE payrun WITH LOGIN PASSWORD '$BATCH_STORE_PASSWORD';
SELECT 'CREATE DATABASE payrun OWNER payrun' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'payrun')\gexec
REVOKE ALL ON DATABASE payrun FROM PUBLIC;
SQL
    die "creating payrun's batch store database failed; see $DIR/schema.log."
  fi
}

cmd_batch_store_url() {
  load_state
  [ -n "${BATCH_STORE_PASSWORD:-}" ] || die "no batch store database yet: 'scripts/temporal-postgres.sh start' creates it."
  echo "PAYRUN_BATCH_STORE_URL=postgres://payrun:$BATCH_STORE_PASSWORD@127.0.0.1:$PG_PORT/payrun"
}

start_server() {
  pid_alive "$(server_pid)" && return 0 # a start that stopped before registering
  mkdir -p "$DIR/config"
  cp "$ROOT/deploy/temporal/dynamicconfig.yaml" "$DIR/dynamicconfig.yaml"
  "$SERVER_BIN" validate-dynamic-config "$DIR/dynamicconfig.yaml" >"$DIR/dynamicconfig.check" 2>&1 ||
    die "deploy/temporal/dynamicconfig.yaml has errors: $(grep -m1 error "$DIR/dynamicconfig.check")"
  # A misspelt key is only a warning to the validator (exit 0), and the server would ignore it.
  ! grep -q 'unregistered key' "$DIR/dynamicconfig.check" ||
    die "deploy/temporal/dynamicconfig.yaml: $(grep -m1 -o 'unregistered key.*' "$DIR/dynamicconfig.check")"
  NUM_HISTORY_SHARDS="$SHARDS" DB_PORT="$PG_PORT" POSTGRES_SEEDS=127.0.0.1 POSTGRES_USER=temporal \
    POSTGRES_PWD="$PG_PASSWORD" BIND_ON_IP=127.0.0.1 LOG_LEVEL="${TEMPORAL_LOG_LEVEL:-warn}" \
    FRONTEND_GRPC_PORT="$FRONTEND_GRPC_PORT" FRONTEND_HTTP_PORT="$FRONTEND_HTTP_PORT" \
    FRONTEND_MEMBERSHIP_PORT="$FRONTEND_MEMBERSHIP_PORT" HISTORY_GRPC_PORT="$HISTORY_GRPC_PORT" \
    HISTORY_MEMBERSHIP_PORT="$HISTORY_MEMBERSHIP_PORT" MATCHING_GRPC_PORT="$MATCHING_GRPC_PORT" \
    MATCHING_MEMBERSHIP_PORT="$MATCHING_MEMBERSHIP_PORT" WORKER_GRPC_PORT="$WORKER_GRPC_PORT" \
    WORKER_MEMBERSHIP_PORT="$WORKER_MEMBERSHIP_PORT" PROMETHEUS_ENDPOINT="127.0.0.1:$METRICS_PORT" \
    DYNAMIC_CONFIG_FILE_PATH="$DIR/dynamicconfig.yaml" \
    render_config "$DIR/config/development.yaml"
  local p
  for p in "$FRONTEND_GRPC_PORT" "$FRONTEND_HTTP_PORT" "$HISTORY_GRPC_PORT" "$MATCHING_GRPC_PORT" "$WORKER_GRPC_PORT"; do
    port_busy "$p" && die "port $p (in $DIR/state.env) is taken by another process; stop it or start again with --fresh."
  done
  (umask 077 && : >>"$DIR/server.log")
  # setsid: the server outlives this script and is not killed with the shell that started it.
  # 9>&-: the start lock is not the server's to hold.
  (umask 077 && cd "$DIR" && exec setsid "$SERVER_BIN" --root "$DIR" --config config --env development \
    --allow-no-auth start >>"$DIR/server.log" 2>&1 </dev/null 9>&-) &
  echo $! >"$DIR/server.pid"
}

register_namespace() {
  local deadline=$(($(date +%s) + ${TEMPORAL_READY_TIMEOUT:-120}))
  local sa_args=()
  # payrun's search attributes, read from workflows/shared/search-attributes.ts as the dev server's are: that
  # needs the project's npm packages, installed the way make installs them (quietly; on stderr, since
  # stdout carries the address).
  [ -f "$ROOT/node_modules/.payrun-installed" ] ||
    make -C "$ROOT" --no-print-directory node_modules/.payrun-installed >&2 ||
    die "could not install the project's npm packages (make node_modules/.payrun-installed)."
  read -r -a sa_args <<<"$(node -r "$ROOT/test/harness/ts-register.js" -e '
    const { SEARCH_ATTRIBUTES } = require(process.argv[1]);
    console.log(Object.entries(SEARCH_ATTRIBUTES).map(([n, t]) => `--name ${n} --type ${t}`).join(" "));' \
    "$ROOT/workflows/shared/search-attributes.ts")"
  [ "${#sa_args[@]}" -gt 0 ] || die "could not read payrun's search attributes from workflows/shared/search-attributes.ts."
  local err=""
  until namespace_answers; do
    pid_alive "$(server_pid)" || die "the Temporal server exited during start-up; see $DIR/server.log."
    # PostgreSQL gone meanwhile: the server, alive, answers nothing; waiting out the deadline would keep the
    # watchdog's round from starting PostgreSQL again for as long (issue 29's test saw 120 s).
    pg_running || die "PostgreSQL stopped during start-up; see $PGDATA/postgresql.log."
    # Created once; "already registered" means a previous start got this far.
    err="$("$CLI" operator namespace create --address "$ADDRESS" --namespace "$NAMESPACE" \
      --retention "$RETENTION" 2>&1 >/dev/null || true)"
    [ "$(date +%s)" -lt "$deadline" ] ||
      die "namespace $NAMESPACE did not answer at $ADDRESS within ${TEMPORAL_READY_TIMEOUT:-120} s (last error: ${err:-none}); see $DIR/server.log."
    sleep 1
  done
  # Right after creation the frontend may not know the namespace yet ("Namespace default is not found"):
  # retried until it does. Adding attributes that exist already succeeds, so a restart re-runs this.
  until err="$("$CLI" operator search-attribute create --address "$ADDRESS" --namespace "$NAMESPACE" \
    "${sa_args[@]}" 2>&1 >/dev/null)"; do
    pg_running || die "PostgreSQL stopped during start-up; see $PGDATA/postgresql.log."
    [ "$(date +%s)" -lt "$deadline" ] ||
      die "payrun's search attributes could not be registered on $ADDRESS within ${TEMPORAL_READY_TIMEOUT:-120} s: $err"
    sleep 1
  done
}

both_running() {
  pid_alive "$(server_pid)" && pg_running
}

# Exit 0 only when the server and PostgreSQL both run; 3 when either is down (each named).
cmd_status() {
  load_state
  local server="NOT running" pg="NOT running"
  pid_alive "$(server_pid)" && server="running (pid $(server_pid))"
  pg_running && pg="running on port $PG_PORT"
  if [ ! -f "$DIR/state.env" ]; then
    say "no cluster in $DIR ('scripts/temporal-postgres.sh start' creates one)"
    return 3
  fi
  pid_alive "$(server_pid)" && echo "TEMPORAL_ADDRESS=127.0.0.1:$FRONTEND_GRPC_PORT"
  if both_running; then
    say "running: server $server, PostgreSQL $pg, $SHARDS shards, data in $DIR"
    return 0
  fi
  say "DOWN: server $server, PostgreSQL $pg ('scripts/temporal-postgres.sh start' starts what is down)"
  return 3
}

# Copies a log past TEMPORAL_LOG_MAX_MB to LOG.1 (older ones to .2, .3) and empties it in place: the
# server and PostgreSQL append to the file they opened, so it is truncated, never moved.
rotate_log() {
  local file="$1" i
  [ -f "$file" ] || return 0
  [ "$(stat -c %s "$file")" -gt $((LOG_MAX_MB * 1024 * 1024)) ] || return 0
  for ((i = LOG_KEEP - 1; i >= 1; i--)); do
    if [ -f "$file.$i" ]; then mv -f "$file.$i" "$file.$((i + 1))"; fi
  done
  cp -p "$file" "$file.1"
  : >"$file"
  say "rotated $file (kept $LOG_KEEP older copies)"
}

cmd_rotate_logs() {
  case "$LOG_MAX_MB" in '' | *[!0-9]* | 0) die "TEMPORAL_LOG_MAX_MB must be a positive whole number, not '$LOG_MAX_MB'." ;; esac
  rotate_log "$DIR/server.log"
  rotate_log "$PGDATA/postgresql.log"
}

# The watchdog: a PostgreSQL or server that died (or a reboot, when systemd runs this) is started again
# within one interval. Stop it before `stop`, or it starts what `stop` stopped.
cmd_supervise() {
  local interval="${TEMPORAL_SUPERVISE_INTERVAL:-10}"
  case "$interval" in '' | *[!0-9]* | 0) die "TEMPORAL_SUPERVISE_INTERVAL must be a positive whole number of seconds, not '$interval'." ;; esac
  say "supervising the cluster in $DIR every $interval s (Ctrl-C or SIGTERM ends this, not the cluster)"
  trap 'say "supervisor stopped"; exit 0' TERM INT
  while :; do
    # Each round in a subshell: a failed start (die) is reported and tried again next round.
    (
      load_state
      cmd_rotate_logs
      if ! both_running; then
        say "$(date -u +%FT%TZ) server $(pid_alive "$(server_pid)" && echo up || echo DOWN), PostgreSQL $(pg_running && echo up || echo DOWN): starting"
        cmd_start >/dev/null
      fi
    ) || say "start failed; trying again in $interval s"
    sleep "$interval" &
    wait $! || true
  done
}

# The unit runs the watchdog as this user (TEMPORAL_SERVICE_USER names another) with the environment the
# script needs and systemd does not give: HOME (the caches), a PATH with node and go, the state folder and
# whatever of the cache and data variables is set now. Ports need nothing here: the cluster's state.env
# keeps them.
cmd_systemd_unit() {
  local user="${TEMPORAL_SERVICE_USER:-$(id -un)}" home path="" tool var
  home="$(getent passwd "$user" | cut -d: -f6)"
  [ -n "$home" ] || die_config "TEMPORAL_SERVICE_USER: no user '$user' on this machine."
  for tool in node go; do
    command -v "$tool" >/dev/null 2>&1 && path+="$(dirname "$(command -v "$tool")"):"
  done
  path+="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
  cat <<UNIT
# payrun's Temporal on PostgreSQL for the checkout $ROOT, restarted by the script's watchdog
# (scripts/temporal-postgres.sh supervise), which systemd restarts in turn. Install:
#   scripts/temporal-postgres.sh systemd-unit > /etc/systemd/system/payrun-temporal.service
#   systemctl daemon-reload && systemctl enable --now payrun-temporal
[Unit]
Description=payrun: Temporal server on PostgreSQL ($DIR)
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
User=$user
WorkingDirectory=$ROOT
Environment="HOME=$home"
Environment="PATH=$path"
Environment="TEMPORAL_PG_DIR=$DIR"
Environment="TEMPORAL_SUPERVISE_INTERVAL=${TEMPORAL_SUPERVISE_INTERVAL:-10}"
UNIT
  for var in XDG_CACHE_HOME PAYRUN_CACHE_DIR TEMPORAL_PGDATA TEMPORAL_LOG_MAX_MB TEMPORAL_RETENTION; do
    [ -z "${!var:-}" ] || echo "Environment=\"$var=${!var}\""
  done
  cat <<UNIT
ExecStart=$ROOT/scripts/temporal-postgres.sh supervise
ExecStopPost=$ROOT/scripts/temporal-postgres.sh stop
# The server and PostgreSQL outlive a restart of the watchdog; stopping the unit stops them (ExecStopPost).
KillMode=process
Restart=always
RestartSec=5

[Install]
WantedBy=multi-user.target
UNIT
}

cmd_stop() {
  local pid
  pid="$(server_pid)"
  if pid_alive "$pid"; then
    kill -TERM "$pid"
    local _
    for _ in $(seq 1 100); do
      pid_alive "$pid" || break
      sleep 0.2
    done
    if pid_alive "$pid"; then
      say "the server did not stop within 20 s of SIGTERM; killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$DIR/server.pid" "$DIR/address.env"
  local postmaster=""
  if pg_running; then
    postmaster="$(head -1 "$PGDATA/postmaster.pid")"
    PG_BIN="$(pg_bindir)"
    as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -m fast -w -t 60 stop >&2 ||
      die "PostgreSQL did not stop; see $PGDATA/postgresql.log."
  fi
  # pg_ctl returns once the postmaster is gone; its backends exit with it. Checked, not assumed.
  local left=""
  for _ in $(seq 1 50); do
    left="$( (pgrep -f "^$SERVER_BIN --root $DIR " || true; [ -z "$postmaster" ] || pgrep -P "$postmaster" || true) | tr '\n' ' ')"
    [ -z "${left// /}" ] && break
    sleep 0.2
  done
  [ -z "${left// /}" ] || die "processes still running after stop: $left"
  say "stopped"
}

cmd_start() {
  local fresh=0
  [ "${1:-}" = --fresh ] && fresh=1
  [ "$#" -le "$fresh" ] || usage
  case "$SHARDS" in '' | *[!0-9]* | 0) die "TEMPORAL_SHARDS must be a positive whole number, not '$SHARDS'." ;; esac
  check_wanted_ports
  mkdir -p "$DIR"
  # As root PostgreSQL (user postgres) passes through to its data; nothing in here is readable by others.
  if [ "$(id -u)" = 0 ]; then chmod 711 "$DIR"; else chmod 700 "$DIR"; fi
  # One start at a time per cluster (the watchdog and a person may both start it).
  exec 9>"$DIR/start.lock"
  flock 9
  if [ "$fresh" = 1 ]; then
    load_state
    cmd_stop
    say "--fresh: deleting the cluster in $PGDATA and the server state in $DIR"
    remove_pgdata
    rm -rf "$DIR/state.env" "$DIR/address.env" "$DIR/config" "$DIR/schema.log" "$DIR/initdb.log"
    # Whatever the old state.env set is gone with it: a password kept in this shell would be used for the
    # new database but never written to the new state.env (batch-store-url then found none).
    unset STATE_PGDATA SCHEMA_DONE BATCH_STORE_PASSWORD
  fi
  load_state
  [ ! -f "$DIR/state.env" ] || apply_wanted_ports
  if both_running && [ -f "$DIR/address.env" ]; then
    [ -z "${TEMPORAL_SHARDS:-}" ] || [ "$TEMPORAL_SHARDS" = "$SHARDS" ] ||
      die "running with $SHARDS history shards; TEMPORAL_SHARDS=$TEMPORAL_SHARDS needs 'start --fresh' (deletes the cluster)."
    say "already running (pid $(server_pid))"
    cat "$DIR/address.env"
    return 0
  fi
  if [ -f "$DIR/state.env" ] && [ -n "${TEMPORAL_SHARDS:-}" ] && [ "$TEMPORAL_SHARDS" != "$SHARDS" ]; then
    die "this cluster was created with $SHARDS history shards; TEMPORAL_SHARDS=$TEMPORAL_SHARDS needs 'start --fresh' (deletes the cluster)."
  fi
  local started
  started=$(date +%s)
  ensure_postgresql
  ensure_binaries
  CLI="$(temporal_cli)"
  if [ ! -f "$DIR/state.env" ] || [ ! -f "$PGDATA/PG_VERSION" ]; then
    remove_pgdata
    create_cluster
    load_state
  fi
  cmd_rotate_logs
  start_postgres
  apply_schemas
  ensure_batch_store
  start_server
  ADDRESS="127.0.0.1:$FRONTEND_GRPC_PORT"
  register_namespace
  (umask 077 && echo "TEMPORAL_ADDRESS=$ADDRESS" >"$DIR/address.env")
  say "ready in $(($(date +%s) - started)) s: namespace $NAMESPACE with payrun's search attributes, $SHARDS history shards; server log $DIR/server.log"
  echo "TEMPORAL_ADDRESS=$ADDRESS"
}

case "${1:-}" in
  start)
    shift
    cmd_start "$@"
    ;;
  stop)
    load_state
    cmd_stop
    ;;
  status) cmd_status ;;
  supervise) cmd_supervise ;;
  systemd-unit) cmd_systemd_unit ;;
  rotate-logs)
    load_state
    cmd_rotate_logs
    ;;
  render-config) render_config - ;;
  batch-store-url) cmd_batch_store_url ;;
  *) usage ;;
esac
