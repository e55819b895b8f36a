/** Output shared by the benchmarks: aligned text tables and their CSV form. */
package io.prefixlog.benchmarks.report;
