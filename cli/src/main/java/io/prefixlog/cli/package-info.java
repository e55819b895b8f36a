/**
 * What every prefixlog command shares: option parsing and help, terminal output, progress bars, and
 * reading input files line by line.
 */
package io.prefixlog.cli;
