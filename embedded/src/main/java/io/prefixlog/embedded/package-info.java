/**
 * Real services (a KRaft Kafka broker) run as child JVMs that die with their parent, for
 * integration tests and the {@code bin/prefixlog up} embedded default.
 */
package io.prefixlog.embedded;
