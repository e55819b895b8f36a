package io.prefixlog.tools.replay;

import java.nio.charset.StandardCharsets;

/**
 * Which replayed requests ask for an SSE stream: a fraction, spread evenly over the run (request i
 * streams when floor((i+1)·f) > floor(i·f)), so f = 0.5 alternates and any prefix of the run has
 * its share. A streamed request is the corpus body with {@code "stream":true} and {@code
 * "stream_options":{"include_usage":true}} appended as its last members, as OpenAI clients send
 * them, so the engine's final chunk carries usage.
 */
public final class StreamChoice {
  private static final byte[] STREAM_MEMBERS =
      ",\"stream\":true,\"stream_options\":{\"include_usage\":true}}"
          .getBytes(StandardCharsets.US_ASCII);

  /**
   * Bytes a streamed request adds to a corpus body that ends with its closing brace: the members
   * replace the brace and bring their own.
   */
  public static final int ADDED_BYTES = STREAM_MEMBERS.length - 1;

  private final double fraction;

  StreamChoice(double fraction) {
    if (!(fraction >= 0 && fraction <= 1)) {
      throw new IllegalArgumentException("fraction must be in [0, 1], got " + fraction);
    }
    this.fraction = fraction;
  }

  /** Requests in a run of {@code requests} that stream, at {@code fraction}. */
  public static long streamedOf(long requests, double fraction) {
    return (long) Math.floor(requests * fraction);
  }

  boolean streams(long index) {
    return Math.floor((index + 1) * fraction) > Math.floor(index * fraction);
  }

  /** The body with the stream members added before its closing brace. */
  static byte[] streaming(byte[] body) {
    int end = body.length - 1;
    while (end >= 0 && Character.isWhitespace(body[end])) {
      end--;
    }
    if (end < 1 || body[end] != '}') {
      throw new IllegalArgumentException("the body is not a JSON object");
    }
    byte[] out = new byte[end + STREAM_MEMBERS.length];
    System.arraycopy(body, 0, out, 0, end);
    System.arraycopy(STREAM_MEMBERS, 0, out, end, STREAM_MEMBERS.length);
    return out;
  }
}
