/**
 * Control records: orders to the stream app that travel on its input topics (so that each reaches
 * the one task that owns the state it concerns, in order with that state's data), and the
 * acknowledgements it writes once it has obeyed them.
 */
package io.prefixlog.schemas.control;
