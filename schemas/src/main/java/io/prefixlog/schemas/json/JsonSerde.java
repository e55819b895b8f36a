package io.prefixlog.schemas.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;
import java.util.Objects;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * A Serde for one wire type. {@code null} maps to {@code null} in both directions so that
 * tombstones survive a round trip.
 */
public final class JsonSerde<T> implements Serde<T> {
  private final Class<T> type;

  private JsonSerde(Class<T> type) {
    this.type = Objects.requireNonNull(type, "type");
  }

  public static <T> JsonSerde<T> of(Class<T> type) {
    return new JsonSerde<>(type);
  }

  /** Encodes a value as UTF-8 JSON; {@code null} gives {@code null}. */
  public byte[] toBytes(T value) {
    if (value == null) {
      return null;
    }
    try {
      return Json.mapper().writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new SerializationException("cannot write " + type.getSimpleName(), e);
    }
  }

  /** Decodes UTF-8 JSON; {@code null} gives {@code null}. */
  public T fromBytes(byte[] bytes) {
    if (bytes == null) {
      return null;
    }
    try {
      return Json.mapper().readValue(bytes, type);
    } catch (IOException e) {
      throw new SerializationException(describeReadFailure(type, e));
    }
  }

  /**
   * Names the type, the kind of failure and its position, never the content: values can hold
   * prompts, and Jackson's own messages quote the offending token.
   */
  public static String describeReadFailure(Class<?> type, IOException e) {
    StringBuilder message = new StringBuilder("cannot read ").append(type.getSimpleName());
    message.append(": ").append(e.getClass().getSimpleName());
    if (e instanceof JsonProcessingException parse && parse.getLocation() != null) {
      message
          .append(" at line ")
          .append(parse.getLocation().getLineNr())
          .append(" column ")
          .append(parse.getLocation().getColumnNr());
    }
    return message.toString();
  }

  @Override
  public Serializer<T> serializer() {
    return (topic, value) -> toBytes(value);
  }

  @Override
  public Deserializer<T> deserializer() {
    return (topic, bytes) -> fromBytes(bytes);
  }
}
