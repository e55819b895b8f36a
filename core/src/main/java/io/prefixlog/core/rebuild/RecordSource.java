package io.prefixlog.core.rebuild;

import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.json.JsonSerde;
import java.io.IOException;
import java.util.Objects;

/**
 * A delta record that is read when its session is rebuilt, not before: a reader can keep the
 * record's raw bytes, or only where to find them again, until then.
 */
public interface RecordSource {

  /**
   * Reads the record.
   *
   * @throws IOException when the record cannot be read; the message must describe the failure
   *     without quoting the record (it can hold a prompt)
   */
  DeltaRecord load() throws IOException;

  /** A record that is already in memory. */
  static RecordSource of(DeltaRecord record) {
    Objects.requireNonNull(record, "record");
    return () -> record;
  }

  /** A record value as the delta topic holds it (UTF-8 JSON), parsed on {@link #load()}. */
  static RecordSource json(byte[] value) {
    Objects.requireNonNull(value, "value");
    return () -> {
      try {
        return Json.mapper().readValue(value, DeltaRecord.class);
      } catch (IOException e) {
        // Jackson's own messages quote the offending token; this names the failure and position.
        throw new IOException(JsonSerde.describeReadFailure(DeltaRecord.class, e));
      }
    };
  }
}
