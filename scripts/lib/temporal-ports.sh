# Sourced by scripts/temporal-postgres.sh: the engine's 11 ports, each settable, so a firewall can be
# written before the first start. TEMPORAL_<KEY> pins one (TEMPORAL_FRONTEND_GRPC_PORT=7233);
# TEMPORAL_PORT_BASE pins the rest to BASE, BASE+1, … in the order below; any port left unset is drawn
# once per cluster from the free loopback ports between 20000 and 32767. The ports a cluster runs on are
# kept in its state.env, so the watchdog (or a systemd unit without these variables) keeps them.
ENGINE_PORT_KEYS=(PG_PORT FRONTEND_GRPC_PORT FRONTEND_HTTP_PORT FRONTEND_MEMBERSHIP_PORT HISTORY_GRPC_PORT
  HISTORY_MEMBERSHIP_PORT MATCHING_GRPC_PORT MATCHING_MEMBERSHIP_PORT WORKER_GRPC_PORT
  WORKER_MEMBERSHIP_PORT METRICS_PORT)

# Configuration errors exit 2, naming the variable.
die_config() {
  echo "temporal-postgres: $*" >&2
  exit 2
}

# The port asked for KEY (the Nth key), or nothing when neither TEMPORAL_KEY nor TEMPORAL_PORT_BASE is set.
wanted_port() {
  local var="TEMPORAL_$1"
  if [ -n "${!var:-}" ]; then
    echo "${!var}"
  elif [ -n "${TEMPORAL_PORT_BASE:-}" ]; then
    echo $((TEMPORAL_PORT_BASE + $2))
  fi
}

# Every variable a whole number in range, no two ports the same. Temporal's PostgreSQL schema keeps
# membership ports in a smallint: those must stay below 32768.
check_wanted_ports() {
  case "${TEMPORAL_PORT_BASE:-1}" in *[!0-9]* | 0*) die_config "TEMPORAL_PORT_BASE must be a port number, not '$TEMPORAL_PORT_BASE'." ;; esac
  local i key port max seen=" "
  for i in "${!ENGINE_PORT_KEYS[@]}"; do
    key="${ENGINE_PORT_KEYS[$i]}"
    local var="TEMPORAL_$key"
    case "${!var:-1}" in *[!0-9]* | 0*) die_config "$var must be a port number, not '${!var}'." ;; esac
    port="$(wanted_port "$key" "$i")"
    [ -n "$port" ] || continue
    max=65535
    [[ "$key" == *MEMBERSHIP* ]] && max=32767
    [ -n "${!var:-}" ] || var="TEMPORAL_PORT_BASE (+$i for $key)"
    [ "$port" -le "$max" ] || die_config "$var: $port is above $max (the highest port $key may have)."
    [[ "$seen" != *" $port "* ]] || die_config "$var: port $port is given to two of the engine's ports."
    seen+="$port "
  done
}

# Prints KEY=PORT lines for a new cluster: the wanted ports, and free ones for the rest.
choose_ports() {
  local wanted=() i drawn=()
  for i in "${!ENGINE_PORT_KEYS[@]}"; do wanted+=("$(wanted_port "${ENGINE_PORT_KEYS[$i]}" "$i")"); done
  read -r -a drawn <<<"$(free_ports 22)"
  for i in "${!ENGINE_PORT_KEYS[@]}"; do
    local port="${wanted[$i]}"
    while [ -z "$port" ]; do
      [ "${#drawn[@]}" -gt 0 ] || die "could not find free loopback ports."
      port="${drawn[0]}"
      drawn=("${drawn[@]:1}")
      [[ " ${wanted[*]} " != *" $port "* ]] || port=""
    done
    echo "${ENGINE_PORT_KEYS[$i]}=$port"
  done
}

# An existing cluster moves to the ports now asked for, kept in state.env; only while it is stopped, since
# a port changed under a running PostgreSQL or server would be a lie.
apply_wanted_ports() {
  local i key port changed=()
  for i in "${!ENGINE_PORT_KEYS[@]}"; do
    key="${ENGINE_PORT_KEYS[$i]}"
    port="$(wanted_port "$key" "$i")"
    [ -n "$port" ] && [ "$port" != "${!key:-}" ] && changed+=("$key=$port")
  done
  [ "${#changed[@]}" -gt 0 ] || return 0
  if pid_alive "$(server_pid)" || pg_running; then
    die_config "the cluster runs with other ports than asked (${changed[*]}); 'scripts/temporal-postgres.sh stop' first, then start."
  fi
  local kv
  for kv in "${changed[@]}"; do
    sed -i "s/^${kv%%=*}=.*/$kv/" "$DIR/state.env"
    say "port ${kv%%=*} is now ${kv#*=}"
  done
  load_state
}
