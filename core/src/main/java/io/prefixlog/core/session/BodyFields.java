package io.prefixlog.core.session;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.IOException;
import java.util.Arrays;
import java.util.Objects;

/**
 * The fields of an OpenAI-style request body that capture needs: the top-level {@code model},
 * {@code session_id}, {@code user} and {@code stream}, and the digest of the conversation's
 * opening. Read with a streaming parser that builds nothing and skips everything else undecoded,
 * the messages after the first user message included.
 *
 * @param model the body's {@code model}, or null
 * @param sessionId the body's {@code session_id}, or null
 * @param user the body's {@code user}, or null
 * @param stream whether the body asks for a streamed answer
 * @param conversationAnchor the SHA-256 ({@value #ANCHOR_BYTES} bytes) of the model and the first
 *     user message of the conversation, which every turn of the conversation repeats (of Chat
 *     Completions' and Anthropic's {@code messages}, of the Responses API's {@code input}; the
 *     system prompt is left out, see {@link ConversationAnchor}); null when the body has no user
 *     message, continues a conversation held by the server ({@code previous_response_id}, {@code
 *     conversation}) or is not whole JSON. Never written anywhere: {@link SessionKeyDeriver} keys
 *     it with the secret, and {@link #toString} leaves it out.
 */
public record BodyFields(
    String model, String sessionId, String user, boolean stream, byte[] conversationAnchor) {
  public static final int ANCHOR_BYTES = 32;

  public static final BodyFields EMPTY = new BodyFields(null, null, null, false, null);

  /**
   * Strings of any length: a first user message is decoded to be digested, and Jackson's default
   * limit (20 million characters) is below the largest body the proxy can capture.
   */
  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          .streamReadConstraints(
              StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build())
          .build();

  public BodyFields {
    if (conversationAnchor != null) {
      if (conversationAnchor.length != ANCHOR_BYTES) {
        throw new IllegalArgumentException(
            "a conversation anchor is "
                + ANCHOR_BYTES
                + " bytes, got "
                + conversationAnchor.length);
      }
      conversationAnchor = conversationAnchor.clone();
    }
  }

  /** Fields without a conversation anchor. */
  public BodyFields(String model, String sessionId, String user, boolean stream) {
    this(model, sessionId, user, stream, null);
  }

  /** A copy of the anchor's digest, or null. */
  @Override
  public byte[] conversationAnchor() {
    return conversationAnchor == null ? null : conversationAnchor.clone();
  }

  /**
   * Reads the fields, or {@link #EMPTY} when the body is not a JSON object or not whole (any body
   * can be proxied; only JSON ones carry these fields). Never throws on a body's content.
   */
  public static BodyFields read(byte[] body, int offset, int length) {
    return read(body, offset, length, true);
  }

  public static BodyFields read(byte[] body) {
    return read(body, 0, body.length);
  }

  /**
   * Reads the top-level fields only, every other value skipped undecoded: no {@link
   * #conversationAnchor}, for a request whose key comes from elsewhere (a session header), which
   * then does not pay for decoding and digesting the conversation's first user message.
   */
  public static BodyFields readTopLevel(byte[] body, int offset, int length) {
    return read(body, offset, length, false);
  }

  public static BodyFields readTopLevel(byte[] body) {
    return readTopLevel(body, 0, body.length);
  }

  private static BodyFields read(byte[] body, int offset, int length, boolean withAnchor) {
    // Jackson's streaming parser only: a hand-written top-level scan cost more than Jackson on real
    // chat bodies (benchmarks/README.md, "BodyFields' top-level scan").
    try (JsonParser parser = FACTORY.createParser(body, offset, length)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return EMPTY;
      }
      ConversationAnchor anchor = withAnchor ? ConversationAnchor.start() : null;
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
          default -> {
            if (anchor == null || !anchor.read(name, parser)) {
              parser.skipChildren();
            }
          }
        }
      }
      return new BodyFields(
          model, sessionId, user, stream, anchor == null ? null : anchor.finish(model));
    } catch (IOException e) {
      return EMPTY;
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BodyFields other
        && stream == other.stream
        && Objects.equals(model, other.model)
        && Objects.equals(sessionId, other.sessionId)
        && Objects.equals(user, other.user)
        && Arrays.equals(conversationAnchor, other.conversationAnchor);
  }

  @Override
  public int hashCode() {
    return Objects.hash(model, sessionId, user, stream) + 31 * Arrays.hashCode(conversationAnchor);
  }

  /** The anchor only as present or not: it is an unkeyed digest of prompt text. */
  @Override
  public String toString() {
    return "BodyFields[model="
        + model
        + ", sessionId="
        + sessionId
        + ", user="
        + user
        + ", stream="
        + stream
        + ", conversationAnchor="
        + (conversationAnchor == null ? "none" : "present")
        + "]";
  }
}
