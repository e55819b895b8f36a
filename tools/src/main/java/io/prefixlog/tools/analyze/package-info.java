/**
 * {@code prefixlog analyze}: reads chunk-hash lookup records (the lookups topic, dumps of it, or
 * LMCache's lookup-hash logs), runs them through {@link io.prefixlog.analysis.mrc.MrcAnalyzer} in
 * timestamp order, and writes the hit rate vs cache capacity as a text summary, CSV and PNG charts.
 */
package io.prefixlog.tools.analyze;
