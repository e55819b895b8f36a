/**
 * The publisher-thread cost of capture sampling per event (the decision, a sampled-out body's chunk
 * hashes, the metadata-only event) next to the full raw event with its body, in the same run.
 */
package io.prefixlog.benchmarks.sampling;
