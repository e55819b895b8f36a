package io.prefixlog.core.kv;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePacker;

/**
 * Builds msgpack payloads the way msgspec writes them, from plain Java values: {@code null} is nil,
 * {@link Long}/{@link Integer} the smallest int format, {@link BigInteger} a uint64, {@link Double}
 * a float64, {@link String} a str, {@code byte[]} a bin, {@link List} an array, {@link Map} a map
 * (in its iteration order), {@link Raw} bytes spliced in as they are.
 */
final class Msgpack {
  /** Bytes written as they are (a hand-made or broken value). */
  record Raw(byte[] bytes) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Raw r && Arrays.equals(bytes, r.bytes);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
      return "Raw" + Arrays.toString(bytes);
    }
  }

  private Msgpack() {}

  static byte[] pack(Object value) {
    try (MessageBufferPacker packer = MessagePack.newDefaultBufferPacker()) {
      write(packer, value);
      packer.flush();
      return packer.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void write(MessagePacker packer, Object value) throws IOException {
    if (value == null) {
      packer.packNil();
    } else if (value instanceof Boolean b) {
      packer.packBoolean(b);
    } else if (value instanceof Integer i) {
      packer.packLong(i);
    } else if (value instanceof Long l) {
      packer.packLong(l);
    } else if (value instanceof BigInteger big) {
      packer.packBigInteger(big);
    } else if (value instanceof Double d) {
      packer.packDouble(d);
    } else if (value instanceof Float f) {
      packer.packFloat(f);
    } else if (value instanceof String s) {
      packer.packString(s);
    } else if (value instanceof byte[] bytes) {
      packer.packBinaryHeader(bytes.length);
      packer.writePayload(bytes);
    } else if (value instanceof Raw raw) {
      packer.writePayload(raw.bytes());
    } else if (value instanceof List<?> list) {
      packer.packArrayHeader(list.size());
      for (Object element : list) {
        write(packer, element);
      }
    } else if (value instanceof Map<?, ?> map) {
      packer.packMapHeader(map.size());
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        write(packer, entry.getKey());
        write(packer, entry.getValue());
      }
    } else {
      throw new IllegalArgumentException("cannot pack a " + value.getClass());
    }
  }

  /** A map in the order of its key/value arguments (nulls allowed, unlike {@link Map#of}). */
  static Map<Object, Object> map(Object... keysAndValues) {
    if (keysAndValues.length % 2 != 0) {
      throw new IllegalArgumentException("odd number of arguments");
    }
    Map<Object, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return map;
  }

  /** A list that may hold nulls. */
  static List<Object> list(Object... values) {
    return Arrays.asList(values);
  }

  /** {@code n} token ids, as vLLM sends them (small ints). */
  static List<Object> tokens(int n, int first) {
    Object[] ids = new Object[n];
    for (int i = 0; i < n; i++) {
      ids[i] = (long) (first + i) % 150_000;
    }
    return Arrays.asList(ids);
  }

  /** A uint64 from its decimal digits. */
  static BigInteger u64(String decimal) {
    return new BigInteger(decimal);
  }
}
