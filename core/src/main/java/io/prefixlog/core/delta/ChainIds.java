package io.prefixlog.core.delta;

import io.prefixlog.core.text.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Chain ids: 8 hex digits that, with the session key, name a run of turns numbered from 1.
 *
 * <p>Derived, not random, so that a replay of the same input after a crash (exactly-once replays
 * against the committed state) writes the same records. The input's position is part of the digest
 * on purpose: a session whose state was lost and whose first raw event then arrives again (a
 * duplicate that the lost state would have caught) must still start a chain of its own, or its new
 * turn 2 would replace the old turn 2 under compaction. 32 bits are enough because a collision only
 * matters between chains of one session, of which there are a handful; they keep the record's
 * growth within a few bytes after compression (DeltaSizeBenchmark).
 */
public final class ChainIds {
  /** Length of a chain id in hex digits. */
  public static final int LENGTH = 8;

  private ChainIds() {}

  /**
   * The chain id a chain gets from its first turn.
   *
   * @param requestId the first turn's {@code request_id}
   * @param ts the first turn's {@code ts}
   * @param position where the first turn was read (topic, partition and offset), or any string that
   *     tells two arrivals of the same event apart
   */
  public static String of(String requestId, long ts, String position) {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(position, "position");
    String input = requestId + '\n' + ts + '\n' + position;
    return Sha256.hex(input.getBytes(StandardCharsets.UTF_8)).substring(0, LENGTH);
  }

  /** Whether {@code chain} has the form of a chain id. */
  public static boolean isValid(String chain) {
    if (chain == null || chain.length() != LENGTH) {
      return false;
    }
    for (int i = 0; i < LENGTH; i++) {
      char c = chain.charAt(i);
      if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
        return false;
      }
    }
    return true;
  }
}
