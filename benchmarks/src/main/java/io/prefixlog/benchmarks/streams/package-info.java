/**
 * Records per second of one stream thread with exactly-once v2 and 20 KB bodies: prefixlog's
 * topology next to a pass-through and a pass-through with one logged store, in one run.
 */
package io.prefixlog.benchmarks.streams;
