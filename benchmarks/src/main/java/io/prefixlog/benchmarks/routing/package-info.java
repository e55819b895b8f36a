/**
 * Requests per minute of the routing what-if ({@code analyze --replicas}) per policy on synthetic
 * agent sessions, side by side with the single-cache LRU passes over the same lookups.
 */
package io.prefixlog.benchmarks.routing;
