/**
 * Rebuilds and verifies request bodies from delta records (keyframes, deltas and tombstones, in any
 * order), session by session, reporting every turn that does not check out.
 */
package io.prefixlog.core.rebuild;
