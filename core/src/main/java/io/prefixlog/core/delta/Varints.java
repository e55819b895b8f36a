package io.prefixlog.core.delta;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

/**
 * Unsigned LEB128 integers, as protobuf and Kafka's record format write them: the stored state and
 * base records are rewritten on every request, and most of their numbers are small.
 */
final class Varints {
  private Varints() {}

  static void write(ByteArrayOutputStream out, long value) {
    if (value < 0) {
      throw new IllegalArgumentException("varints here are unsigned, got " + value);
    }
    while ((value & ~0x7FL) != 0) {
      out.write((int) ((value & 0x7F) | 0x80));
      value >>>= 7;
    }
    out.write((int) value);
  }

  /**
   * @throws IllegalArgumentException on a truncated or overlong value
   */
  static long read(ByteBuffer in) {
    long value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (!in.hasRemaining()) {
        throw new IllegalArgumentException("truncated varint");
      }
      int b = in.get();
      value |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
    throw new IllegalArgumentException("varint longer than 10 bytes");
  }

  static int readInt(ByteBuffer in) {
    long value = read(in);
    if (value > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("value " + value + " does not fit an int");
    }
    return (int) value;
  }
}
