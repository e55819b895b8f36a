package io.prefixlog.core.session;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * The top-level fields of an OpenAI-style request body that capture needs: {@code model}, {@code
 * session_id}, {@code user} and {@code stream}. Read with a streaming parser that skips everything
 * else ({@code messages} included) without building it.
 */
public record BodyFields(String model, String sessionId, String user, boolean stream) {
  public static final BodyFields EMPTY = new BodyFields(null, null, null, false);

  private static final JsonFactory FACTORY = new JsonFactory();

  /**
   * Reads the fields, or {@link #EMPTY} when the body is not a JSON object (any body can be
   * proxied; only JSON ones carry these fields).
   */
  public static BodyFields read(byte[] body, int offset, int length) {
    // Jackson's streaming parser only. A hand-written top-level scan (skipping strings eight bytes
    // at a time, Jackson as its fallback) was tried and removed on 2026-11-26 (issue 20): on chat
    // bodies built from corpora/chat it took 1.26x (oasst, 2.5 KB) and 1.12x (hh-rlhf, 1 KB)
    // Jackson's time, and 0.66x only on ProxyBenchmark's synthetic 20 KB body (BodyFieldsBenchmark,
    // 5 forked JVMs per way, in git at b0c29c7, removed with the scan; benchmarks/README.md,
    // "BodyFields' top-level scan").
    try (JsonParser parser = FACTORY.createParser(body, offset, length)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return EMPTY;
      }
      String model = null;
      String sessionId = null;
      String user = null;
      boolean stream = false;
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String name = parser.currentName();
        JsonToken value = parser.nextToken();
        switch (name) {
          case "model" -> model = value == JsonToken.VALUE_STRING ? parser.getText() : model;
          case "session_id" ->
              sessionId = value == JsonToken.VALUE_STRING ? parser.getText() : sessionId;
          case "user" -> user = value == JsonToken.VALUE_STRING ? parser.getText() : user;
          case "stream" -> stream = value == JsonToken.VALUE_TRUE;
          default -> parser.skipChildren();
        }
      }
      return new BodyFields(model, sessionId, user, stream);
    } catch (IOException e) {
      return EMPTY;
    }
  }

  public static BodyFields read(byte[] body) {
    return read(body, 0, body.length);
  }
}
