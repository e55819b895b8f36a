#!/bin/bash
: "${KAFKA_HEAP_OPTS:=-Xmx1g -Xms256m}"
export KAFKA_HEAP_OPTS
exec /opt/kafka/bin/kafka-run-class.sh kafka.Kafka "$@"
