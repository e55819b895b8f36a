package io.prefixlog.core.session;

import io.prefixlog.core.text.JsonWords;
import java.nio.charset.StandardCharsets;

/**
 * {@link BodyFields#read}'s fast path: reads the top-level fields of a body that is one complete,
 * plain JSON object in strict UTF-8, or gives up (null) on anything else, and Jackson's reader
 * decides as before.
 *
 * <p>Why: the capture proxy reads every request body's fields on its publisher thread, and
 * Jackson's parser walks a 20 KB chat body byte by byte to skip the messages (its {@code nextToken}
 * was the publisher's third largest self frame). Here strings, nearly all of a chat body, are
 * skipped eight bytes at a time.
 *
 * <p>Same answer as Jackson by construction: this scan returns only for input it checks to be valid
 * JSON under rules at least as strict as Jackson's defaults (strict UTF-8, no control characters in
 * strings, only JSON's escapes and number forms, no trailing commas, nesting under 64, short names
 * and numbers), and for that input it mirrors {@link BodyFields#read}'s loop, its quirks included
 * (a later field wins; {@code stream} is true only when its last value is {@code true}). Everything
 * it does not mirror gives null: escapes in a field name or in a value it keeps, an object or array
 * as the value of a field it reads (Jackson's loop would walk into it), an incomplete body,
 * anything before the object. BodyFieldsTest compares the two on random and mutated bodies.
 */
final class TopLevelScan {

  /** Deeper nesting, longer names or numbers: Jackson decides (its limits are far larger). */
  private static final int MAX_DEPTH = 63;

  private static final int MAX_NAME = 1024;
  private static final int MAX_NUMBER = 100;

  /** A longer model, session id or user: Jackson decides (its string limit is 20 M chars). */
  private static final int MAX_VALUE = 1 << 20;

  /** Thrown to give up; no stack trace (it is control flow, on the slow path). */
  private static final class GiveUp extends RuntimeException {
    private static final GiveUp INSTANCE = new GiveUp();

    private GiveUp() {
      super(null, null, false, false);
    }
  }

  private static final int OTHER = 0;
  private static final int MODEL = 1;
  private static final int SESSION_ID = 2;
  private static final int USER = 3;
  private static final int STREAM = 4;

  private final byte[] b;
  private final int end;
  private int i;

  /** Where the last string scanned started (after its quote), and whether it had an escape. */
  private int stringStart;

  private boolean stringEscaped;

  private TopLevelScan(byte[] b, int offset, int length) {
    this.b = b;
    this.i = offset;
    this.end = offset + length;
  }

  /** The fields, or null when Jackson must decide. */
  static BodyFields read(byte[] body, int offset, int length) {
    if (length == 0 || body[offset] != '{') {
      return null;
    }
    try {
      return new TopLevelScan(body, offset, length).object();
    } catch (GiveUp | ArrayIndexOutOfBoundsException e) {
      // An index past the array would be a bug here: Jackson still answers, and the capture of
      // the exchange is not lost to it.
      return null;
    }
  }

  private BodyFields object() {
    i++;
    String model = null;
    String sessionId = null;
    String user = null;
    boolean stream = false;
    skipWhitespace();
    if (at() == '}') {
      return new BodyFields(null, null, null, false);
    }
    while (true) {
      int field = fieldName();
      skipWhitespace();
      expect(':');
      skipWhitespace();
      int c = at();
      if (c == '"') {
        string();
        if (field == MODEL || field == SESSION_ID || field == USER) {
          if (stringEscaped || i - stringStart > MAX_VALUE) {
            throw GiveUp.INSTANCE;
          }
          String text = new String(b, stringStart, i - 1 - stringStart, StandardCharsets.UTF_8);
          switch (field) {
            case MODEL -> model = text;
            case SESSION_ID -> sessionId = text;
            default -> user = text;
          }
        } else if (field == STREAM) {
          stream = false;
        }
      } else if (c == '{' || c == '[') {
        if (field != OTHER) {
          throw GiveUp.INSTANCE;
        }
        value(1);
      } else {
        boolean isTrue = c == 't';
        value(1);
        if (field == STREAM) {
          stream = isTrue;
        }
      }
      skipWhitespace();
      c = at();
      i++;
      if (c == '}') {
        return new BodyFields(model, sessionId, user, stream);
      }
      if (c != ',') {
        throw GiveUp.INSTANCE;
      }
      skipWhitespace();
    }
  }

  /** A field name (the quote at {@link #i}), and which of the read fields it is. */
  private int fieldName() {
    expect('"');
    int start = i;
    while (true) {
      int c = at();
      if (c == '"') {
        break;
      }
      // Escapes, non-ASCII and controls in a name: Jackson decides.
      if (c == '\\' || c < 0x20 || c >= 0x80 || i - start > MAX_NAME) {
        throw GiveUp.INSTANCE;
      }
      i++;
    }
    int length = i - start;
    i++;
    if (length == 4 && is(start, "user")) {
      return USER;
    }
    if (length == 5 && is(start, "model")) {
      return MODEL;
    }
    if (length == 6 && is(start, "stream")) {
      return STREAM;
    }
    if (length == 10 && is(start, "session_id")) {
      return SESSION_ID;
    }
    return OTHER;
  }

  private boolean is(int start, String name) {
    for (int k = 0; k < name.length(); k++) {
      if (b[start + k] != name.charAt(k)) {
        return false;
      }
    }
    return true;
  }

  /** Any JSON value at {@link #i}, at nesting {@code depth}; {@link #i} ends after it. */
  private void value(int depth) {
    int c = at();
    switch (c) {
      case '"' -> string();
      case '{' -> {
        if (depth > MAX_DEPTH) {
          throw GiveUp.INSTANCE;
        }
        i++;
        skipWhitespace();
        if (at() == '}') {
          i++;
          return;
        }
        while (true) {
          fieldName();
          skipWhitespace();
          expect(':');
          skipWhitespace();
          value(depth + 1);
          skipWhitespace();
          int next = at();
          i++;
          if (next == '}') {
            return;
          }
          if (next != ',') {
            throw GiveUp.INSTANCE;
          }
          skipWhitespace();
        }
      }
      case '[' -> {
        if (depth > MAX_DEPTH) {
          throw GiveUp.INSTANCE;
        }
        i++;
        skipWhitespace();
        if (at() == ']') {
          i++;
          return;
        }
        while (true) {
          value(depth + 1);
          skipWhitespace();
          int next = at();
          i++;
          if (next == ']') {
            return;
          }
          if (next != ',') {
            throw GiveUp.INSTANCE;
          }
          skipWhitespace();
        }
      }
      case 't' -> literal("true");
      case 'f' -> literal("false");
      case 'n' -> literal("null");
      default -> number();
    }
  }

  private void literal(String word) {
    if (end - i < word.length() || !is(i, word)) {
      throw GiveUp.INSTANCE;
    }
    i += word.length();
    delimiter();
  }

  /** {@code -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?}, then a delimiter. */
  private void number() {
    int start = i;
    if (at() == '-') {
      i++;
    }
    int c = at();
    if (c == '0') {
      i++;
    } else if (c >= '1' && c <= '9') {
      digits();
    } else {
      throw GiveUp.INSTANCE;
    }
    if (at() == '.') {
      i++;
      requireDigit();
      digits();
    }
    c = at();
    if (c == 'e' || c == 'E') {
      i++;
      c = at();
      if (c == '+' || c == '-') {
        i++;
      }
      requireDigit();
      digits();
    }
    if (i - start > MAX_NUMBER) {
      throw GiveUp.INSTANCE;
    }
    delimiter();
  }

  private void requireDigit() {
    int c = at();
    if (c < '0' || c > '9') {
      throw GiveUp.INSTANCE;
    }
  }

  private void digits() {
    while (i < end && b[i] >= '0' && b[i] <= '9') {
      i++;
    }
  }

  /** What may follow a number or a literal: whitespace, a comma or a closing bracket. */
  private void delimiter() {
    int c = at();
    if (c != ',' && c != '}' && c != ']' && c != ' ' && c != '\n' && c != '\r' && c != '\t') {
      throw GiveUp.INSTANCE;
    }
  }

  /**
   * A string (the quote at {@link #i}); {@link #i} ends after its closing quote. Strict UTF-8, no
   * control characters, only JSON's escapes. Sets {@link #stringStart} and {@link #stringEscaped}.
   */
  private void string() {
    i++;
    stringStart = i;
    stringEscaped = false;
    while (true) {
      if (i + 8 <= end && !JsonWords.needsLook(JsonWords.word(b, i))) {
        i += 8;
        continue;
      }
      int c = at();
      if (c == '"') {
        i++;
        return;
      }
      if (c == '\\') {
        stringEscaped = true;
        i++;
        escape();
      } else if (c < 0x20) {
        throw GiveUp.INSTANCE;
      } else if (c >= 0x80) {
        i += sequenceLength(c);
      } else {
        i++;
      }
    }
  }

  private void escape() {
    int c = at();
    i++;
    switch (c) {
      case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> {}
      case 'u' -> {
        for (int k = 0; k < 4; k++) {
          int h = at();
          i++;
          if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F'))) {
            throw GiveUp.INSTANCE;
          }
        }
      }
      default -> throw GiveUp.INSTANCE;
    }
  }

  /** The strict UTF-8 sequence at {@link #i} with lead byte {@code c}; gives up on any other. */
  private int sequenceLength(int c) {
    if (c >= 0xC2 && c <= 0xDF) {
      if (continuation(i + 1)) {
        return 2;
      }
    } else if (c >= 0xE0 && c <= 0xEF) {
      int c1 = byteAt(i + 1);
      int lo = c == 0xE0 ? 0xA0 : 0x80;
      int hi = c == 0xED ? 0x9F : 0xBF;
      if (c1 >= lo && c1 <= hi && continuation(i + 2)) {
        return 3;
      }
    } else if (c >= 0xF0 && c <= 0xF4) {
      int c1 = byteAt(i + 1);
      int lo = c == 0xF0 ? 0x90 : 0x80;
      int hi = c == 0xF4 ? 0x8F : 0xBF;
      if (c1 >= lo && c1 <= hi && continuation(i + 2) && continuation(i + 3)) {
        return 4;
      }
    }
    throw GiveUp.INSTANCE;
  }

  private boolean continuation(int k) {
    return (byteAt(k) & 0xC0) == 0x80;
  }

  private void skipWhitespace() {
    while (i < end) {
      byte c = b[i];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
        return;
      }
      i++;
    }
  }

  private void expect(int c) {
    if (at() != c) {
      throw GiveUp.INSTANCE;
    }
    i++;
  }

  /** The byte at {@link #i}; the end of the body gives up (an incomplete body: Jackson decides). */
  private int at() {
    return byteAt(i);
  }

  private int byteAt(int k) {
    if (k >= end) {
      throw GiveUp.INSTANCE;
    }
    return b[k] & 0xFF;
  }
}
