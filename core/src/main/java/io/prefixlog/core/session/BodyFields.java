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
    // Nearly every body is one plain JSON object: scanned eight bytes at a time, the same answer.
    BodyFields fast = TopLevelScan.read(body, offset, length);
    return fast != null ? fast : readWithJackson(body, offset, length);
  }

  /** What {@link #read} gives for every body: Jackson's streaming parser, skipping the rest. */
  static BodyFields readWithJackson(byte[] body, int offset, int length) {
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
