package io.prefixlog.core.request;

import io.prefixlog.schemas.request.RawRequestEvent;
import java.util.Objects;

/**
 * A raw event that passed validation, with its body's exact bytes.
 *
 * @param utf8 whether the body bytes are well-formed UTF-8 (a {@code base64} body may still be)
 */
public record ValidatedRequest(RawRequestEvent event, byte[] body, boolean utf8) {
  public ValidatedRequest {
    Objects.requireNonNull(event, "event");
    Objects.requireNonNull(body, "body");
  }

  @Override
  public String toString() {
    return "ValidatedRequest[" + event + ", utf8=" + utf8 + "]";
  }
}
