package io.prefixlog.core.request;

import io.prefixlog.schemas.request.RawRequestEvent;
import java.util.Objects;

/**
 * A raw event that passed validation, with its body's exact bytes.
 *
 * <p>A metadata-only event ({@link RawRequestEvent#metadataOnly()}) has no body: {@code body} is
 * empty and means nothing; its consumers branch on the event first.
 *
 * @param utf8 whether the body bytes are well-formed UTF-8 (a {@code base64} body may still be)
 */
public record ValidatedRequest(RawRequestEvent event, byte[] body, boolean utf8) {
  public ValidatedRequest {
    Objects.requireNonNull(event, "event");
    Objects.requireNonNull(body, "body");
  }

  private static final byte[] NO_BODY = new byte[0];

  /** An accepted metadata-only event. */
  public static ValidatedRequest metadataOnly(RawRequestEvent event) {
    if (!event.metadataOnly()) {
      throw new IllegalArgumentException("event " + event.requestId() + " has its body");
    }
    return new ValidatedRequest(event, NO_BODY, false);
  }

  /** True when the event carries no body (capture sampling). */
  public boolean metadataOnly() {
    return event.metadataOnly();
  }

  @Override
  public String toString() {
    return "ValidatedRequest[" + event + ", utf8=" + utf8 + "]";
  }
}
