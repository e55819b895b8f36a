package io.prefixlog.core.delta;

import io.prefixlog.core.text.Utf8;
import io.prefixlog.schemas.delta.DeltaOp;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
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
    ByteArrayOutputStream out = new ByteArrayOutputStream(base.length + 1024);
    // Copies mostly move forward through the base: resume counting from the last position.
    int cursorByte = 0;
    long cursorCodePoint = 0;
    for (DeltaOp op : ops) {
      // Java 17 has no pattern switch; DeltaOp is sealed to exactly these two.
      if (op instanceof DeltaOp.Copy copy) {
        if (copy.from() < cursorCodePoint) {
          cursorByte = 0;
          cursorCodePoint = 0;
        }
        int start = Utf8.advance(base, cursorByte, (int) (copy.from() - cursorCodePoint));
        int end = start < 0 ? -1 : Utf8.advance(base, start, copy.len());
        if (end < 0) {
          throw new DeltaException(
              "copy of code points ["
                  + copy.from()
                  + ", "
                  + ((long) copy.from() + copy.len())
                  + ") reaches past the end of the base ("
                  + Utf8.countCodePoints(base, 0, base.length)
                  + " code points)");
        }
        out.write(base, start, end - start);
        cursorByte = end;
        cursorCodePoint = (long) copy.from() + copy.len();
      } else if (op instanceof DeltaOp.Insert insert) {
        out.writeBytes(insert.text().getBytes(StandardCharsets.UTF_8));
      } else {
        throw new IllegalStateException("unknown op " + op.getClass());
      }
    }
    return out.toByteArray();
  }
}
