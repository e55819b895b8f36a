package io.prefixlog.tools.erase;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Whether a record names a selected session: a value (a tombstone names nothing that can still be
 * read) whose key is the session's, or whose bytes hold one of the ids the engine's KV events may
 * call it ({@link Selection#kvSessionIds()}). The check of the broker and the wait for the
 * archive's sink must agree on this, or the one would pass records the other counts.
 */
final class SessionMatch {
  private final Selection selection;
  private final List<byte[]> needles = new ArrayList<>();

  SessionMatch(Selection selection) {
    this.selection = selection;
    for (String id : selection.kvSessionIds()) {
      needles.add(id.getBytes(StandardCharsets.UTF_8));
    }
  }

  boolean names(ConsumerRecord<String, byte[]> record) {
    if (record.value() == null) {
      return false;
    }
    if (selection.sessionOf(record.key()) != null) {
      return true;
    }
    for (byte[] needle : needles) {
      if (Bytes.contains(record.value(), needle)) {
        return true;
      }
    }
    return false;
  }
}
