#!/bin/bash
# Runs a class from /opt/kafka/libs as the distribution's script of the same name does: the JVM
# options of KAFKA_HEAP_OPTS, KAFKA_JVM_PERFORMANCE_OPTS, KAFKA_LOG4J_OPTS and KAFKA_OPTS.
set -euo pipefail
: "${KAFKA_HEAP_OPTS:=-Xmx256m}"
: "${KAFKA_LOG4J_OPTS:=-Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties}"
# shellcheck disable=SC2086 # the options are word lists, as in Kafka's scripts
exec java $KAFKA_HEAP_OPTS ${KAFKA_JVM_PERFORMANCE_OPTS:-} $KAFKA_LOG4J_OPTS ${KAFKA_OPTS:-} \
  -cp '/opt/kafka/libs/*' "$@"
