#!/bin/bash
: "${KAFKA_HEAP_OPTS:=-Xms256m -Xmx2g}"
export KAFKA_HEAP_OPTS
exec /opt/kafka/bin/kafka-run-class.sh org.apache.kafka.connect.cli.ConnectDistributed "$@"
