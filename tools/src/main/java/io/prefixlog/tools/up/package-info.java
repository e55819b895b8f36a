/**
 * {@code prefixlog up}: the embedded default — a real broker, the stream app, and an optional demo.
 */
package io.prefixlog.tools.up;
