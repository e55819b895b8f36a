#!/bin/sh
# Registers prefixlog's archive connectors with the Kafka Connect worker at $CONNECT_URL: one
# Iceberg sink per archived topic, each rendered from the archive module's connector template
# ($CONNECTOR_TEMPLATE, archive/src/main/connect/iceberg-sink.properties: the same file the embedded
# path renders, so compose and `bin/prefixlog up --archive` run one configuration).
#
# $ARCHIVED_TOPICS lists the topics as id:topic:table (topic without the prefix, table without the
# namespace), as the archive module's ArchivedTopic.all() does. For each, the connector is
# prefixlog-archive-<id>, reading $TOPIC_PREFIX<topic> into $ARCHIVE_NAMESPACE.<table>, with the
# control topic $TOPIC_PREFIX"archive.control."<id> (created beforehand by compose's kafka-init).
# Every other ${NAME} placeholder of the template comes from the environment; an unset or empty one
# is an error and nothing more is sent. Values are taken literally (the template uses no
# properties escapes) and JSON-escaped.
#
# $CONNECTOR_OVERRIDES, when set, names a second properties file rendered after the template into
# the same configuration, for what only this deployment needs (compose: the SASL settings of the
# sink's own Kafka clients, deploy/connect/iceberg-sink-sasl.properties); its keys must not repeat
# the template's.
#
# Idempotent: PUT /connectors/<name>/config creates the connector or updates its configuration.
# Runs as compose's one-shot connect-init (curlimages/curl: POSIX sh, awk, curl).
set -eu

CONNECT_URL="${CONNECT_URL:-http://connect:8083}"
CONNECTOR_TEMPLATE="${CONNECTOR_TEMPLATE:-/etc/prefixlog/iceberg-sink.properties}"
CONNECT_WAIT_SECONDS="${CONNECT_WAIT_SECONDS:-300}"
CONNECT_POLL_SECONDS="${CONNECT_POLL_SECONDS:-2}"
ARCHIVED_TOPICS="${ARCHIVED_TOPICS:-deltas:session.deltas:session_deltas lookups:chunk.lookups:chunk_lookups kv-events:kv.events:kv_events requests:requests.metadata:requests_metadata}"
TOPIC_PREFIX="${TOPIC_PREFIX:-prefixlog.}"
ARCHIVE_NAMESPACE="${ARCHIVE_NAMESPACE:-prefixlog}"

log() { echo "register-connectors: $*" >&2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ ! -f "$CONNECTOR_TEMPLATE" ]; then
  log "no connector template at $CONNECTOR_TEMPLATE"
  exit 1
fi
if [ -n "${CONNECTOR_OVERRIDES:-}" ] && [ ! -f "$CONNECTOR_OVERRIDES" ]; then
  log "no connector overrides at $CONNECTOR_OVERRIDES"
  exit 1
fi

# Properties template -> JSON object, placeholders filled from the environment.
render() {
  awk '
    function jsonstr(s,   out, i, c) {
      out = ""
      for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "\\") out = out "\\\\"
        else if (c == "\"") out = out "\\\""
        else if (c == "\t") out = out "\\t"
        else out = out c
      }
      return "\"" out "\""
    }
    BEGIN { first = 1; printf "{" }
    {
      sub(/\r$/, "")
      line = $0
      if (line ~ /^[ \t]*$/ || line ~ /^[ \t]*[#!]/) next
      rendered = ""
      while (match(line, /\$\{[A-Z0-9_]+\}/)) {
        name = substr(line, RSTART + 2, RLENGTH - 3)
        if (!(name in ENVIRON) || ENVIRON[name] == "") {
          printf "%s\n", name > "/dev/stderr"
          exit 3
        }
        rendered = rendered substr(line, 1, RSTART - 1) ENVIRON[name]
        line = substr(line, RSTART + RLENGTH)
      }
      line = rendered line
      eq = index(line, "=")
      if (eq == 0) next
      key = substr(line, 1, eq - 1)
      value = substr(line, eq + 1)
      gsub(/^[ \t]+|[ \t]+$/, "", key)
      sub(/^[ \t]+/, "", value)
      printf "%s%s: %s", (first ? "" : ", "), jsonstr(key), jsonstr(value)
      first = 0
    }
    END { printf "}\n" }
  ' "$CONNECTOR_TEMPLATE" ${CONNECTOR_OVERRIDES:+"$CONNECTOR_OVERRIDES"}
}

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
for entry in $ARCHIVED_TOPICS; do
  id=${entry%%:*}
  rest=${entry#*:}
  topic=${rest%%:*}
  table=${rest#*:}
  if [ -z "$id" ] || [ -z "$topic" ] || [ -z "$table" ] || [ "$rest" = "$entry" ] || [ "$table" = "$rest" ]; then
    log "ARCHIVED_TOPICS entry '$entry' is not id:topic:table"
    exit 1
  fi
  CONNECTOR_NAME="prefixlog-archive-$id"
  TOPIC="$TOPIC_PREFIX$topic"
  TABLE="$ARCHIVE_NAMESPACE.$table"
  CONTROL_TOPIC="${TOPIC_PREFIX}archive.control.$id"
  export CONNECTOR_NAME TOPIC TABLE CONTROL_TOPIC
  if ! config=$(render 2>$work/missing); then
    log "$CONNECTOR_NAME: $(cat $work/missing) is not set"
    exit 1
  fi
  status=$(printf '%s' "$config" | curl -sS -o $work/response -w '%{http_code}' \
    -X PUT -H 'Content-Type: application/json' --data-binary @- \
    "$CONNECT_URL/connectors/$CONNECTOR_NAME/config")
  case "$status" in
    200 | 201) log "$CONNECTOR_NAME registered: $TOPIC -> $TABLE (HTTP $status)" ;;
    *)
      log "$CONNECTOR_NAME: HTTP $status: $(cat $work/response)"
      exit 1
      ;;
  esac
  count=$((count + 1))
done
log "$count connectors registered at $CONNECT_URL"
