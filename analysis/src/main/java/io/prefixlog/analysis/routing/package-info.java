/**
 * Routing what-if: captured chunk-hash lookups replayed in time order over N replicas, each an LRU
 * cache of C chunks, under a routing policy (random, round-robin, session affinity, least-loaded,
 * longest cached prefix), with per-replica hit rates and load balance. Entry point: {@link
 * io.prefixlog.analysis.routing.FleetSimulator}.
 */
package io.prefixlog.analysis.routing;
