package io.prefixlog.core.delta;

import io.prefixlog.schemas.delta.DeltaOp;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The binary form of one {@link BaseLog} record in the bases store: a whole body, or the ops that
 * rebuild it from the previous record. Internal to the stream app (its changelog is the only other
 * reader), so compact rather than JSON: a version byte, a kind byte, then the body bytes, or a
 * count and per op a tag and varints (copies: code point offset and length; inserts: UTF-8 length
 * and bytes). What a record rebuilds is checked against the base's SHA-256 by the reader.
 */
public final class BaseRecordCodec {
  private static final byte VERSION = 1;
  private static final byte WHOLE = 0;
  private static final byte OPS = 1;
  private static final byte COPY = 0;
  private static final byte INSERT = 1;

  private BaseRecordCodec() {}

  /** A decoded record: exactly one of {@code body} and {@code ops} is set. */
  public record Decoded(byte[] body, List<DeltaOp> ops) {
    public boolean whole() {
      return body != null;
    }
  }

  public static byte[] whole(byte[] body) {
    byte[] record = new byte[body.length + 2];
    record[0] = VERSION;
    record[1] = WHOLE;
    System.arraycopy(body, 0, record, 2, body.length);
    return record;
  }

  public static byte[] ops(List<DeltaOp> ops) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 + ops.size() * 8);
    out.write(VERSION);
    out.write(OPS);
    Varints.write(out, ops.size());
    for (DeltaOp op : ops) {
      if (op instanceof DeltaOp.Copy copy) {
        out.write(COPY);
        Varints.write(out, copy.from());
        Varints.write(out, copy.len());
      } else if (op instanceof DeltaOp.Insert insert) {
        byte[] text = insert.text().getBytes(StandardCharsets.UTF_8);
        out.write(INSERT);
        Varints.write(out, text.length);
        out.writeBytes(text);
      } else {
        throw new IllegalStateException("unknown op " + op.getClass());
      }
    }
    return out.toByteArray();
  }

  /**
   * @throws IllegalArgumentException when the bytes are not a record this version can read
   */
  public static Decoded decode(byte[] record) {
    if (record.length < 2 || record[0] != VERSION) {
      throw new IllegalArgumentException(
          "not a base record of version "
              + VERSION
              + " ("
              + record.length
              + " bytes, first "
              + (record.length == 0 ? "none" : Byte.toString(record[0]))
              + ")");
    }
    if (record[1] == WHOLE) {
      return new Decoded(Arrays.copyOfRange(record, 2, record.length), null);
    }
    if (record[1] != OPS) {
      throw new IllegalArgumentException("unknown base record kind " + record[1]);
    }
    ByteBuffer in = ByteBuffer.wrap(record, 2, record.length - 2);
    int count = Varints.readInt(in);
    List<DeltaOp> ops = new ArrayList<>(Math.min(count, 1024));
    for (int i = 0; i < count; i++) {
      if (!in.hasRemaining()) {
        throw new IllegalArgumentException("truncated base record: op " + i + " of " + count);
      }
      byte tag = in.get();
      if (tag == COPY) {
        ops.add(new DeltaOp.Copy(Varints.readInt(in), Varints.readInt(in)));
      } else if (tag == INSERT) {
        int length = Varints.readInt(in);
        if (length > in.remaining()) {
          throw new IllegalArgumentException("truncated base record: insert of " + length);
        }
        ops.add(
            new DeltaOp.Insert(new String(record, in.position(), length, StandardCharsets.UTF_8)));
        in.position(in.position() + length);
      } else {
        throw new IllegalArgumentException("unknown op tag " + tag);
      }
    }
    if (in.hasRemaining()) {
      throw new IllegalArgumentException(in.remaining() + " bytes after the last op");
    }
    return new Decoded(null, List.copyOf(ops));
  }
}
