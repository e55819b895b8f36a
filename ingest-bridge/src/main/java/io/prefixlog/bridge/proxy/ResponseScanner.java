package io.prefixlog.bridge.proxy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.async.ByteArrayFeeder;
import io.prefixlog.schemas.request.Usage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Reads the response id and the token usage from a response body as it streams past, without
 * keeping the body: a JSON response through Jackson's non-blocking parser (only the path to the
 * fields is kept), a server-sent-event stream one {@code data:} line at a time (only the current
 * line, bounded; only lines that can carry an id or a usage object are parsed). In a stream the
 * usage of the last chunk that has one wins (OpenAI and vLLM send it in the final chunk, with
 * {@code stream_options.include_usage}).
 *
 * <p>Not thread-safe: one per exchange, fed on its event loop.
 */
abstract class ResponseScanner {
  private static final JsonFactory FACTORY = new JsonFactory();

  /** Longest SSE line kept for parsing; a longer one is passed over (counted as unreadable). */
  static final int MAX_LINE_BYTES = 1 << 20;

  String id;
  Long promptTokens;
  Long completionTokens;
  Long cachedTokens;
  boolean sawUsage;
  boolean unreadable;

  /** A scanner for this response's content type and encoding, or one that reads nothing. */
  static ResponseScanner forResponse(String contentType, String contentEncoding) {
    if (contentEncoding != null && !contentEncoding.equalsIgnoreCase("identity")) {
      return new None();
    }
    if (contentType == null) {
      return new None();
    }
    String type = contentType.toLowerCase(Locale.ROOT);
    if (type.startsWith("text/event-stream")) {
      return new Sse();
    }
    if (type.startsWith("application/json") || type.contains("+json")) {
      return new Json();
    }
    return new None();
  }

  abstract void feed(byte[] bytes, int offset, int length);

  abstract void end();

  /** The usage seen, or null when the response carried none. */
  Usage usage() {
    return sawUsage ? new Usage(promptTokens, completionTokens, cachedTokens) : null;
  }

  String id() {
    return id;
  }

  boolean unreadable() {
    return unreadable;
  }

  /**
   * Walks JSON tokens, keeping the top-level {@code id} and {@code usage} fields. Depth 1 is the
   * top-level object.
   */
  static final class Walker {
    private final ResponseScanner out;
    private int depth;
    private String field1;
    private String field2;
    private String field3;
    private boolean usageInThisDocument;
    private Long prompt;
    private Long completion;
    private Long cached;

    Walker(ResponseScanner out) {
      this.out = out;
    }

    /** Returns false when the parser has no more tokens available. */
    void token(JsonToken token, JsonParser parser) throws IOException {
      switch (token) {
        case START_OBJECT, START_ARRAY -> depth++;
        case END_OBJECT, END_ARRAY -> {
          depth--;
          if (depth == 1 && "usage".equals(field1) && usageInThisDocument) {
            out.sawUsage = true;
            out.promptTokens = prompt;
            out.completionTokens = completion;
            out.cachedTokens = cached;
            usageInThisDocument = false;
          }
        }
        case FIELD_NAME -> {
          String name = parser.currentName();
          if (depth == 1) {
            field1 = name;
            if (name.equals("usage")) {
              prompt = null;
              completion = null;
              cached = null;
            }
          } else if (depth == 2) {
            field2 = name;
          } else if (depth == 3) {
            field3 = name;
          }
        }
        case VALUE_STRING -> {
          if (depth == 1 && "id".equals(field1) && out.id == null) {
            out.id = parser.getText();
          }
        }
        case VALUE_NUMBER_INT -> {
          if ("usage".equals(field1)) {
            if (depth == 2) {
              usageInThisDocument = true;
              if ("prompt_tokens".equals(field2)) {
                prompt = parser.getLongValue();
              } else if ("completion_tokens".equals(field2)) {
                completion = parser.getLongValue();
              }
            } else if (depth == 3
                && "prompt_tokens_details".equals(field2)
                && "cached_tokens".equals(field3)) {
              usageInThisDocument = true;
              cached = parser.getLongValue();
            }
          }
        }
        default -> {
          // Other values (null usage in stream chunks, floats, booleans) carry nothing we keep.
        }
      }
    }
  }

  /** A JSON body, parsed incrementally as its chunks pass. */
  static final class Json extends ResponseScanner {
    private final JsonParser parser;
    private final Walker walker = new Walker(this);
    private boolean failed;

    Json() {
      try {
        parser = FACTORY.createNonBlockingByteArrayParser();
      } catch (IOException e) {
        throw new IllegalStateException("Jackson's non-blocking parser is always available", e);
      }
    }

    @Override
    void feed(byte[] bytes, int offset, int length) {
      if (failed) {
        return;
      }
      try {
        ((ByteArrayFeeder) parser.getNonBlockingInputFeeder())
            .feedInput(bytes, offset, offset + length);
        drain();
      } catch (IOException e) {
        failed = true;
        unreadable = true;
      }
    }

    private void drain() throws IOException {
      JsonToken token;
      while ((token = parser.nextToken()) != null && token != JsonToken.NOT_AVAILABLE) {
        walker.token(token, parser);
      }
    }

    @Override
    void end() {
      if (failed) {
        return;
      }
      try {
        ((ByteArrayFeeder) parser.getNonBlockingInputFeeder()).endOfInput();
        drain();
      } catch (IOException e) {
        unreadable = true;
      }
    }
  }

  /** A server-sent-event stream: one {@code data:} line at a time. */
  static final class Sse extends ResponseScanner {
    private static final byte[] DATA = "data:".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] USAGE = "\"usage\"".getBytes(StandardCharsets.US_ASCII);

    private byte[] line = new byte[256];
    private int length;
    private boolean overflow;
    private boolean lastWasCr;

    @Override
    void feed(byte[] bytes, int offset, int count) {
      int end = offset + count;
      for (int i = offset; i < end; i++) {
        byte b = bytes[i];
        if (b == '\n' && lastWasCr) {
          lastWasCr = false;
          continue;
        }
        lastWasCr = b == '\r';
        if (b == '\n' || b == '\r') {
          endLine();
        } else if (!overflow) {
          if (length == MAX_LINE_BYTES) {
            overflow = true;
            unreadable = true;
          } else {
            if (length == line.length) {
              line = java.util.Arrays.copyOf(line, Math.min(MAX_LINE_BYTES, line.length * 2));
            }
            line[length++] = b;
          }
        }
      }
    }

    @Override
    void end() {
      endLine();
    }

    private void endLine() {
      if (!overflow && length > DATA.length && startsWith(line, DATA)) {
        int start = DATA.length;
        if (line[start] == ' ') {
          start++;
        }
        if ((id == null || indexOf(line, start, length, USAGE) >= 0) && line[start] == '{') {
          parse(start);
        }
      }
      length = 0;
      overflow = false;
      if (line.length > 64 << 10) {
        line = new byte[256];
      }
    }

    private void parse(int start) {
      Walker walker = new Walker(this);
      try (JsonParser parser = FACTORY.createParser(line, start, length - start)) {
        JsonToken token;
        while ((token = parser.nextToken()) != null) {
          walker.token(token, parser);
        }
      } catch (IOException e) {
        unreadable = true;
      }
    }

    private static boolean startsWith(byte[] bytes, byte[] prefix) {
      for (int i = 0; i < prefix.length; i++) {
        if (bytes[i] != prefix[i]) {
          return false;
        }
      }
      return true;
    }

    private static int indexOf(byte[] bytes, int from, int to, byte[] needle) {
      outer:
      for (int i = from; i <= to - needle.length; i++) {
        for (int j = 0; j < needle.length; j++) {
          if (bytes[i + j] != needle[j]) {
            continue outer;
          }
        }
        return i;
      }
      return -1;
    }
  }

  /** A body we do not read (not JSON, not SSE, or compressed). */
  static final class None extends ResponseScanner {
    @Override
    void feed(byte[] bytes, int offset, int length) {}

    @Override
    void end() {}
  }
}
