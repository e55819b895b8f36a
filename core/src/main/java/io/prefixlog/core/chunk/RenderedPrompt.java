package io.prefixlog.core.chunk;

import java.util.Objects;

/**
 * The bytes that {@link PromptRenderer} made of a request body, and what they are. {@link
 * #toString()} never shows them: they hold the prompt.
 */
public final class RenderedPrompt {
  /** What was chunked; {@link #wireName()} is the record's {@code chunked} field. */
  public enum Kind {
    /** The rendered tool definitions and messages of a chat request. */
    CHAT_MESSAGES("chat_messages"),
    /** The {@code prompt} of a completion request. */
    COMPLETION_PROMPT("completion_prompt"),
    /** The request body as it arrived: neither a chat nor a completion request, or not JSON. */
    RAW_BODY("raw_body");

    private final String wireName;

    Kind(String wireName) {
      this.wireName = wireName;
    }

    public String wireName() {
      return wireName;
    }
  }

  private final Kind kind;
  private final byte[] bytes;

  RenderedPrompt(Kind kind, byte[] bytes) {
    this.kind = Objects.requireNonNull(kind, "kind");
    this.bytes = Objects.requireNonNull(bytes, "bytes");
  }

  public Kind kind() {
    return kind;
  }

  /**
   * The rendered bytes, UTF-8 for the chat and completion kinds. Not a copy (for {@link
   * Kind#RAW_BODY} it is the body array itself): do not modify it.
   */
  public byte[] bytes() {
    return bytes;
  }

  /** Length in bytes: the record's {@code seq_len}. */
  public int length() {
    return bytes.length;
  }

  @Override
  public String toString() {
    return "RenderedPrompt[kind=" + kind.wireName() + ", length=" + bytes.length + ", <redacted>]";
  }
}
