#!/bin/sh
# Registers every connector in $CONNECTORS_DIR (one JSON file per connector: the file name is the
# connector name, the content its configuration) with the Kafka Connect worker at $CONNECT_URL.
# ${VAR} placeholders are replaced by the environment's values; an unset one is an error.
# Idempotent: PUT /connectors/<name>/config creates the connector or updates its configuration.
# Runs as docker-compose's one-shot `connect-init` (curlimages/curl: POSIX sh, sed, curl).
set -eu

CONNECT_URL="${CONNECT_URL:-http://connect:8083}"
CONNECTORS_DIR="${CONNECTORS_DIR:-/etc/prefixlog/connectors}"
CONNECT_WAIT_SECONDS="${CONNECT_WAIT_SECONDS:-300}"
CONNECT_POLL_SECONDS="${CONNECT_POLL_SECONDS:-2}"
PLACEHOLDERS="PREFIXLOG_TOPIC_PREFIX ARCHIVE_NAMESPACE ARCHIVE_TASKS_MAX ARCHIVE_COMMIT_INTERVAL_MS
ARCHIVE_BUCKET ARCHIVE_REGION POSTGRES_DB POSTGRES_USER POSTGRES_PASSWORD MINIO_ROOT_USER
MINIO_ROOT_PASSWORD"

log() { echo "register-connectors: $*" >&2; }

# Wait until the worker serves its REST API and has loaded the Iceberg sink plugin.
waited=0
until curl -fsS "$CONNECT_URL/connector-plugins" 2>/dev/null | grep -q 'IcebergSinkConnector'; do
  if [ "$waited" -ge "$CONNECT_WAIT_SECONDS" ]; then
    log "no IcebergSinkConnector plugin at $CONNECT_URL after ${CONNECT_WAIT_SECONDS}s" \
      "(is archive/target/iceberg-sink-plugin built and mounted?)"
    exit 1
  fi
  sleep "$CONNECT_POLL_SECONDS"
  waited=$((waited + CONNECT_POLL_SECONDS))
done

count=0
for file in "$CONNECTORS_DIR"/*.json; do
  [ -e "$file" ] || { log "no connector files in $CONNECTORS_DIR"; exit 1; }
  name=$(basename "$file" .json)
  config=$(cat "$file")
  for var in $PLACEHOLDERS; do
    value=$(eval "printf '%s' \"\${$var-}\"")
    if printf '%s' "$config" | grep -q "\${$var}"; then
      if [ -z "$value" ]; then
        log "$name: $var is not set"
        exit 1
      fi
      # JSON string escaping first (the value lands inside "…"), then sed's replacement escaping.
      json=$(printf '%s' "$value" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')
      escaped=$(printf '%s' "$json" | sed 's/[&|\\]/\\&/g')
      config=$(printf '%s' "$config" | sed "s|\${$var}|$escaped|g")
    fi
  done
  if printf '%s' "$config" | grep -q '\${'; then
    log "$name: unknown placeholder left: $(printf '%s' "$config" | grep -o '\${[A-Za-z_]*}' | head -1)"
    exit 1
  fi
  status=$(printf '%s' "$config" | curl -sS -o /tmp/register-response -w '%{http_code}' \
    -X PUT -H 'Content-Type: application/json' --data-binary @- \
    "$CONNECT_URL/connectors/$name/config")
  case "$status" in
    200 | 201) log "$name registered (HTTP $status)" ;;
    *)
      log "$name: HTTP $status: $(cat /tmp/register-response)"
      exit 1
      ;;
  esac
  count=$((count + 1))
done
log "$count connectors registered at $CONNECT_URL"
