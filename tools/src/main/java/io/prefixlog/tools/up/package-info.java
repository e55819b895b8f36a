/**
 * {@code prefixlog up}: the embedded default — a real broker, the stream app, and an optional demo.
 * {@link io.prefixlog.tools.up.UpCommand} parses the options and starts the parts in order onto a
 * stack ({@code Parts}) that stops them in reverse; each part gets what it needs of the earlier
 * ones as immutable values when it starts.
 */
package io.prefixlog.tools.up;
