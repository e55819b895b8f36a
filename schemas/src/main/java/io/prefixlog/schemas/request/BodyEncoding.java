package io.prefixlog.schemas.request;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/**
 * How body bytes travel inside a JSON string: as the UTF-8 text itself, or as base64 when the bytes
 * are not valid UTF-8. The wire names are {@code utf-8} and {@code base64}.
 */
public enum BodyEncoding {
  UTF_8("utf-8"),
  BASE64("base64");

  private final String wireName;

  BodyEncoding(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  /** The encoding of a wire name, or empty when the name is not one of ours. */
  public static Optional<BodyEncoding> fromWireName(String name) {
    for (BodyEncoding encoding : values()) {
      if (encoding.wireName.equals(name)) {
        return Optional.of(encoding);
      }
    }
    return Optional.empty();
  }

  /** Turns the JSON string of a body back into its exact bytes. */
  public byte[] decode(String text) {
    return switch (this) {
      case UTF_8 -> text.getBytes(StandardCharsets.UTF_8);
      case BASE64 -> Base64.getDecoder().decode(text);
    };
  }

  /** The text form of the bytes: UTF-8 when they are valid UTF-8, base64 otherwise. */
  public static EncodedBody encode(byte[] bytes) {
    Optional<String> text = strictUtf8(bytes);
    return text.map(s -> new EncodedBody(s, UTF_8))
        .orElseGet(() -> new EncodedBody(Base64.getEncoder().encodeToString(bytes), BASE64));
  }

  /**
   * Decodes strictly: malformed input (including encoded surrogates and overlongs) gives empty, so
   * that re-encoding the string always reproduces the same bytes.
   */
  public static Optional<String> strictUtf8(byte[] bytes) {
    try {
      return Optional.of(
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes))
              .toString());
    } catch (CharacterCodingException e) {
      return Optional.empty();
    }
  }

  /** A body as it is written into a record: its text and how to read that text back. */
  public record EncodedBody(String text, BodyEncoding encoding) {}
}
