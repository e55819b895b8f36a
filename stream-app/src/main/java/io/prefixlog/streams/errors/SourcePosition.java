package io.prefixlog.streams.errors;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.prefixlog.schemas.request.RawEventFrame;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Where an input was first read: topic, partition and offset.
 *
 * <p>Why a header: raw events reach the session state through an internal repartition topic, so the
 * record metadata a processor sees names that topic, whose records Kafka Streams purges once
 * committed. A dead letter must name the input the operator can find, on {@code requests.raw}.
 * {@link Stamp} writes the position there into a header before the repartition; {@link #of} reads
 * it back, falling back to the record metadata for inputs read directly.
 */
public record SourcePosition(String topic, Integer partition, Long offset) {
  /** The header that carries the position across a repartition topic. */
  public static final String HEADER = "prefixlog.source";

  /**
   * Marks an input whose key was null. A repartition step drops null-keyed records without a word,
   * so {@link Stamp} gives them a key (the value's {@code session_key} when it has one, so that the
   * event reaches its session's state; else the empty key) and this header, by which the processors
   * see the null key the producer sent (a raw event without a key is valid; a dead letter keeps the
   * null key).
   */
  public static final String NULL_KEY_HEADER = "prefixlog.null-key";

  /** Whether {@code input} arrived without a key (see {@link #NULL_KEY_HEADER}). */
  public static boolean hadNullKey(Record<?, ?> input) {
    return input.headers() != null && input.headers().lastHeader(NULL_KEY_HEADER) != null;
  }

  /** The position of {@code input}: its stamp if it has one, else where the context read it. */
  public static SourcePosition of(ProcessorContext<?, ?> context, Record<?, ?> input) {
    Optional<SourcePosition> stamped = fromHeaders(input.headers());
    if (stamped.isPresent()) {
      return stamped.get();
    }
    Optional<RecordMetadata> origin = context.recordMetadata();
    return new SourcePosition(
        origin.map(RecordMetadata::topic).orElse(null),
        origin.map(RecordMetadata::partition).orElse(null),
        origin.map(RecordMetadata::offset).orElse(null));
  }

  static Optional<SourcePosition> fromHeaders(Headers headers) {
    Header header = headers == null ? null : headers.lastHeader(HEADER);
    if (header == null || header.value() == null) {
      return Optional.empty();
    }
    String text = new String(header.value(), StandardCharsets.UTF_8);
    int atOffset = text.lastIndexOf('@');
    int atPartition = text.lastIndexOf('/', atOffset);
    if (atOffset < 0 || atPartition <= 0) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          new SourcePosition(
              text.substring(0, atPartition),
              Integer.parseInt(text.substring(atPartition + 1, atOffset)),
              Long.parseLong(text.substring(atOffset + 1))));
    } catch (NumberFormatException e) {
      return Optional.empty(); // not ours: a producer's own header of that name
    }
  }

  @Override
  public String toString() {
    return topic + "/" + partition + "@" + offset;
  }

  private static final JsonFactory JSON = new JsonFactory();

  /**
   * The top-level {@code session_key} of a raw event, a JSON object (version 1) or the JSON header
   * of a frame (version 2), or {@code ""} when there is none (the processor then rejects the input
   * with its own reason). Read with a streaming parser that skips everything else: only null-keyed
   * inputs, rare, pay for it.
   */
  static String sessionKeyOf(byte[] value) {
    if (value == null) {
      return "";
    }
    int offset = 0;
    int length = value.length;
    if (RawEventFrame.isFramed(value)) {
      try {
        RawEventFrame.Parts parts = RawEventFrame.parse(value);
        offset = parts.headerOffset();
        length = parts.headerLength();
      } catch (IllegalArgumentException e) {
        return ""; // a broken frame: the processor dead-letters it as invalid_frame
      }
    }
    try (JsonParser parser = JSON.createParser(value, offset, length)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return "";
      }
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String field = parser.currentName();
        JsonToken token = parser.nextToken();
        if ("session_key".equals(field) && token == JsonToken.VALUE_STRING) {
          return parser.getText();
        }
        parser.skipChildren();
      }
    } catch (IOException | RuntimeException e) {
      // Not JSON: the session-delta processor dead-letters it as such.
    }
    return "";
  }

  /**
   * Stamps each record with where it was read, replacing any header of the same name, and gives a
   * null key the empty key (see {@link #NULL_KEY_HEADER}).
   */
  public static final class Stamp implements Processor<String, byte[], String, byte[]> {
    private ProcessorContext<String, byte[]> context;

    @Override
    public void init(ProcessorContext<String, byte[]> context) {
      this.context = context;
    }

    @Override
    public void process(Record<String, byte[]> record) {
      Optional<RecordMetadata> origin = context.recordMetadata();
      Headers headers = record.headers();
      headers.remove(HEADER);
      headers.remove(NULL_KEY_HEADER);
      origin.ifPresent(
          m ->
              headers.add(
                  HEADER,
                  (m.topic() + "/" + m.partition() + "@" + m.offset())
                      .getBytes(StandardCharsets.UTF_8)));
      if (record.key() == null) {
        headers.add(NULL_KEY_HEADER, new byte[] {1});
        // Last: withKey copies the headers.
        record = record.withKey(sessionKeyOf(record.value()));
      }
      context.forward(record);
    }
  }
}
