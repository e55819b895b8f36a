/**
 * What keeping the engines' answers costs: the exact stream or its assembly, and what either adds
 * per turn when the next request's delta may copy from it.
 */
package io.prefixlog.benchmarks.response;
