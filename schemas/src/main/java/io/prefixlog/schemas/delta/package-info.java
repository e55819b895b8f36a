/** The delta record (topic {@code session.deltas}): one turn of a session, lossless. */
package io.prefixlog.schemas.delta;
