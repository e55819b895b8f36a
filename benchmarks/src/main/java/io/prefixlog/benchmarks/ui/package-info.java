/** The session explorer's page times over a large capture, next to {@code reconstruct}'s. */
package io.prefixlog.benchmarks.ui;
