package io.prefixlog.streams.kv;

import java.util.Objects;
import java.util.Set;

/**
 * An erase order as the block-index processor carried it out for one source, handed on to the
 * source-statistics processor (in memory), which drops the ids from its statistics and writes the
 * acknowledgement.
 *
 * @param eraseId the order's id
 * @param idDigests SHA-256 (hex) of the engine-reported session ids to forget
 * @param blocksScrubbed block entries whose session id was cleared
 */
record KvErasure(String eraseId, Set<String> idDigests, long blocksScrubbed) {
  KvErasure {
    Objects.requireNonNull(eraseId, "eraseId");
    idDigests = Set.copyOf(idDigests);
  }
}
