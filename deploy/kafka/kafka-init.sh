#!/bin/bash
# kafka-init (docker-compose.yml): as the SASL user `admin`, creates each archive connector's
# control topic (one partition; embedded-infra.md, pitfall 2) and grants every other component
# exactly what it does on Kafka, nothing more (README, "Kafka users and ACLs"). The broker's
# StandardAuthorizer denies whatever no ACL allows (allow.everyone.if.no.acl.found=false), so a
# container without a user (the model server, the demo engine) cannot even connect, and a
# component's user cannot read or write another's topics. Idempotent: every `up` runs it again.
#
# Needs: ADMIN_PASSWORD, TOPIC_PREFIX, APPLICATION_ID, CONNECT_GROUP (the worker's group.id and
# the prefix of its internal topics).
set -euo pipefail

P="${TOPIC_PREFIX:?}"
A="${APPLICATION_ID:?}"
C="${CONNECT_GROUP:?}"
B=kafka:9092

config=$(mktemp)
trap 'rm -f "$config"' EXIT
# The password goes into a file only this container reads, never onto a command line.
printf '%s\n' \
  'security.protocol=SASL_PLAINTEXT' \
  'sasl.mechanism=PLAIN' \
  "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" password=\"${ADMIN_PASSWORD:?}\";" \
  > "$config"

for id in deltas lookups kv-events requests; do
  /opt/kafka/bin/kafka-topics.sh --bootstrap-server "$B" --command-config "$config" --create \
    --if-not-exists --topic "${P}archive.control.$id" --partitions 1 --replication-factor 1
done

allow() {
  local user="$1"
  shift
  /opt/kafka/bin/kafka-acls.sh --bootstrap-server "$B" --command-config "$config" --add \
    --allow-principal "User:$user" "$@" > /dev/null
}

# The bridge writes the capture and the KV events: nothing else, and it reads nothing.
allow bridge --operation Write --operation Describe \
  --topic "${P}requests.raw" --topic "${P}kv.events"

# The stream app reads its inputs (erase orders among them), writes its outputs, creates them all
# and tunes their compression (TopicCreator), reads the broker's limits (LimitCheck), and owns
# what Kafka Streams names after its application id: internal topics (changelogs, repartition,
# the -topology registrations of GroupGuard), its consumer group, its transactional ids.
allow streams --operation Read --operation Describe --operation Create \
  --operation DescribeConfigs --operation AlterConfigs \
  --topic "${P}requests.raw" --topic "${P}kv.events"
allow streams --operation All \
  --topic "${P}session.deltas" --topic "${P}chunk.lookups" --topic "${P}requests.metadata" \
  --topic "${P}kv.block-index" --topic "${P}kv.source-stats" --topic "${P}dlq" \
  --topic "${P}erasures"
allow streams --operation All --resource-pattern-type prefixed --topic "$A"
allow streams --operation Read --operation Describe --group "$A"
allow streams --operation Write --operation Describe --resource-pattern-type prefixed \
  --transactional-id "$A"
allow streams --operation DescribeConfigs --cluster

# The UI reads what it shows, with no consumer group (it assigns itself the partitions).
allow ui --operation Read --operation Describe \
  --topic "${P}session.deltas" --topic "${P}chunk.lookups" --topic "${P}kv.block-index" \
  --topic "${P}kv.source-stats" --topic "${P}erasures"

# Connect reads the archived topics, keeps its worker's internal topics and group, and the Iceberg
# sink its control topics, its groups (connect-<connector>, connect-<connector>-coord, and
# cg-control-<uuid>) and transactional ids (worker-txn-…, coordinator-txn-…).
allow connect --operation Read --operation Describe \
  --topic "${P}session.deltas" --topic "${P}chunk.lookups" --topic "${P}kv.events" \
  --topic "${P}requests.metadata"
allow connect --operation All --resource-pattern-type prefixed --topic "$C"
allow connect --operation Read --operation Write --operation Describe \
  --resource-pattern-type prefixed --topic "${P}archive.control."
allow connect --operation Read --operation Describe --group "$C"
allow connect --operation Read --operation Describe --resource-pattern-type prefixed \
  --group connect- --group cg-control-
allow connect --operation Write --operation Describe --resource-pattern-type prefixed \
  --transactional-id worker-txn- --transactional-id coordinator-txn-

echo "kafka-init: control topics and ACLs in place for bridge, streams, ui and connect"
