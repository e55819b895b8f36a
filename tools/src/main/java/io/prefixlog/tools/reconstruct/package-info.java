/**
 * {@code prefixlog reconstruct}: reads the session deltas topic, or a JSONL dump of it, and
 * rebuilds and verifies every body (or one session's, or one turn's).
 */
package io.prefixlog.tools.reconstruct;
