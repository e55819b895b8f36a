/**
 * Hit rate vs KV-cache capacity from chunk-hash lookup records: exact LRU curves for every capacity
 * in one pass (Mattson stack distances over a compacted timeline), per chunk and with prefix-cache
 * semantics, windowed rolling hit rates, the engine's reported hit rate beside them, per model and
 * overall, optional SHARDS sampling, and a naive LRU simulator as the reference; the optimal
 * (Belady/MIN) curve for every capacity from the same requests ({@link
 * io.prefixlog.analysis.mrc.OptAnalyzer}, checked against {@link
 * io.prefixlog.analysis.mrc.NaiveMin}). Entry point: {@link io.prefixlog.analysis.mrc.MrcAnalyzer}.
 */
package io.prefixlog.analysis.mrc;
