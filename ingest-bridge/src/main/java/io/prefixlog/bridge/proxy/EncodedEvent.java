package io.prefixlog.bridge.proxy;

import java.util.Objects;

/**
 * A raw request event ready for Kafka: key {@code session_key}, value the event's JSON.
 *
 * @param requestId for logs and metrics only (never the body)
 */
record EncodedEvent(String key, byte[] value, String requestId) implements Outbound {
  EncodedEvent {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(requestId, "requestId");
  }

  @Override
  public long bytes() {
    return value.length + key.length();
  }

  @Override
  public EncodedEvent encode() {
    return this;
  }

  @Override
  public String toString() {
    return "EncodedEvent[key=" + key + ", requestId=" + requestId + ", bytes=" + value.length + "]";
  }
}
