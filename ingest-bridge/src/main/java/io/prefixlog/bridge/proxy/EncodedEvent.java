package io.prefixlog.bridge.proxy;

import java.util.Objects;

/**
 * A raw request event ready for Kafka: key {@code session_key}, value the event's JSON.
 *
 * @param requestId for logs and metrics only (never the body)
 * @param captureMs the event's {@code ts}, which its record timestamp is ({@link RecordTime}), or
 *     {@link RecordTime#SEND_TIME} for the bridge's clock at the send
 */
record EncodedEvent(String key, byte[] value, String requestId, long captureMs)
    implements Outbound {
  EncodedEvent {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(requestId, "requestId");
    if (captureMs < 0 && captureMs != RecordTime.SEND_TIME) {
      throw new IllegalArgumentException("captureMs must be >= 0, got " + captureMs);
    }
  }

  /** The same event, to be sent with the bridge's clock as its record timestamp. */
  EncodedEvent atSendTime() {
    return new EncodedEvent(key, value, requestId, RecordTime.SEND_TIME);
  }

  @Override
  public long bytes() {
    return value.length + key.length();
  }

  @Override
  public String toString() {
    return "EncodedEvent[key="
        + key
        + ", requestId="
        + requestId
        + ", captureMs="
        + captureMs
        + ", bytes="
        + value.length
        + "]";
  }
}
