package io.prefixlog.streams.state;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The frame of the stream app's own store values (jobs, block and source state): a version byte,
 * then the fields in {@link DataOutputStream}'s encoding, a field that may be null after a presence
 * flag. One place decides how a value with an unknown version or cut short fails, so every store
 * reports it alike.
 */
public final class StoreValues {
  /** Writes a value's fields after its version byte. */
  @FunctionalInterface
  public interface Fields {
    void write(DataOutputStream out) throws IOException;
  }

  /** Reads a value's fields after its version byte has been checked, or one field of them. */
  @FunctionalInterface
  public interface Reader<T> {
    T read(DataInputStream in) throws IOException;
  }

  /** Writes one field, such as {@link DataOutputStream#writeUTF}. */
  @FunctionalInterface
  public interface FieldWriter<T> {
    void write(DataOutputStream out, T value) throws IOException;
  }

  private StoreValues() {}

  /**
   * {@code version}, then what {@code fields} writes.
   *
   * @param sizeHint the bytes such a value usually takes
   */
  public static byte[] encode(byte version, int sizeHint, Fields fields) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(sizeHint);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(version);
      fields.write(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return bytes.toByteArray();
  }

  /**
   * The value {@code reader} reads from {@code value} after its version byte.
   *
   * @param what the value's name in the errors ({@code erasure job})
   * @throws IllegalStateException when the version is not {@code version} or the value is cut short
   */
  public static <T> T decode(byte[] value, byte version, String what, Reader<T> reader) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
      byte found = in.readByte();
      if (found != version) {
        throw new IllegalStateException("unknown " + what + " version " + found);
      }
      return reader.read(in);
    } catch (IOException e) {
      throw new IllegalStateException("corrupt " + what, e);
    }
  }

  /** {@code value} after a presence flag: {@code writer} writes it unless it is null. */
  public static <T> void writeNullable(DataOutputStream out, T value, FieldWriter<T> writer)
      throws IOException {
    out.writeBoolean(value != null);
    if (value != null) {
      writer.write(out, value);
    }
  }

  /** What {@link #writeNullable} wrote: null, or the value {@code reader} reads. */
  public static <T> T readNullable(DataInputStream in, Reader<T> reader) throws IOException {
    return in.readBoolean() ? reader.read(in) : null;
  }
}
