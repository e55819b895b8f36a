package io.prefixlog.core.request;

import java.util.Objects;

/**
 * Why an input was rejected.
 *
 * @param reason a stable snake_case code that metrics and dead letters carry
 * @param detail what exactly was wrong, never quoting the content
 */
public record Rejection(String reason, String detail) {
  public static final String INVALID_JSON = "invalid_json";
  public static final String UNKNOWN_SCHEMA_VERSION = "unknown_schema_version";
  public static final String MISSING_FIELD = "missing_field";
  public static final String INVALID_FIELD = "invalid_field";
  public static final String BODY_TOO_LARGE = "body_too_large";
  public static final String BODY_MISMATCH = "body_mismatch";
  public static final String KEY_MISMATCH = "key_mismatch";

  /** A framed raw event (version 2) whose frame is cut short or whose lengths do not fit. */
  public static final String INVALID_FRAME = "invalid_frame";

  public Rejection {
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(detail, "detail");
  }
}
