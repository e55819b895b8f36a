/**
 * What every benchmark shares: its declaration and command line ({@link
 * io.prefixlog.benchmarks.harness.Benchmark}), the machine header ({@link
 * io.prefixlog.benchmarks.harness.Machine}), medians of rounds ({@link
 * io.prefixlog.benchmarks.harness.Medians}) and tables written as text and CSV ({@link
 * io.prefixlog.benchmarks.report.TextTable}).
 */
package io.prefixlog.benchmarks.harness;
