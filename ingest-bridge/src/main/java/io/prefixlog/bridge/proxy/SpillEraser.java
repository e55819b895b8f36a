package io.prefixlog.bridge.proxy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Set;

/**
 * Erases sessions from a stopped bridge's spill directory ({@code PREFIXLOG_SPILL_DIR}): the events
 * it spilled while Kafka was unreachable, and the quarantined copies of spill bytes that failed
 * their checks. {@code prefixlog erase --spill-dir} runs it.
 *
 * <ul>
 *   <li>Each segment holding an event of the sessions is rewritten without it, keeping every other
 *       unacknowledged event byte for byte (checksum and capture time included) and in order;
 *       events Kafka already acknowledged are dropped with it. The new file replaces the old in one
 *       rename; a crash in between resends events Kafka has (the stream app drops such resends),
 *       never loses one it lacks.
 *   <li>In each quarantine file, every piece (the bytes from one record magic to the next) that
 *       holds one of the session keys is overwritten with zeros of the same length; the other
 *       pieces keep their bytes and offsets. A piece in which every copy of the key was damaged
 *       cannot be attributed, and stays.
 * </ul>
 *
 * The bridge must be stopped: the spill directory's lock refuses a second process, and a bridge
 * that resent an erased session's events after the erasure of the topics would start a new chain of
 * it.
 */
public final class SpillEraser {
  private SpillEraser() {}

  /**
   * What an erasure did, counts only.
   *
   * @param segmentsRewritten segments rewritten (or deleted, when nothing else was left)
   * @param eventsErased spilled events of the sessions removed
   * @param acknowledgedDropped other events removed with them because Kafka had them already
   * @param eventsKept other events kept in the rewritten segments, still to be sent
   * @param quarantineFilesRedacted quarantine files in which a piece was zeroed
   * @param quarantinePiecesRedacted pieces zeroed
   */
  public record Result(
      int segmentsRewritten,
      long eventsErased,
      long acknowledgedDropped,
      long eventsKept,
      int quarantineFilesRedacted,
      long quarantinePiecesRedacted) {}

  /**
   * Removes the sessions' events from the spill directory {@code dir}.
   *
   * @throws IllegalStateException when a running bridge holds the directory
   * @throws IOException when a file cannot be read or rewritten
   */
  public static Result erase(Path dir, Set<String> sessionKeys) throws IOException {
    Objects.requireNonNull(dir, "dir");
    Objects.requireNonNull(sessionKeys, "sessionKeys");
    if (!java.nio.file.Files.isDirectory(dir)) {
      throw new IOException("no spill directory at " + dir);
    }
    SpillStore.Erasure e = SpillStore.eraseSessions(dir, Set.copyOf(sessionKeys));
    return new Result(
        e.segmentsRewritten(),
        e.recordsErased(),
        e.acknowledgedDropped(),
        e.recordsKept(),
        e.quarantineFilesRedacted(),
        e.quarantineRunsRedacted());
  }
}
