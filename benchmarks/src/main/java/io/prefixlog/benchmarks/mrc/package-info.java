/**
 * Time of the exact hit-rate-vs-capacity pass on 100 M synthetic Zipf lookups, side by side with a
 * naive LRU simulation of one capacity and with the SHARDS-sampled pass and its error.
 */
package io.prefixlog.benchmarks.mrc;
