package io.prefixlog.core.chunk;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A validating cursor over UTF-8 JSON (RFC 8259, strict: no comments, no trailing commas, no
 * unescaped control characters, strict UTF-8, at most {@value #MAX_DEPTH} levels of nesting) that
 * reads values straight from the bytes into a {@link ByteSink}: strings unescaped, or values as
 * compact JSON. A malformed input throws {@link Malformed}, a preallocated exception without a
 * stack trace and without content.
 *
 * <p>Why not Jackson: a streaming Jackson pass decodes or skips each string and the renderer then
 * had to scan it again from the bytes; here one scan validates and copies, eight bytes at a time
 * between escapes, which halves the rendering time of a 30 KB chat body (ChunkLookupTiming in the
 * tests).
 *
 * <p>Compact JSON: no whitespace; keys and elements in the order written; numbers and literals as
 * written; strings with the quote and the backslash escaped, control characters as the short
 * escapes (b, f, n, r, t) or as a six-character escape with lower-case hex digits, everything else
 * as UTF-8 (an escaped unpaired surrogate becomes '?').
 */
final class JsonCursor {
  /** Jackson's default nesting limit: deeper input is treated as malformed. */
  static final int MAX_DEPTH = 1000;

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGHS = 0x8080808080808080L;

  /** Room kept free in an output buffer while a string is copied. */
  private static final int SLACK = 16;

  private static final byte[] HEX_DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  /** Thrown for malformed JSON; carries no stack trace and no content. */
  static final class Malformed extends Exception {
    private static final long serialVersionUID = 1L;
    static final Malformed INSTANCE = new Malformed();

    private Malformed() {
      super("malformed JSON", null, false, false);
    }
  }

  /** For each byte after a backslash: what it stands for, or -1 ('u' and invalid escapes). */
  private static final int[] SHORT_ESCAPES = new int[256];

  static {
    Arrays.fill(SHORT_ESCAPES, -1);
    SHORT_ESCAPES['"'] = '"';
    SHORT_ESCAPES['\\'] = '\\';
    SHORT_ESCAPES['/'] = '/';
    SHORT_ESCAPES['b'] = '\b';
    SHORT_ESCAPES['f'] = '\f';
    SHORT_ESCAPES['n'] = '\n';
    SHORT_ESCAPES['r'] = '\r';
    SHORT_ESCAPES['t'] = '\t';
  }

  private final byte[] b;
  private final int n;
  private int pos;
  private int depth;

  JsonCursor(byte[] bytes) {
    this.b = bytes;
    this.n = bytes.length;
    // A UTF-8 byte order mark is accepted, as Jackson and Python's json do.
    if (n >= 3 && (b[0] & 0xFF) == 0xEF && (b[1] & 0xFF) == 0xBB && (b[2] & 0xFF) == 0xBF) {
      pos = 3;
    }
  }

  /** The first significant byte of the next value, without consuming it. */
  byte peek() throws Malformed {
    whitespace();
    if (pos >= n) {
      throw Malformed.INSTANCE;
    }
    return b[pos];
  }

  /** True when only whitespace is left. */
  boolean atEnd() {
    whitespace();
    return pos >= n;
  }

  /** Consumes the opening brace or bracket ({@code open}) of the next value. */
  void enter(byte open) throws Malformed {
    if (peek() != open || ++depth > MAX_DEPTH) {
      throw Malformed.INSTANCE;
    }
    pos++;
  }

  /**
   * Whether the container being read has another member: consumes the separating comma, or the
   * closing bracket (and then returns false).
   *
   * @param first true before the first member
   */
  boolean more(byte close, boolean first) throws Malformed {
    byte c = peek();
    if (c == close) {
      pos++;
      depth--;
      return false;
    }
    if (!first) {
      if (c != ',') {
        throw Malformed.INSTANCE;
      }
      pos++;
    }
    return true;
  }

  /** Reads an object key and its colon, unescaped into {@code key} (which is reset first). */
  void key(ByteSink key) throws Malformed {
    key.reset();
    memberKey(key, false);
  }

  /**
   * Reads an object member's key, into {@code out} as {@link #string(ByteSink, boolean)}, then its
   * colon.
   */
  private void memberKey(ByteSink out, boolean quoted) throws Malformed {
    if (peek() != '"') {
      throw Malformed.INSTANCE;
    }
    string(out, quoted);
    if (peek() != ':') {
      throw Malformed.INSTANCE;
    }
    pos++;
  }

  /** Reads a string value, unescaped into {@code out}. The next value must be a string. */
  void string(ByteSink out) throws Malformed {
    if (peek() != '"') {
      throw Malformed.INSTANCE;
    }
    string(out, false);
  }

  /** Reads the next value, whatever it is, as compact JSON into {@code out}. */
  void compact(ByteSink out) throws Malformed {
    value(out);
  }

  /** Skips the next value, validating it. */
  void skip() throws Malformed {
    value(null);
  }

  /** Reads an integer (no fraction, no exponent) and appends its text to {@code out}. */
  void integer(ByteSink out) throws Malformed {
    int start = pos;
    if (!number() || !isInteger(start)) {
      throw Malformed.INSTANCE;
    }
    out.write(b, start, pos - start);
  }

  /** True when the next value is an integer (no fraction, no exponent); consumes nothing. */
  boolean nextIsInteger() throws Malformed {
    byte c = peek();
    if (c != '-' && (c < '0' || c > '9')) {
      return false;
    }
    int start = pos;
    boolean integral = number() && isInteger(start);
    pos = start;
    return integral;
  }

  /** The position of the next value's first byte, for {@link #rewind}. */
  int mark() throws Malformed {
    peek();
    return pos;
  }

  /** Goes back to a {@link #mark}, at the same nesting depth. */
  void rewind(int mark) {
    pos = mark;
  }

  /** The bytes read. */
  byte[] bytes() {
    return b;
  }

  /** The position after the last byte consumed. */
  int position() {
    return pos;
  }

  /** The containers entered and not yet closed. */
  int depth() {
    return depth;
  }

  /**
   * Continues where another cursor over bytes that are equal up to {@code position} stood: at that
   * position and nesting depth. Nothing the cursor did before a position depends on the bytes after
   * it, so it goes on as if it had read these bytes from the start.
   */
  void resumeAt(int position, int depth) {
    this.pos = position;
    this.depth = depth;
  }

  private boolean isInteger(int start) {
    for (int i = start; i < pos; i++) {
      byte c = b[i];
      if (c == '.' || c == 'e' || c == 'E') {
        return false;
      }
    }
    return true;
  }

  private void value(ByteSink out) throws Malformed {
    byte c = peek();
    switch (c) {
      case '"' -> string(out, true);
      case '{' -> {
        enter((byte) '{');
        append(out, '{');
        for (boolean first = true; more((byte) '}', first); first = false) {
          if (!first) {
            append(out, ',');
          }
          memberKey(out, true);
          append(out, ':');
          value(out);
        }
        append(out, '}');
      }
      case '[' -> {
        enter((byte) '[');
        append(out, '[');
        for (boolean first = true; more((byte) ']', first); first = false) {
          if (!first) {
            append(out, ',');
          }
          value(out);
        }
        append(out, ']');
      }
      case 't' -> literal("true", out);
      case 'f' -> literal("false", out);
      case 'n' -> literal("null", out);
      default -> {
        int start = pos;
        if (!number()) {
          throw Malformed.INSTANCE;
        }
        if (out != null) {
          out.write(b, start, pos - start);
        }
      }
    }
  }

  /** Writes a structural character of the value being copied; {@code out} null: it is skipped. */
  private static void append(ByteSink out, char c) {
    if (out != null) {
      out.write(c);
    }
  }

  private void literal(String word, ByteSink out) throws Malformed {
    int length = word.length();
    if (pos + length > n) {
      throw Malformed.INSTANCE;
    }
    for (int i = 0; i < length; i++) {
      if (b[pos + i] != word.charAt(i)) {
        throw Malformed.INSTANCE;
      }
    }
    if (out != null) {
      out.write(b, pos, length);
    }
    pos += length;
  }

  /** -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? ; false (pos unspecified) if not a number. */
  private boolean number() {
    int i = pos;
    if (i < n && b[i] == '-') {
      i++;
    }
    if (i >= n) {
      return false;
    }
    if (b[i] == '0') {
      i++;
    } else if (b[i] >= '1' && b[i] <= '9') {
      i = digits(i);
    } else {
      return false;
    }
    if (i < n && b[i] == '.') {
      int start = ++i;
      i = digits(i);
      if (i == start) {
        return false;
      }
    }
    if (i < n && (b[i] == 'e' || b[i] == 'E')) {
      i++;
      if (i < n && (b[i] == '+' || b[i] == '-')) {
        i++;
      }
      int start = i;
      i = digits(i);
      if (i == start) {
        return false;
      }
    }
    pos = i;
    return true;
  }

  private int digits(int i) {
    while (i < n && b[i] >= '0' && b[i] <= '9') {
      i++;
    }
    return i;
  }

  /**
   * Reads the string at {@code pos} (its opening quote) into {@code out} (null: validate only),
   * unescaped, or, with {@code quoted}, as a compact JSON string with its quotes.
   *
   * <p>Eight bytes at a time: each word is copied whole and then tested for a byte that ends the
   * plain run ('"', the backslash, a control character, a non-ASCII byte). Whatever is written next
   * (a word, an escape of at most six bytes, a UTF-8 sequence, the closing quote) fits in {@value
   * #SLACK} bytes, so the room is checked once per step.
   */
  private void string(ByteSink out, boolean quoted) throws Malformed {
    int i = pos + 1;
    byte[] dst = null;
    int d = 0;
    if (out != null) {
      dst = out.reserve(SLACK);
      d = out.size();
      if (quoted) {
        dst[d++] = '"';
      }
    }
    while (true) {
      // The plain run, a word at a time while whole words are left.
      if (dst != null) {
        while (i + Long.BYTES <= n) {
          if (d + SLACK > dst.length) {
            out.setSize(d);
            dst = out.reserve(SLACK);
          }
          long word = (long) LONGS.get(b, i);
          LONGS.set(dst, d, word);
          long found = specials(word);
          if (found != 0) {
            int k = Long.numberOfTrailingZeros(found) >>> 3;
            i += k;
            d += k;
            break;
          }
          i += Long.BYTES;
          d += Long.BYTES;
        }
      } else {
        while (i + Long.BYTES <= n) {
          long found = specials((long) LONGS.get(b, i));
          if (found != 0) {
            i += Long.numberOfTrailingZeros(found) >>> 3;
            break;
          }
          i += Long.BYTES;
        }
      }
      // Then byte by byte (only the input's last few bytes can still be plain here).
      int c = -1;
      while (i < n && isPlain(c = b[i] & 0xFF)) {
        if (dst != null) {
          if (d + SLACK > dst.length) {
            out.setSize(d);
            dst = out.reserve(SLACK);
          }
          dst[d++] = (byte) c;
        }
        i++;
      }
      if (i >= n) {
        throw Malformed.INSTANCE;
      }
      if (dst != null && d + SLACK > dst.length) {
        out.setSize(d);
        dst = out.reserve(SLACK);
      }
      if (c == '"') {
        i++;
        break;
      }
      if (c == '\\') {
        if (i + 1 >= n) {
          throw Malformed.INSTANCE;
        }
        byte escaped = b[i + 1];
        int decoded = SHORT_ESCAPES[escaped & 0xFF];
        if (decoded >= 0) {
          // The common case, kept inline: \n, \", \\, \t, … (as a compact string, the escape
          // itself, which is already canonical; an escaped slash is written bare).
          if (dst != null) {
            if (quoted && decoded != '/') {
              dst[d++] = '\\';
              dst[d++] = escaped;
            } else {
              dst[d++] = (byte) decoded;
            }
          }
          i += 2;
          continue;
        }
        if (escaped != 'u') {
          throw Malformed.INSTANCE;
        }
        i += 2;
        int cp = hex4(i);
        i += 4;
        if (Character.isHighSurrogate((char) cp) && i + 1 < n && b[i] == '\\' && b[i + 1] == 'u') {
          int low = hex4(i + 2);
          if (Character.isLowSurrogate((char) low)) {
            cp = Character.toCodePoint((char) cp, (char) low);
            i += 6;
          }
        }
        if (cp < 0x10000 && Character.isSurrogate((char) cp)) {
          // No UTF-8 form: '?', as String.getBytes writes an unpaired surrogate.
          cp = '?';
        }
        if (dst != null) {
          d = quoted ? writeCanonical(cp, dst, d) : writeUtf8(cp, dst, d);
        }
        continue;
      }
      if (c < 0x20) {
        throw Malformed.INSTANCE;
      }
      // A non-ASCII byte: one well-formed UTF-8 sequence, copied as it is.
      int length = utf8Sequence(i);
      if (dst != null) {
        System.arraycopy(b, i, dst, d, length);
        d += length;
      }
      i += length;
    }
    if (dst != null) {
      if (quoted) {
        dst[d++] = '"';
      }
      out.setSize(d);
    }
    pos = i;
  }

  private static boolean isPlain(int c) {
    return c != '"' && c != '\\' && c >= 0x20 && c < 0x80;
  }

  /**
   * The bytes of {@code word} that end a plain run ('"', the backslash, a control character, a
   * non-ASCII byte), flagged in their high bits by the has-zero-byte and has-less-than tests. A
   * borrow can only flag a byte above a real match, so the lowest flag is exact (little-endian: the
   * first byte in the input).
   */
  private static long specials(long word) {
    long quotes = word ^ 0x2222222222222222L;
    long backslashes = word ^ 0x5C5C5C5C5C5C5C5CL;
    return ((quotes - ONES) & ~quotes
            | (backslashes - ONES) & ~backslashes
            | (word - 0x2020202020202020L) & ~word
            | word)
        & HIGHS;
  }

  /**
   * The length of the well-formed UTF-8 sequence at {@code i} (strict: no overlongs, no
   * surrogates).
   */
  private int utf8Sequence(int i) throws Malformed {
    int c = b[i] & 0xFF;
    int length;
    int min2 = 0x80;
    int max2 = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      if (c == 0xE0) {
        min2 = 0xA0;
      } else if (c == 0xED) {
        max2 = 0x9F;
      }
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      if (c == 0xF0) {
        min2 = 0x90;
      } else if (c == 0xF4) {
        max2 = 0x8F;
      }
    } else {
      throw Malformed.INSTANCE;
    }
    if (i + length > n) {
      throw Malformed.INSTANCE;
    }
    int second = b[i + 1] & 0xFF;
    if (second < min2 || second > max2) {
      throw Malformed.INSTANCE;
    }
    for (int k = 2; k < length; k++) {
      if ((b[i + k] & 0xC0) != 0x80) {
        throw Malformed.INSTANCE;
      }
    }
    return length;
  }

  private int hex4(int at) throws Malformed {
    if (at + 4 > n) {
      throw Malformed.INSTANCE;
    }
    int value = 0;
    for (int k = at; k < at + 4; k++) {
      int digit = Character.digit(b[k], 16);
      if (digit < 0) {
        throw Malformed.INSTANCE;
      }
      value = (value << 4) | digit;
    }
    return value;
  }

  private void whitespace() {
    while (pos < n) {
      byte c = b[pos];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
        return;
      }
      pos++;
    }
  }

  /** A code point inside a compact JSON string: escaped if it must be, else as UTF-8. */
  private static int writeCanonical(int cp, byte[] dst, int d) {
    switch (cp) {
      case '"', '\\' -> {
        dst[d++] = '\\';
        dst[d++] = (byte) cp;
        return d;
      }
      case '\b' -> {
        return escape('b', dst, d);
      }
      case '\f' -> {
        return escape('f', dst, d);
      }
      case '\n' -> {
        return escape('n', dst, d);
      }
      case '\r' -> {
        return escape('r', dst, d);
      }
      case '\t' -> {
        return escape('t', dst, d);
      }
      default -> {
        if (cp >= 0x20) {
          return writeUtf8(cp, dst, d);
        }
        dst[d++] = '\\';
        dst[d++] = 'u';
        dst[d++] = '0';
        dst[d++] = '0';
        dst[d++] = HEX_DIGITS[cp >> 4];
        dst[d++] = HEX_DIGITS[cp & 0xF];
        return d;
      }
    }
  }

  private static int escape(char c, byte[] dst, int d) {
    dst[d++] = '\\';
    dst[d++] = (byte) c;
    return d;
  }

  static int writeUtf8(int cp, byte[] dst, int d) {
    if (cp < 0x80) {
      dst[d++] = (byte) cp;
    } else if (cp < 0x800) {
      dst[d++] = (byte) (0xC0 | (cp >> 6));
      dst[d++] = (byte) (0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      dst[d++] = (byte) (0xE0 | (cp >> 12));
      dst[d++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
      dst[d++] = (byte) (0x80 | (cp & 0x3F));
    } else {
      dst[d++] = (byte) (0xF0 | (cp >> 18));
      dst[d++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
      dst[d++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
      dst[d++] = (byte) (0x80 | (cp & 0x3F));
    }
    return d;
  }
}
