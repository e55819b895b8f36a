package io.prefixlog.core.session;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.prefixlog.core.text.Sha256;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CoderResult;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Reads the start of a conversation out of a request body while {@link BodyFields#read} streams it,
 * and digests it: the model and the first {@code user} message of {@code messages} or {@code
 * input}. Every later turn of the same conversation repeats that message, so it gives the same
 * digest; nothing after it is read (it is skipped undecoded, as before).
 *
 * <p>The system prompt is left out on purpose (a top-level {@code system} or {@code instructions},
 * and the {@code system}/{@code developer} messages before the first user message): clients write
 * the time, retrieved context or memory into it, so it changes between the turns of one
 * conversation, and a key that followed it would start a new session, and a keyframe, on every
 * turn. What tells conversations apart is the task the user opened with; a sub-agent started with
 * its parent's system prompt has a task of its own, so a key of its own.
 *
 * <p>What is digested is what a client keeps from turn to turn: the message's {@code name} and
 * content; a content part's {@code type}, {@code text} and image or file reference ({@code
 * image_url} or its {@code url}, an Anthropic {@code source}'s {@code url} or {@code data}, {@code
 * file_id}); a string content as the one text part it stands for. Every other field is left out,
 * {@code cache_control} above all: clients move that marker to the latest messages, so the first
 * user message carries it at turn 1 and not at turn 2. Texts are digested as decoded, so a JSON
 * escape or its character give the same digest.
 *
 * <p>The canonical form is unambiguous: every variable field is a tag byte, its length in UTF-16
 * code units (-1 when absent) and its UTF-8 bytes; the message's content is digested apart and
 * joined to its role and name after the message ends, so the order of a message's fields does not
 * matter. A body that continues a conversation held by the server ({@code previous_response_id} or
 * {@code conversation}, Responses API) has no anchor: its input is only the new turn.
 *
 * <p>One instance per thread, reused ({@link #start}); not reentrant.
 */
final class ConversationAnchor {
  private static final ThreadLocal<ConversationAnchor> READERS =
      ThreadLocal.withInitial(ConversationAnchor::new);

  private static final int ABSENT = -1;

  // Tags of the canonical form: one byte before each field.
  private static final byte TEXT = 'T';
  private static final byte URL = 'U';
  private static final byte DATA = 'B';
  private static final byte FILE = 'F';
  private static final byte PART = 'P';
  private static final byte ROLE = 'R';
  private static final byte NAME = 'N';
  private static final byte MODEL = 'O';

  /** The final digest: the model and the first user message's. */
  private final MessageDigest anchor = Sha256.newDigest();

  /** The first user message: its role, name and content digest. */
  private final MessageDigest messages = Sha256.newDigest();

  /** One message's content (reset per message). */
  private final MessageDigest content = Sha256.newDigest();

  /** UTF-8 bytes on their way into a digest. */
  private final byte[] scratch = new byte[4096];

  private final ByteBuffer out = ByteBuffer.wrap(scratch);
  private final CharsetEncoder utf8 = StandardCharsets.UTF_8.newEncoder();

  private char[] chars = new char[64];
  private boolean userSeen;
  private boolean serverHeld;

  private ConversationAnchor() {}

  /** This thread's reader, emptied for a new body. */
  static ConversationAnchor start() {
    ConversationAnchor reader = READERS.get();
    reader.anchor.reset();
    reader.messages.reset();
    reader.content.reset();
    reader.userSeen = false;
    reader.serverHeld = false;
    return reader;
  }

  /**
   * Reads a top-level field of the body if the anchor needs it, the parser on its value.
   *
   * @return whether the field was one the anchor reads (and its value was consumed)
   */
  boolean read(String field, JsonParser parser) throws IOException {
    switch (field) {
      case "messages", "input" -> messages(parser);
      case "previous_response_id", "conversation" -> serverHeld(parser);
      default -> {
        return false;
      }
    }
    return true;
  }

  /**
   * Reads {@code messages} or {@code input} up to its first user message, the parser on its value,
   * and skips the rest of it. A string (Responses' {@code input}) is itself a first user message;
   * in an array only objects with a {@code role} count.
   */
  private void messages(JsonParser parser) throws IOException {
    JsonToken value = parser.currentToken();
    if (userSeen) {
      parser.skipChildren();
      return;
    }
    if (value == JsonToken.VALUE_STRING) {
      content.reset();
      putTextPart(parser, content);
      endMessage("user", null);
      return;
    }
    if (!onOrSkipped(parser, JsonToken.START_ARRAY)) {
      return;
    }
    JsonToken item;
    while ((item = nextElement(parser)) != null) {
      if (userSeen) {
        parser.skipChildren();
      } else if (item == JsonToken.START_OBJECT) {
        readMessage(parser);
      } else {
        parser.skipChildren();
      }
    }
    if (!userSeen) {
      // A list without a user message anchors nothing; another list in the body starts afresh.
      messages.reset();
      content.reset();
    }
  }

  /** Notes a {@code previous_response_id} or {@code conversation}, the parser on its value. */
  private void serverHeld(JsonParser parser) throws IOException {
    serverHeld |= parser.currentToken() != JsonToken.VALUE_NULL;
    parser.skipChildren();
  }

  /**
   * The anchor's digest, or null when the body had no user message or continues a conversation held
   * by the server.
   */
  byte[] finish(String model) {
    if (!userSeen || serverHeld) {
      return null;
    }
    anchor.reset();
    putString(anchor, MODEL, model);
    anchor.update(messages.digest());
    return anchor.digest();
  }

  private void readMessage(JsonParser parser) throws IOException {
    content.reset();
    String role = null;
    String name = null;
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String field = parser.currentName();
      JsonToken value = parser.nextToken();
      switch (field) {
        case "role" -> role = value == JsonToken.VALUE_STRING ? parser.getText() : role;
        case "name" -> name = value == JsonToken.VALUE_STRING ? parser.getText() : name;
        case "content" -> readContent(parser, content);
        default -> parser.skipChildren();
      }
    }
    if (role != null) {
      endMessage(role, name);
    }
  }

  /** Ends a message: the first user message is the anchor; the messages before it are not. */
  private void endMessage(String role, String name) {
    byte[] contentDigest = content.digest();
    if (!role.equals("user")) {
      return;
    }
    putString(messages, ROLE, role);
    putString(messages, NAME, name);
    messages.update(contentDigest);
    userSeen = true;
  }

  /**
   * A string, or an array of parts (objects) and strings; anything else is skipped. A string is
   * digested as the text part it stands for: clients turn {@code "content": "hi"} into {@code
   * [{"type":"text","text":"hi","cache_control":…}]} to mark it, and back when the marker moves on.
   */
  private void readContent(JsonParser parser, MessageDigest digest) throws IOException {
    JsonToken value = parser.currentToken();
    if (value == JsonToken.VALUE_STRING) {
      putTextPart(parser, digest);
      return;
    }
    if (!onOrSkipped(parser, JsonToken.START_ARRAY)) {
      return;
    }
    JsonToken item;
    while ((item = nextElement(parser)) != null) {
      if (item == JsonToken.START_OBJECT) {
        readPart(parser, digest);
      } else if (item == JsonToken.VALUE_STRING) {
        putTextPart(parser, digest);
      } else {
        parser.skipChildren();
      }
    }
  }

  private void putTextPart(JsonParser parser, MessageDigest digest) throws IOException {
    putText(digest, TEXT, parser);
    putString(digest, PART, "text");
  }

  private void readPart(JsonParser parser, MessageDigest digest) throws IOException {
    String type = null;
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String field = parser.currentName();
      JsonToken value = parser.nextToken();
      switch (field) {
        case "type" -> type = value == JsonToken.VALUE_STRING ? parser.getText() : type;
        case "text" -> putIfString(parser, digest, TEXT);
        case "file_id" -> putIfString(parser, digest, FILE);
        case "image_url" -> {
          if (value == JsonToken.START_OBJECT) {
            readReference(parser, digest);
          } else {
            putIfString(parser, digest, URL);
          }
        }
        case "source" -> readReference(parser, digest);
        default -> parser.skipChildren();
      }
    }
    putString(digest, PART, type);
  }

  /** An object's {@code url} and {@code data}; its other fields ({@code detail}) are skipped. */
  private void readReference(JsonParser parser, MessageDigest digest) throws IOException {
    if (!onOrSkipped(parser, JsonToken.START_OBJECT)) {
      return;
    }
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String field = parser.currentName();
      parser.nextToken();
      switch (field) {
        case "url" -> putIfString(parser, digest, URL);
        case "data" -> putIfString(parser, digest, DATA);
        default -> parser.skipChildren();
      }
    }
  }

  /**
   * Whether the parser stands on {@code start}, the value the caller walks; any other value is
   * skipped whole, so that an unexpected shape is passed over rather than misread.
   */
  private static boolean onOrSkipped(JsonParser parser, JsonToken start) throws IOException {
    if (parser.currentToken() == start) {
      return true;
    }
    parser.skipChildren();
    return false;
  }

  /**
   * The next element of the array the parser is in, or null after its last; null too at the end of
   * the input, so that a truncated body ends the walk instead of looping on it.
   */
  private static JsonToken nextElement(JsonParser parser) throws IOException {
    JsonToken item = parser.nextToken();
    return item == JsonToken.END_ARRAY ? null : item;
  }

  private void putIfString(JsonParser parser, MessageDigest digest, byte tag) throws IOException {
    if (parser.currentToken() == JsonToken.VALUE_STRING) {
      putText(digest, tag, parser);
    } else {
      parser.skipChildren();
    }
  }

  /** The parser's current string, decoded, without making a {@code String} of it. */
  private void putText(MessageDigest digest, byte tag, JsonParser parser) throws IOException {
    char[] text = parser.getTextCharacters();
    int offset = parser.getTextOffset();
    int length = parser.getTextLength();
    putLength(digest, tag, length);
    putUtf8(digest, text, offset, length);
  }

  private void putString(MessageDigest digest, byte tag, String value) {
    if (value == null) {
      putLength(digest, tag, ABSENT);
      return;
    }
    int length = value.length();
    if (chars.length < length) {
      chars = new char[Math.max(length, chars.length * 2)];
    }
    value.getChars(0, length, chars, 0);
    putLength(digest, tag, length);
    putUtf8(digest, chars, 0, length);
  }

  private void putLength(MessageDigest digest, byte tag, int length) {
    scratch[0] = tag;
    scratch[1] = (byte) (length >>> 24);
    scratch[2] = (byte) (length >>> 16);
    scratch[3] = (byte) (length >>> 8);
    scratch[4] = (byte) length;
    digest.update(scratch, 0, 5);
  }

  /**
   * UTF-8, a surrogate pair as its code point; a lone surrogate (which JSON's escapes allow) as the
   * three bytes of its code unit, so that every string has one encoding and no two share it. The
   * JDK's encoder, for its vectorised ASCII loop: a plain loop over the characters took longer than
   * the digest itself.
   */
  private void putUtf8(MessageDigest digest, char[] text, int offset, int length) {
    CharBuffer in = CharBuffer.wrap(text, offset, length);
    out.clear();
    utf8.reset();
    while (true) {
      CoderResult result = utf8.encode(in, out, true);
      if (result.isOverflow()) {
        drain(digest);
      } else if (result.isError()) {
        for (int k = result.length(); k > 0; k--) {
          if (out.remaining() < 3) {
            drain(digest);
          }
          char c = in.get();
          out.put((byte) (0xE0 | (c >> 12)))
              .put((byte) (0x80 | ((c >> 6) & 0x3F)))
              .put((byte) (0x80 | (c & 0x3F)));
        }
      } else {
        drain(digest);
        return;
      }
    }
  }

  private void drain(MessageDigest digest) {
    digest.update(scratch, 0, out.position());
    out.clear();
  }
}
