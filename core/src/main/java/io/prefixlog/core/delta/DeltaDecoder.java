package io.prefixlog.core.delta;

import io.prefixlog.core.text.CodePointIndex;
import io.prefixlog.schemas.delta.DeltaOp;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/** Applies copy/insert ops to a UTF-8 base: the inverse of {@link DeltaEncoder}. */
public final class DeltaDecoder {
  private DeltaDecoder() {}

  /**
   * Rebuilds the target bytes.
   *
   * @throws DeltaException when an op reaches outside the base
   */
  public static byte[] apply(byte[] base, List<DeltaOp> ops) throws DeltaException {
    return apply(base, ops, -1);
  }

  /**
   * Rebuilds the target bytes into an array of {@code expectedLength} (the record's {@code
   * body_len}), grown if the ops make more: one copy of each byte, none of the whole.
   *
   * @param expectedLength the target's length when known, else -1
   * @throws DeltaException when an op reaches outside the base
   */
  public static byte[] apply(byte[] base, List<DeltaOp> ops, long expectedLength)
      throws DeltaException {
    return apply(base, null, ops, expectedLength);
  }

  /**
   * {@link #apply(byte[], List, long)} with the base's code-point index at hand.
   *
   * @param baseIndex the base's index, or null to build it if a copy needs it
   */
  public static byte[] apply(
      byte[] base, CodePointIndex baseIndex, List<DeltaOp> ops, long expectedLength)
      throws DeltaException {
    Output out =
        new Output(
            expectedLength >= 0 && expectedLength <= Integer.MAX_VALUE - 8
                ? (int) expectedLength
                : base.length + 1024);
    CodePointIndex index = baseIndex;
    for (DeltaOp op : ops) {
      // Java 17 has no pattern switch; DeltaOp is sealed to exactly these two.
      if (op instanceof DeltaOp.Copy copy) {
        if (index == null) {
          index = CodePointIndex.of(base);
        }
        int start = index.byteOffsetOf(copy.from());
        int end = start < 0 ? -1 : index.byteOffsetOf((long) copy.from() + copy.len());
        if (end < 0) {
          throw new DeltaException(
              "copy of code points ["
                  + copy.from()
                  + ", "
                  + ((long) copy.from() + copy.len())
                  + ") reaches past the end of the base ("
                  + index.codePoints()
                  + " code points)");
        }
        out.write(base, start, end - start);
      } else if (op instanceof DeltaOp.Insert insert) {
        out.write(insert.text());
      } else {
        throw new IllegalStateException("unknown op " + op.getClass());
      }
    }
    return out.toByteArray();
  }

  /** The rebuilt bytes, in an array sized for them up front. */
  private static final class Output {
    private byte[] buf;
    private int size;

    Output(int capacity) {
      this.buf = new byte[capacity];
    }

    void write(byte[] from, int offset, int length) {
      ensure(length);
      System.arraycopy(from, offset, buf, size, length);
      size += length;
    }

    void write(String text) {
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      write(bytes, 0, bytes.length);
    }

    byte[] toByteArray() {
      return size == buf.length ? buf : Arrays.copyOf(buf, size);
    }

    private void ensure(int more) {
      if (size + more > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
      }
    }
  }
}
