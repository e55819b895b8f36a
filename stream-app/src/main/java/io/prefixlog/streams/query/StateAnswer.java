package io.prefixlog.streams.query;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.prefixlog.schemas.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One answer of the state endpoint: a status and a JSON body. Every answer but a state names its
 * {@code status} word and the {@code reason} in words, so that a reader (the UI's live-state panel)
 * can show why without knowing the codes.
 *
 * <ul>
 *   <li>200: a {@link SessionStateView};
 *   <li>404 {@code unknown}: no state for the key (never captured, forgotten after the seq
 *       retention, or erased); {@code disabled}: {@code PREFIXLOG_APPLICATION_SERVER} is unset;
 *   <li>503 {@code rebuilding}: a rebalance or a restore is in progress, ask again; {@code
 *       unavailable}: the streams are not running, or the instance that holds the key did not
 *       answer;
 *   <li>400 {@code bad_request}, 401 {@code unauthorized}, 405 {@code method_not_allowed}.
 * </ul>
 */
public record StateAnswer(int status, byte[] body) {
  public static final String UNKNOWN = "unknown";
  public static final String DISABLED = "disabled";
  public static final String REBUILDING = "rebuilding";
  public static final String UNAVAILABLE = "unavailable";
  public static final String BAD_REQUEST = "bad_request";
  public static final String UNAUTHORIZED = "unauthorized";
  public static final String METHOD_NOT_ALLOWED = "method_not_allowed";

  public StateAnswer {
    Objects.requireNonNull(body, "body");
  }

  static StateAnswer of(SessionStateView view) {
    return new StateAnswer(200, json(view));
  }

  /** An answer without a state: {@code {"session_key":…,"status":…,"reason":…}}. */
  public static StateAnswer problem(int status, String sessionKey, String word, String reason) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("session_key", sessionKey);
    body.put("status", word);
    body.put("reason", reason);
    return new StateAnswer(status, json(body));
  }

  public String text() {
    return new String(body, StandardCharsets.UTF_8);
  }

  private static byte[] json(Object value) {
    try {
      return Json.mapper().writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write " + value.getClass().getSimpleName(), e);
    }
  }
}
