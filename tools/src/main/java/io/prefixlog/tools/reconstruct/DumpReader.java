package io.prefixlog.tools.reconstruct;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.cli.LineSplitter;
import io.prefixlog.cli.Progress;
import io.prefixlog.cli.ProgressInputStream;
import io.prefixlog.core.rebuild.Rebuilder;
import io.prefixlog.core.rebuild.RecordSource;
import io.prefixlog.core.rebuild.TurnKey;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.json.JsonSerde;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * Reads a JSONL dump of the deltas topic into a {@link Rebuilder}. Two line forms are accepted,
 * even mixed:
 *
 * <ul>
 *   <li>a record value per line, as {@code kcat -C -e -t <topic> -f '%s\n'} writes it: the turn is
 *       the value's {@code session_key} and {@code seq}. Such a dump cannot hold tombstones (their
 *       value is empty): blank and {@code null} lines are counted, nothing more can be done;
 *   <li>a kcat {@code -J} envelope {@code {"key": …, "payload": …}}: the turn is the key ({@code
 *       session_key/seq}, else the payload's fields); the payload is the value as a JSON string (or
 *       object), and {@code null} is a tombstone.
 * </ul>
 *
 * <p>The file is read once to index it: each record is kept as its line's offset and parsed again
 * when its session is rebuilt, so memory holds an index, not the dump. (stdin is first copied to a
 * {@link Spool}.)
 */
final class DumpReader implements AutoCloseable {
  private static final JsonFactory FACTORY = Json.mapper().getFactory();

  private final String name;
  private final FileChannel channel;
  private final Rebuilder rebuilder;
  private final Progress progress;
  private long lines;
  private long records;
  private long tombstones;
  private long blankLines;
  private long bytes;

  private DumpReader(String name, FileChannel channel, Rebuilder rebuilder, Progress progress) {
    this.name = name;
    this.channel = channel;
    this.rebuilder = rebuilder;
    this.progress = progress;
  }

  /** What was read. */
  record Stats(
      String name, long lines, long records, long tombstones, long blankLines, long bytes) {}

  /**
   * Indexes a regular file; the returned reader must stay open until the rebuild has run (records
   * are read from the file then).
   */
  static DumpReader indexFile(Path file, String name, Rebuilder rebuilder, Progress progress)
      throws IOException {
    FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
    DumpReader reader = new DumpReader(name, channel, rebuilder, progress);
    try {
      progress.total(channel.size());
      reader.scan(java.nio.channels.Channels.newInputStream(channel.position(0)));
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    return reader;
  }

  Stats stats() {
    return new Stats(name, lines, records, tombstones, blankLines, bytes);
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }

  private void scan(InputStream in) throws IOException {
    bytes =
        LineSplitter.split(
            new ProgressInputStream(in, progress, 0),
            (line, length, number, offset) -> onLine(line, length, offset));
  }

  private void onLine(byte[] buffer, int length, long offset) {
    lines++;
    String location = name + ":" + lines;
    Line line;
    try {
      line = classify(buffer, length);
    } catch (IOException e) {
      rebuilder.addUnreadable(
          location, "not a JSON line: " + JsonSerde.describeReadFailure(DeltaRecord.class, e));
      return;
    }
    switch (line.form) {
      case BLANK -> blankLines++;
      case UNREADABLE -> rebuilder.addUnreadable(location, line.reason);
      case VALUE, ENVELOPE -> {
        if (line.form == Form.ENVELOPE && line.payloadIsNull) {
          tombstones++;
          if (line.key.isPresent()) {
            rebuilder.addTombstone(line.key.get(), location);
          } else {
            rebuilder.addUnreadable(
                location, "tombstone without a session_key/seq key: the erased turn is unknown");
          }
          return;
        }
        records++;
        if (line.key.isEmpty()) {
          rebuilder.addUnreadable(location, line.reason);
          return;
        }
        rebuilder.add(line.key.get(), source(buffer, length, offset, line.form), location);
      }
    }
  }

  private RecordSource source(byte[] buffer, int length, long offset, Form form) {
    boolean envelope = form == Form.ENVELOPE;
    return () -> {
      ByteBuffer read = ByteBuffer.allocate(length);
      while (read.hasRemaining()) {
        if (channel.read(read, offset + read.position()) < 0) {
          throw new IOException("the dump is shorter than when it was indexed");
        }
      }
      return parse(read.array(), envelope);
    };
  }

  /** Parses a line again into its record (a value line, or an envelope's payload). */
  static DeltaRecord parse(byte[] line, boolean envelope) throws IOException {
    try {
      if (!envelope) {
        return Json.mapper().readValue(line, DeltaRecord.class);
      }
      JsonNode payload = Json.mapper().readTree(line).path("payload");
      if (payload.isTextual()) {
        return Json.mapper().readValue(payload.textValue(), DeltaRecord.class);
      }
      return Json.mapper().treeToValue(payload, DeltaRecord.class);
    } catch (IOException e) {
      throw new IOException(JsonSerde.describeReadFailure(DeltaRecord.class, e));
    }
  }

  private enum Form {
    BLANK,
    VALUE,
    ENVELOPE,
    UNREADABLE
  }

  /** What a line is, and which turn it belongs to (empty with a reason when unknown). */
  private static final class Line {
    Form form;
    Optional<TurnKey> key = Optional.empty();
    boolean payloadIsNull;
    String reason;
  }

  /** Reads only the top-level fields that identify the line; bodies are skipped, not decoded. */
  private static Line classify(byte[] buffer, int length) throws IOException {
    Line line = new Line();
    try (JsonParser parser = FACTORY.createParser(buffer, 0, length)) {
      JsonToken first = parser.nextToken();
      if (first == null || first == JsonToken.VALUE_NULL) {
        // An empty value or kcat's null: a tombstone whose key this dump does not have.
        if (first != null && parser.nextToken() != null) {
          return unreadable(line, "trailing data after null");
        }
        line.form = Form.BLANK;
        return line;
      }
      if (first != JsonToken.START_OBJECT) {
        return unreadable(line, "not a JSON object");
      }
      String key = null;
      boolean hasPayload = false;
      boolean payloadIsText = false;
      String payloadText = null;
      String sessionKey = null;
      String chain = "";
      Long seq = null;
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String field = parser.currentName();
        JsonToken value = parser.nextToken();
        switch (field) {
          case "key" -> key = value == JsonToken.VALUE_STRING ? parser.getText() : null;
          case "payload" -> {
            hasPayload = true;
            line.payloadIsNull = value == JsonToken.VALUE_NULL;
            payloadIsText = value == JsonToken.VALUE_STRING;
            if (payloadIsText) {
              payloadText = parser.getText();
            } else {
              parser.skipChildren();
            }
          }
          case "session_key" ->
              sessionKey = value == JsonToken.VALUE_STRING ? parser.getText() : null;
          case "seq" -> seq = value == JsonToken.VALUE_NUMBER_INT ? parser.getLongValue() : null;
          case "chain" -> chain = value == JsonToken.VALUE_STRING ? parser.getText() : "";
          default -> parser.skipChildren();
        }
      }
      if (parser.nextToken() != null) {
        return unreadable(line, "trailing data after the JSON object");
      }
      if (!hasPayload) {
        line.form = Form.VALUE;
        line.key = turnKey(sessionKey, chain, seq);
        line.reason = "record has no session_key and seq >= 1";
        return line;
      }
      line.form = Form.ENVELOPE;
      line.key = TurnKey.parse(key);
      if (line.key.isEmpty() && key != null) {
        line.reason = "envelope key is not session_key/chain/seq nor session_key/seq";
      } else if (line.key.isEmpty() && payloadIsText) {
        // No key: identify the turn from the payload's own fields.
        Line inner = classify(payloadText.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        line.key = inner.key;
        line.reason = inner.reason != null ? inner.reason : "payload has no session_key and seq";
      } else if (line.key.isEmpty()) {
        line.reason = "envelope has neither a key nor a payload with session_key and seq";
      }
      return line;
    }
  }

  private static Line classify(byte[] bytes) throws IOException {
    Line inner = classify(bytes, bytes.length);
    if (inner.form != Form.VALUE) {
      inner.key = Optional.empty();
      inner.reason = "payload is not a delta record";
    }
    return inner;
  }

  private static Optional<TurnKey> turnKey(String sessionKey, String chain, Long seq) {
    if (sessionKey == null || sessionKey.isEmpty() || seq == null || seq < 1) {
      return Optional.empty();
    }
    try {
      return Optional.of(new TurnKey(sessionKey, chain, seq));
    } catch (IllegalArgumentException e) {
      return Optional.empty(); // a '/' in a field: reported with the line's reason
    }
  }

  private static Line unreadable(Line line, String reason) {
    line.form = Form.UNREADABLE;
    line.reason = reason;
    return line;
  }
}
