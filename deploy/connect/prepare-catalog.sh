#!/bin/sh
# Creates the archive's Iceberg namespace and tables in the JDBC catalog before any sink connector
# starts: compose's one-shot catalog-init (on the Kafka image, for its JRE and SLF4J API jar).
# Runs the archive module's io.prefixlog.archive.PrepareCatalog from the plugin directory's own jars
# (archive/target/iceberg-sink-plugin, mounted like on the Connect worker), so the catalog is
# opened with the very Iceberg, S3 and PostgreSQL driver jars the connectors use.
#
# Why before the connectors (archive/README.md, "Create the tables before the connectors start"):
# a table the sink auto-creates takes a list's element type from its first element (the deltas'
# inserts would lose `text`), and three connectors initializing a fresh JDBC catalog at once fail
# with `duplicate column name: iceberg_type`.
#
# Settings: the same variables the connector template takes (CATALOG_URI, CATALOG_USER,
# CATALOG_PASSWORD, WAREHOUSE, S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY, S3_REGION; compose gives
# both services one anchor) and TOPIC_PREFIX. Idempotent: existing tables are left alone.
set -eu

PLUGIN_LIB="${PLUGIN_LIB:-/opt/connect-plugins/iceberg-sink/lib}"
# The worker's libraries (the Kafka image's libs/), for the two jars the plugin directory leaves to
# the worker. PrepareCatalog logs through SLF4J: the API jar (no binding: SLF4J falls back to
# no-op, PrepareCatalog prints). And kafka-clients: the archive takes its topic names from the
# schemas module's Topics, whose topics carry Kafka Serdes (a plugin never holds kafka-clients:
# Connect loads those classes from the worker's class path).
SLF4J_DIR="${SLF4J_DIR:-/opt/kafka/libs}"
JAVA="${JAVA:-java}"
PREPARE_HEAP="${PREPARE_HEAP:-256m}"

log() { echo "prepare-catalog: $*" >&2; }

for name in CATALOG_URI WAREHOUSE S3_ENDPOINT S3_ACCESS_KEY S3_SECRET_KEY S3_REGION TOPIC_PREFIX; do
  eval "value=\${$name:-}"
  if [ -z "$value" ]; then
    log "$name is not set"
    exit 1
  fi
done

if ! ls "$PLUGIN_LIB"/prefixlog-archive-*.jar > /dev/null 2>&1; then
  log "no prefixlog-archive jar in $PLUGIN_LIB (build the plugin directory: mvn -B -Pquick package)"
  exit 1
fi
slf4j=$(ls "$SLF4J_DIR"/slf4j-api-*.jar 2> /dev/null | head -n 1 || true)
if [ -z "$slf4j" ]; then
  log "no slf4j-api jar in $SLF4J_DIR"
  exit 1
fi
kafka_clients=$(ls "$SLF4J_DIR"/kafka-clients-*.jar 2> /dev/null | head -n 1 || true)
if [ -z "$kafka_clients" ]; then
  log "no kafka-clients jar in $SLF4J_DIR"
  exit 1
fi

# An empty user/password is what the embedded SQLite catalog takes; PostgreSQL needs both.
PREFIXLOG_S3_ACCESS_KEY="$S3_ACCESS_KEY"
PREFIXLOG_S3_SECRET_KEY="$S3_SECRET_KEY"
PREFIXLOG_S3_REGION="$S3_REGION"
PREFIXLOG_CATALOG_USER="${CATALOG_USER:-}"
PREFIXLOG_CATALOG_PASSWORD="${CATALOG_PASSWORD:-}"
export PREFIXLOG_S3_ACCESS_KEY PREFIXLOG_S3_SECRET_KEY PREFIXLOG_S3_REGION \
  PREFIXLOG_CATALOG_USER PREFIXLOG_CATALOG_PASSWORD

log "preparing the archive tables in $CATALOG_URI (warehouse $WAREHOUSE)"
exec "$JAVA" "-Xmx$PREPARE_HEAP" -cp "$PLUGIN_LIB/*:$slf4j:$kafka_clients" \
  io.prefixlog.archive.PrepareCatalog \
  --s3-endpoint "$S3_ENDPOINT" --warehouse "$WAREHOUSE" --catalog-uri "$CATALOG_URI" \
  --topic-prefix "$TOPIC_PREFIX"
