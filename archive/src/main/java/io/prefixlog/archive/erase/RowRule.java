package io.prefixlog.archive.erase;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * Which rows of a table an erasure touches, and how: a row of an erased chain or turn goes ({@link
 * #scrubbed} null); a KV batch naming an erased session id is kept with that id cleared.
 */
abstract class RowRule {
  /** Files that may hold affected rows, by their column statistics; the rule decides per row. */
  abstract Expression candidates();

  /** True when the row is erased or changed. */
  abstract boolean affects(Record row);

  /** The row as it stays, or null when it goes. */
  abstract Record scrubbed(Record row);

  /** Delta and lookup rows of the selected sessions (and chains) go whole. */
  static RowRule deleting(Set<String> sessionKeys, java.util.function.Predicate<Record> selected) {
    return new RowRule() {
      @Override
      Expression candidates() {
        return Expressions.in("session_key", sessionKeys.toArray());
      }

      @Override
      boolean affects(Record row) {
        Object session = row.getField("session_key");
        return session != null && sessionKeys.contains(session.toString()) && selected.test(row);
      }

      @Override
      Record scrubbed(Record row) {
        return null;
      }
    };
  }

  /**
   * KV event batches stay (engine metadata, no content); the events' {@code session_id} values that
   * name an erased session are cleared, since they are what links a batch to a person.
   */
  static RowRule scrubbingKv(Set<String> ids) {
    return new RowRule() {
      @Override
      Expression candidates() {
        // Nested list values have no usable statistics: every file is read.
        return Expressions.alwaysTrue();
      }

      @Override
      boolean affects(Record row) {
        for (Record event : events(row)) {
          Object id = event.getField("session_id");
          if (id != null && ids.contains(id.toString())) {
            return true;
          }
        }
        return false;
      }

      @Override
      Record scrubbed(Record row) {
        Record copy = row.copy();
        List<Record> events = new ArrayList<>();
        for (Record event : events(row)) {
          Record e = event.copy();
          Object id = e.getField("session_id");
          if (id != null && ids.contains(id.toString())) {
            e.setField("session_id", null);
          }
          events.add(e);
        }
        copy.setField("events", events);
        return copy;
      }
    };
  }

  @SuppressWarnings("unchecked")
  private static List<Record> events(Record row) {
    Object events = row.getField("events");
    return events == null ? List.of() : (List<Record>) events;
  }
}
