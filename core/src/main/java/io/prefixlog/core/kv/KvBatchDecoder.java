package io.prefixlog.core.kv;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prefixlog.schemas.kv.KvEvent;
import io.prefixlog.schemas.kv.KvEventBatch;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.msgpack.core.ExtensionTypeHeader;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePackException;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * Decodes one vLLM {@code KVEventBatch} msgpack payload into the {@code kv.events} record,
 * accepting every encoding vLLM has shipped (reference: vLLM's {@code
 * vllm/distributed/kv_events.py}):
 *
 * <ul>
 *   <li>the outer batch as a positional array {@code [ts, events]} (vLLM before
 *       https://github.com/vllm-project/vllm/pull/18925) or {@code [ts, events,
 *       data_parallel_rank]}, or as a map {@code {ts, events, data_parallel_rank}} (one
 *       intermediate version); elements after the third and unknown map keys are ignored;
 *   <li>each event as a tagged array (the type name at index 0, then the fields in declaration
 *       order; older, shorter arrays leave the later fields absent, longer ones are read up to the
 *       fields known here) or as a map with a {@code type} key (vLLM since
 *       https://github.com/vllm-project/vllm/pull/42892), its keys in any order, unknown keys
 *       ignored, absent or nil fields left absent;
 *   <li>block hashes as unsigned 64-bit integers, signed integers (older {@code builtin} hashing;
 *       read as their two's complement bits) or {@code bin}: rendered as 16 lower-case hex digits
 *       for an integer and as the hex of the bytes for a {@code bin};
 *   <li>token ids are counted ({@code token_count}), never kept; {@code extra_keys} are kept as
 *       JSON (tuples become arrays, {@code bin} becomes a hex string, {@code ext} values the hex of
 *       their data);
 *   <li>an event type other than {@code BlockStored}, {@code BlockRemoved} and {@code
 *       AllBlocksCleared} is passed through under its name: a tagged array as the type alone (its
 *       positions mean nothing here), a map with the fields known here that it carries with the
 *       expected types (others are dropped, not failed: a new event may use a name differently).
 * </ul>
 *
 * <p>The three known types are strict: a field vLLM defines with the wrong type or out of the range
 * the schema allows, or a store or removal without hashes, fails the whole batch with {@link
 * DecodeFailure#BAD_EVENT}, so that the raw bytes go to a dead letter instead of a record that
 * misstates the engine's cache. Text fields the schema requires non-empty ({@code medium}, {@code
 * kv_cache_spec_kind}, {@code locality}, {@code session_id}) read an empty string as absent.
 *
 * <p>The decoder never throws for any payload: every byte array gives a {@link DecodedBatch} or a
 * {@link DecodeFailure}. Lengths are checked against the bytes left before anything is allocated,
 * and JSON nesting in {@code extra_keys} is bounded. What a batch keeps is bounded by {@link
 * KvDecodeLimits}, checked on each array's header before the array is allocated: a one-byte hash
 * becomes some 60 bytes of heap, so a payload of one-byte hashes within the bytes-left check alone
 * could still cost 60 times its size ({@link DecodeFailure#TOO_MANY_HASHES}, {@link
 * DecodeFailure#BATCH_TOO_LARGE}). Stateless and thread-safe.
 */
public final class KvBatchDecoder {
  /** The deepest nesting kept in {@code extra_keys} (the list is level 1, a block's tuple 2). */
  static final int MAX_EXTRA_KEYS_DEPTH = 16;

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final Object INVALID = new Object();
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  /** BlockStored's legacy array positions 1.. (vLLM declaration order). */
  private static final Field[] BLOCK_STORED_POSITIONS = {
    Field.BLOCK_HASHES,
    Field.PARENT_BLOCK_HASH,
    Field.TOKEN_IDS,
    Field.BLOCK_SIZE,
    Field.LORA_ID,
    Field.MEDIUM,
    Field.LORA_NAME,
    Field.EXTRA_KEYS,
    Field.GROUP_IDX,
    Field.KV_CACHE_SPEC_KIND,
    Field.KV_CACHE_SPEC_SLIDING_WINDOW,
    Field.LOCALITY
  };

  /** BlockRemoved's legacy array positions 1... */
  private static final Field[] BLOCK_REMOVED_POSITIONS = {
    Field.BLOCK_HASHES, Field.MEDIUM, Field.GROUP_IDX, Field.LOCALITY
  };

  private static final Field[] NO_POSITIONS = {};

  private static final Map<String, Field> FIELDS_BY_NAME = fieldsByName();

  private KvBatchDecoder() {}

  /** Decodes one payload within {@link KvDecodeLimits#DEFAULTS}. */
  public static DecodeResult decode(byte[] payload, KvSource source, long seq, long receivedMs) {
    return decode(payload, source, seq, receivedMs, KvDecodeLimits.DEFAULTS);
  }

  /**
   * Decodes one payload.
   *
   * @param payload the msgpack bytes of frame 2 (or of a replayed message)
   * @param source where the payload came from; gives {@code source}, {@code endpoint} and {@code
   *     topic}
   * @param seq the engine's sequence number of the batch (&gt;= 0)
   * @param receivedMs when the bridge received it, epoch ms: the record's {@code ts}
   * @param limits how much the batch may keep
   * @return the record, or why there is none; never {@code null}, never an exception for any
   *     payload
   */
  public static DecodeResult decode(
      byte[] payload, KvSource source, long seq, long receivedMs, KvDecodeLimits limits) {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(limits, "limits");
    if (seq < 0) {
      throw new IllegalArgumentException("seq must be >= 0: " + seq);
    }
    if (payload == null || payload.length == 0) {
      return new DecodeFailure(DecodeFailure.MALFORMED_MSGPACK, "empty payload");
    }
    // Over a byte array the unpacker holds nothing to release: close() would be a no-op.
    Reader reader = new Reader(payload, 0, payload.length, new Budget(limits));
    try {
      Outer outer = readBatch(reader);
      if (reader.unpacker.hasNext()) {
        throw Failure.malformed("trailing bytes after the batch at byte " + reader.pos());
      }
      return new DecodedBatch(
          new KvEventBatch(
              KvEventBatch.SCHEMA_VERSION,
              source.id(),
              source.endpoint(),
              outer.rank,
              source.topic(),
              seq,
              receivedMs,
              outer.ts,
              null,
              null,
              null,
              outer.events));
    } catch (Failure f) {
      return new DecodeFailure(f.reason, f.getMessage());
    } catch (IOException | MessagePackException e) {
      return new DecodeFailure(
          DecodeFailure.MALFORMED_MSGPACK,
          "at byte " + reader.pos() + ": " + e.getClass().getSimpleName());
    } catch (RuntimeException e) {
      // A bug in this class: counted under its own reason rather than stopping the subscriber.
      return new DecodeFailure(
          DecodeFailure.DECODER_ERROR,
          "at byte " + reader.pos() + ": " + e.getClass().getName() + ": " + e.getMessage());
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The outer batch

  private record Outer(Double ts, List<KvEvent> events, Integer rank) {}

  private static Outer readBatch(Reader r) throws IOException, Failure {
    ValueType type = r.next();
    if (type == ValueType.ARRAY) {
      int n = r.arrayHeader("the batch");
      if (n < 2) {
        throw Failure.notABatch(
            "an array of "
                + n
                + " element(s), expected [ts, events] or [ts, events, data_parallel_rank]");
      }
      Double ts = readTs(r);
      List<KvEvent> events = readEvents(r);
      Integer rank = n >= 3 ? readRank(r) : null;
      r.skip(n - 3);
      return new Outer(ts, events, rank);
    }
    if (type == ValueType.MAP) {
      int n = r.mapHeader("the batch");
      Double ts = null;
      List<KvEvent> events = null;
      Integer rank = null;
      for (int i = 0; i < n; i++) {
        if (r.next() != ValueType.STRING) {
          r.skip(2);
          continue;
        }
        switch (r.string()) {
          case "ts" -> ts = readTs(r);
          case "events" -> events = readEvents(r);
          case "data_parallel_rank" -> rank = readRank(r);
          default -> r.skip(1);
        }
      }
      if (events == null) {
        throw Failure.notABatch("a map without events");
      }
      return new Outer(ts, events, rank);
    }
    throw Failure.notABatch("expected an array or a map, found " + describe(type));
  }

  private static Double readTs(Reader r) throws IOException, Failure {
    ValueType type = r.next();
    double ts;
    if (type == ValueType.NIL) {
      r.unpacker.unpackNil();
      return null;
    } else if (type == ValueType.FLOAT) {
      ts = r.unpacker.unpackDouble();
    } else if (type == ValueType.INTEGER && r.format() != MessageFormat.UINT64) {
      ts = r.unpacker.unpackLong();
    } else {
      throw Failure.notABatch("ts: expected a float, found " + describe(type));
    }
    if (!(ts >= 0) || Double.isInfinite(ts)) {
      throw Failure.notABatch("ts: not a finite time >= 0");
    }
    return ts;
  }

  private static Integer readRank(Reader r) throws IOException, Failure {
    ValueType type = r.next();
    if (type == ValueType.NIL) {
      r.unpacker.unpackNil();
      return null;
    }
    if (type != ValueType.INTEGER) {
      throw Failure.notABatch("data_parallel_rank: expected an int, found " + describe(type));
    }
    if (r.format() == MessageFormat.UINT64) {
      throw Failure.notABatch("data_parallel_rank: out of range");
    }
    long rank = r.unpacker.unpackLong();
    if (rank < 0 || rank > Integer.MAX_VALUE) {
      throw Failure.notABatch("data_parallel_rank: out of range: " + rank);
    }
    return (int) rank;
  }

  private static List<KvEvent> readEvents(Reader r) throws IOException, Failure {
    ValueType type = r.next();
    if (type != ValueType.ARRAY) {
      throw Failure.notABatch("events: expected an array, found " + describe(type));
    }
    int n = r.arrayHeader("events");
    r.budget.charge(n, "events");
    if (n == 0) {
      return List.of();
    }
    List<KvEvent> events = new ArrayList<>(Math.min(n, 64));
    for (int i = 0; i < n; i++) {
      events.add(readEvent(r, i));
    }
    return Collections.unmodifiableList(events);
  }

  // ---------------------------------------------------------------------------------------------
  // Events

  private static KvEvent readEvent(Reader r, int index) throws IOException, Failure {
    ValueType type = r.next();
    if (type == ValueType.ARRAY) {
      return readArrayEvent(r, index);
    }
    if (type == ValueType.MAP) {
      return readMapEvent(r, index);
    }
    throw Failure.badEvent(
        "event " + index + ": expected an array or a map, found " + describe(type));
  }

  private static KvEvent readArrayEvent(Reader r, int index) throws IOException, Failure {
    int n = r.arrayHeader("event " + index);
    if (n == 0) {
      throw Failure.badEvent("event " + index + ": an empty array, expected the type first");
    }
    String type = readType(r, index);
    Field[] positions = positionsOf(type);
    EventBuilder event = new EventBuilder(type);
    for (int position = 1; position < n; position++) {
      if (positions != null && position - 1 < positions.length) {
        readField(r, index, positions[position - 1], event, true);
      } else {
        r.skip(1);
      }
    }
    return event.build(index, positions != null);
  }

  private static KvEvent readMapEvent(Reader r, int index) throws IOException, Failure {
    int start = r.pos();
    int n = r.mapHeader("event " + index);
    if (n == 0) {
      throw Failure.badEvent("event " + index + ": an empty map, expected a type");
    }
    // msgspec writes the tag first: then the fields follow in one pass.
    if (r.next() == ValueType.STRING) {
      String key = r.string();
      if (key.equals("type")) {
        return readMapFields(r, index, readType(r, index), n - 1);
      }
      r.skip(1);
    } else {
      r.skip(2);
    }
    // The type came later: find it, then read the event again from its start.
    String type = null;
    for (int i = 1; i < n; i++) {
      if (r.next() != ValueType.STRING) {
        r.skip(2);
      } else if (r.string().equals("type") && type == null) {
        type = readType(r, index);
      } else {
        r.skip(1);
      }
    }
    if (type == null) {
      throw Failure.badEvent("event " + index + ": a map without a type");
    }
    Reader again = new Reader(r.buf, start, r.pos() - start, r.budget);
    return readMapFields(again, index, type, again.mapHeader("event " + index));
  }

  private static KvEvent readMapFields(Reader r, int index, String type, int entries)
      throws IOException, Failure {
    Field[] positions = positionsOf(type);
    boolean known = positions != null;
    EventBuilder event = new EventBuilder(type);
    for (int i = 0; i < entries; i++) {
      if (r.next() != ValueType.STRING) {
        r.skip(2);
        continue;
      }
      Field field = FIELDS_BY_NAME.get(r.string());
      if (field == null) {
        r.skip(1); // an unknown field, or "type" again
      } else {
        readField(r, index, field, event, known);
      }
    }
    return event.build(index, known);
  }

  /** The type tag: a string that reads as a type name. */
  private static String readType(Reader r, int index) throws IOException, Failure {
    ValueType type = r.next();
    if (type != ValueType.STRING) {
      throw Failure.badEvent("event " + index + ": type: expected a str, found " + describe(type));
    }
    String name = r.string();
    switch (name) {
      case KvEvent.BLOCK_STORED:
        return KvEvent.BLOCK_STORED;
      case KvEvent.BLOCK_REMOVED:
        return KvEvent.BLOCK_REMOVED;
      case KvEvent.ALL_BLOCKS_CLEARED:
        return KvEvent.ALL_BLOCKS_CLEARED;
      default:
        if (!isTypeName(name)) {
          throw Failure.badEvent(
              "event " + index + ": type: not a type name (a letter, then letters, digits, _)");
        }
        return name;
    }
  }

  static boolean isTypeName(String name) {
    if (name.isEmpty() || name.length() > 256 || !isAsciiLetter(name.charAt(0))) {
      return false;
    }
    for (int i = 1; i < name.length(); i++) {
      char c = name.charAt(i);
      if (!isAsciiLetter(c) && !(c >= '0' && c <= '9') && c != '_') {
        return false;
      }
    }
    return true;
  }

  private static boolean isAsciiLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  /** The legacy positions of a known type; {@code null} for an unknown one. */
  private static Field[] positionsOf(String type) {
    switch (type) {
      case KvEvent.BLOCK_STORED:
        return BLOCK_STORED_POSITIONS;
      case KvEvent.BLOCK_REMOVED:
        return BLOCK_REMOVED_POSITIONS;
      case KvEvent.ALL_BLOCKS_CLEARED:
        return NO_POSITIONS;
      default:
        return null;
    }
  }

  /**
   * Reads one field's value (always consuming all of it). A value of the wrong shape fails the
   * event when {@code strict}, and is dropped otherwise.
   */
  private static void readField(
      Reader r, int index, Field field, EventBuilder event, boolean strict)
      throws IOException, Failure {
    r.problem = null;
    r.budget.event = index;
    Object value = readValue(r, field);
    if (value == INVALID) {
      if (strict) {
        throw Failure.badEvent("event " + index + ": " + field.wireName + ": " + r.problem);
      }
      return;
    }
    event.set(field, value);
  }

  private static Object readValue(Reader r, Field field) throws IOException, Failure {
    ValueType type = r.next();
    if (type == ValueType.NIL) {
      r.unpacker.unpackNil();
      return null;
    }
    switch (field.kind) {
      case HASHES:
        return readHashes(r, type);
      case HASH:
        {
          String hash = readHash(r, type);
          return hash == null ? INVALID : hash;
        }
      case COUNT:
        return readCount(r, type);
      case INT:
        {
          Object value = readLong(r, type, field.min, Integer.MAX_VALUE);
          return value instanceof Long l ? (Object) l.intValue() : value;
        }
      case LONG:
        return readLong(r, type, field.min, Long.MAX_VALUE);
      case TEXT:
        {
          Object value = readText(r, type);
          return "".equals(value) && field.min > 0 ? null : value;
        }
      case JSON:
        if (type != ValueType.ARRAY) {
          return r.invalid("expected an array, found " + describe(type));
        }
        {
          JsonNode node = readJson(r, 1);
          return node == null ? INVALID : node;
        }
      default:
        throw new IllegalStateException("unhandled field kind " + field.kind);
    }
  }

  private static Object readHashes(Reader r, ValueType type) throws IOException, Failure {
    if (type != ValueType.ARRAY) {
      return r.invalid("expected an array, found " + describe(type));
    }
    int n = r.arrayHeader("block_hashes");
    int most = r.budget.limits.maxHashesPerEvent();
    if (n > most) {
      throw new Failure(
          DecodeFailure.TOO_MANY_HASHES,
          "event "
              + r.budget.event
              + ": block_hashes: an array of "
              + n
              + " hashes, more than the "
              + most
              + " allowed per event");
    }
    r.budget.charge(n, "block_hashes");
    List<String> hashes = new ArrayList<>(n);
    boolean valid = true;
    for (int i = 0; i < n; i++) {
      String hash = readHash(r, r.next());
      if (hash == null) {
        if (valid) {
          r.problem = "element " + i + ": " + r.problem;
        }
        valid = false;
      } else if (valid) {
        hashes.add(hash);
      }
    }
    return valid ? hashes : INVALID;
  }

  /** A hash as hex, or {@code null} (with {@link Reader#problem} set) after consuming the value. */
  private static String readHash(Reader r, ValueType type) throws IOException, Failure {
    if (type == ValueType.INTEGER) {
      if (r.format() == MessageFormat.UINT64) {
        // Above Long.MAX_VALUE unpackLong() throws; the 8 big-endian bytes are the value's bits.
        if (r.remaining() < 9) {
          throw Failure.malformed("a uint64 cut short at byte " + r.pos());
        }
        int p = r.pos() + 1;
        long bits = 0;
        for (int i = 0; i < 8; i++) {
          bits = (bits << 8) | (r.buf[p + i] & 0xffL);
        }
        r.unpacker.skipValue();
        return hex64(bits);
      }
      return hex64(r.unpacker.unpackLong());
    }
    if (type == ValueType.BINARY) {
      int length = r.unpacker.unpackBinaryHeader();
      int p = r.payload(length);
      if (length == 0) {
        r.problem = "an empty bin";
        return null;
      }
      return hex(r.buf, p, length);
    }
    r.skip(1);
    r.problem = "expected an int or a bin, found " + describe(type);
    return null;
  }

  private static Object readCount(Reader r, ValueType type) throws IOException, Failure {
    if (type != ValueType.ARRAY) {
      return r.invalid("expected an array, found " + describe(type));
    }
    int n = r.arrayHeader("token_ids");
    // The bulk of every payload: scanned as bytes (each int's length from its first byte), then
    // passed over in one step, instead of one unpacker call per id.
    int start = r.pos();
    int end = r.base + r.capacity;
    int p = start;
    for (int i = 0; i < n; i++) {
      if (p >= end) {
        throw Failure.malformed("token_ids cut short at byte " + p);
      }
      int length = intLength(r.buf[p] & 0xff);
      if (length == 0) {
        // not an int: consume the rest element by element and say which one it was
        r.payload(p - start);
        String problem = "element " + i + ": expected an int, found " + describe(r.next());
        r.skip(n - i);
        return r.invalidAfter(problem);
      }
      p += length;
    }
    if (p > end) {
      throw Failure.malformed("token_ids cut short at byte " + end);
    }
    r.payload(p - start);
    return n;
  }

  /** The encoded length of a msgpack int from its first byte; 0 when it is not an int. */
  private static int intLength(int first) {
    if (first <= 0x7f || first >= 0xe0) {
      return 1; // positive or negative fixint
    }
    switch (first) {
      case 0xcc, 0xd0:
        return 2;
      case 0xcd, 0xd1:
        return 3;
      case 0xce, 0xd2:
        return 5;
      case 0xcf, 0xd3:
        return 9;
      default:
        return 0;
    }
  }

  private static Object readLong(Reader r, ValueType type, long min, long max)
      throws IOException, Failure {
    if (type != ValueType.INTEGER) {
      return r.invalid("expected an int, found " + describe(type));
    }
    if (r.format() == MessageFormat.UINT64) {
      return r.invalid("out of range");
    }
    long value = r.unpacker.unpackLong();
    if (value < min || value > max) {
      return r.invalidAfter("out of range: " + value);
    }
    return value;
  }

  private static Object readText(Reader r, ValueType type) throws IOException, Failure {
    if (type != ValueType.STRING) {
      return r.invalid("expected a str, found " + describe(type));
    }
    return r.string();
  }

  /**
   * A msgpack value as JSON, consuming all of it; {@code null} (with {@link Reader#problem} set)
   * when it cannot be represented: too deep, or a map key other than a str or an int.
   */
  private static JsonNode readJson(Reader r, int depth) throws IOException, Failure {
    ValueType type = r.next();
    switch (type) {
      case NIL:
        r.unpacker.unpackNil();
        return JSON.nullNode();
      case BOOLEAN:
        return JSON.booleanNode(r.unpacker.unpackBoolean());
      case INTEGER:
        {
          if (r.format() == MessageFormat.UINT64) {
            return JSON.numberNode(r.unpacker.unpackBigInteger());
          }
          long value = r.unpacker.unpackLong();
          // As a JSON parser would read it back: an int node when it fits.
          return value == (int) value ? JSON.numberNode((int) value) : JSON.numberNode(value);
        }
      case FLOAT:
        return JSON.numberNode(r.unpacker.unpackDouble());
      case STRING:
        return JSON.textNode(r.string());
      case BINARY:
        {
          int length = r.unpacker.unpackBinaryHeader();
          return JSON.textNode(hex(r.buf, r.payload(length), length));
        }
      case EXTENSION:
        {
          ExtensionTypeHeader header = r.unpacker.unpackExtensionTypeHeader();
          int length = header.getLength();
          return JSON.textNode(hex(r.buf, r.payload(length), length));
        }
      case ARRAY:
        {
          if (skippedTooDeep(r, depth)) {
            return null;
          }
          int n = r.arrayHeader("extra_keys");
          r.budget.charge(n, "extra_keys");
          ArrayNode array = JSON.arrayNode(Math.min(n, 16));
          boolean valid = true;
          for (int i = 0; i < n; i++) {
            JsonNode element = readJson(r, depth + 1);
            valid &= element != null;
            if (valid) {
              array.add(element);
            }
          }
          return valid ? array : null;
        }
      case MAP:
        {
          if (skippedTooDeep(r, depth)) {
            return null;
          }
          int n = r.mapHeader("extra_keys");
          r.budget.charge(2L * n, "extra_keys");
          ObjectNode object = JSON.objectNode();
          boolean valid = true;
          for (int i = 0; i < n; i++) {
            String key = readJsonKey(r);
            JsonNode value = readJson(r, depth + 1);
            valid &= key != null && value != null;
            if (valid) {
              object.set(key, value);
            }
          }
          return valid ? object : null;
        }
      default:
        throw new IllegalStateException("unhandled msgpack type " + type);
    }
  }

  /**
   * Skips the container at {@code depth} when it is deeper than {@value #MAX_EXTRA_KEYS_DEPTH},
   * noting why on {@code r}: {@code extra_keys} come from the engine, and the recursion must stop.
   */
  private static boolean skippedTooDeep(Reader r, int depth) throws IOException {
    if (depth <= MAX_EXTRA_KEYS_DEPTH) {
      return false;
    }
    r.skip(1);
    r.problem = "nested deeper than " + MAX_EXTRA_KEYS_DEPTH;
    return true;
  }

  private static String readJsonKey(Reader r) throws IOException, Failure {
    ValueType type = r.next();
    if (type == ValueType.STRING) {
      return r.string();
    }
    if (type == ValueType.INTEGER) {
      if (r.format() == MessageFormat.UINT64) {
        return r.unpacker.unpackBigInteger().toString();
      }
      return Long.toString(r.unpacker.unpackLong());
    }
    r.skip(1);
    r.problem = "a map key that is " + describe(type) + ", not a str or an int";
    return null;
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers

  static String hex64(long bits) {
    char[] out = new char[16];
    for (int i = 15; i >= 0; i--) {
      out[i] = HEX[(int) (bits & 0xf)];
      bits >>>= 4;
    }
    return new String(out);
  }

  static String hex(byte[] bytes, int offset, int length) {
    char[] out = new char[length * 2];
    for (int i = 0; i < length; i++) {
      int b = bytes[offset + i] & 0xff;
      out[2 * i] = HEX[b >>> 4];
      out[2 * i + 1] = HEX[b & 0xf];
    }
    return new String(out);
  }

  private static String describe(ValueType type) {
    switch (type) {
      case NIL:
        return "nil";
      case BOOLEAN:
        return "a bool";
      case INTEGER:
        return "an int";
      case FLOAT:
        return "a float";
      case STRING:
        return "a str";
      case BINARY:
        return "a bin";
      case ARRAY:
        return "an array";
      case MAP:
        return "a map";
      case EXTENSION:
        return "an ext";
      default:
        return type.name();
    }
  }

  private static Map<String, Field> fieldsByName() {
    Map<String, Field> byName = new java.util.HashMap<>();
    for (Field field : Field.values()) {
      byName.put(field.wireName, field);
    }
    return Map.copyOf(byName);
  }

  /** How a field's value is read. */
  private enum Kind {
    HASHES,
    HASH,
    COUNT,
    INT,
    LONG,
    TEXT,
    JSON
  }

  /** The event fields known here, by their vLLM names. */
  private enum Field {
    BLOCK_HASHES("block_hashes", Kind.HASHES, 0),
    PARENT_BLOCK_HASH("parent_block_hash", Kind.HASH, 0),
    TOKEN_IDS("token_ids", Kind.COUNT, 0),
    BLOCK_SIZE("block_size", Kind.INT, 1),
    LORA_ID("lora_id", Kind.LONG, 0),
    /** For TEXT, {@code min} 1 reads an empty string as absent. */
    MEDIUM("medium", Kind.TEXT, 1),
    LORA_NAME("lora_name", Kind.TEXT, 0),
    EXTRA_KEYS("extra_keys", Kind.JSON, 0),
    GROUP_IDX("group_idx", Kind.INT, 0),
    KV_CACHE_SPEC_KIND("kv_cache_spec_kind", Kind.TEXT, 1),
    KV_CACHE_SPEC_SLIDING_WINDOW("kv_cache_spec_sliding_window", Kind.INT, 0),
    LOCALITY("locality", Kind.TEXT, 1),
    SESSION_ID("session_id", Kind.TEXT, 1);

    final String wireName;
    final Kind kind;
    final long min;

    Field(String wireName, Kind kind, long min) {
      this.wireName = wireName;
      this.kind = kind;
      this.min = min;
    }
  }

  /** The fields of one event as they are read. */
  private static final class EventBuilder {
    final String type;
    List<String> blockHashes;
    String parentBlockHash;
    Integer tokenCount;
    Integer blockSize;
    Long loraId;
    String loraName;
    String medium;
    Integer groupIdx;
    String kvCacheSpecKind;
    Integer kvCacheSpecSlidingWindow;
    String locality;
    String sessionId;
    JsonNode extraKeys;

    EventBuilder(String type) {
      this.type = type;
    }

    @SuppressWarnings("unchecked")
    void set(Field field, Object value) {
      switch (field) {
        case BLOCK_HASHES -> blockHashes = (List<String>) value;
        case PARENT_BLOCK_HASH -> parentBlockHash = (String) value;
        case TOKEN_IDS -> tokenCount = (Integer) value;
        case BLOCK_SIZE -> blockSize = (Integer) value;
        case LORA_ID -> loraId = (Long) value;
        case MEDIUM -> medium = (String) value;
        case LORA_NAME -> loraName = (String) value;
        case EXTRA_KEYS -> extraKeys = (JsonNode) value;
        case GROUP_IDX -> groupIdx = (Integer) value;
        case KV_CACHE_SPEC_KIND -> kvCacheSpecKind = (String) value;
        case KV_CACHE_SPEC_SLIDING_WINDOW -> kvCacheSpecSlidingWindow = (Integer) value;
        case LOCALITY -> locality = (String) value;
        case SESSION_ID -> sessionId = (String) value;
      }
    }

    KvEvent build(int index, boolean known) throws Failure {
      boolean namesBlocks = type.equals(KvEvent.BLOCK_STORED) || type.equals(KvEvent.BLOCK_REMOVED);
      if (known && namesBlocks && (blockHashes == null || blockHashes.isEmpty())) {
        throw Failure.badEvent("event " + index + ": a " + type + " without block_hashes");
      }
      return new KvEvent(
          type,
          blockHashes,
          parentBlockHash,
          tokenCount,
          blockSize,
          loraId,
          loraName,
          medium,
          groupIdx,
          kvCacheSpecKind,
          kvCacheSpecSlidingWindow,
          locality,
          sessionId,
          extraKeys);
    }
  }

  /** The values one batch may still keep, shared by every reader of the batch. */
  private static final class Budget {
    final KvDecodeLimits limits;
    long left;

    /** The index of the event being read, for the failure's detail; -1 before the first. */
    int event = -1;

    Budget(KvDecodeLimits limits) {
      this.limits = limits;
      this.left = limits.maxValuesPerBatch();
    }

    /** Takes {@code n} values for {@code field}, or fails the batch before they are allocated. */
    void charge(long n, String field) throws Failure {
      if (n > left) {
        throw new Failure(
            DecodeFailure.BATCH_TOO_LARGE,
            (event < 0 ? field : "event " + event + ": " + field)
                + ": "
                + n
                + " values, more than the "
                + left
                + " left of the "
                + limits.maxValuesPerBatch()
                + " a batch may keep");
      }
      left -= n;
    }
  }

  /**
   * An unpacker over {@code buf[base, base + capacity)} with the checks that keep a hostile length
   * from allocating or looping beyond the bytes that are there.
   */
  private static final class Reader {
    final byte[] buf;
    final int base;
    final int capacity;
    final Budget budget;
    final MessageUnpacker unpacker;

    /** Why the last value read was invalid. */
    String problem;

    Reader(byte[] buf, int base, int capacity, Budget budget) {
      this.buf = buf;
      this.base = base;
      this.capacity = capacity;
      this.budget = budget;
      this.unpacker = MessagePack.newDefaultUnpacker(buf, base, capacity);
    }

    int pos() {
      return base + (int) unpacker.getTotalReadBytes();
    }

    int remaining() {
      return capacity - (int) unpacker.getTotalReadBytes();
    }

    MessageFormat format() throws IOException {
      return unpacker.getNextFormat();
    }

    ValueType next() throws IOException, Failure {
      MessageFormat format = unpacker.getNextFormat();
      if (format == MessageFormat.NEVER_USED) {
        throw Failure.malformed("the reserved byte 0xc1 at byte " + pos());
      }
      return format.getValueType();
    }

    void skip(int values) throws IOException {
      if (values > 0) {
        unpacker.skipValue(values);
      }
    }

    /** An array header whose every element still fits in the bytes left (one byte at least). */
    int arrayHeader(String what) throws IOException, Failure {
      int n = unpacker.unpackArrayHeader();
      if (n > remaining()) {
        throw Failure.malformed(
            what + ": an array of " + n + " elements with " + remaining() + " bytes left");
      }
      return n;
    }

    /** A map header whose every entry still fits in the bytes left (two bytes at least). */
    int mapHeader(String what) throws IOException, Failure {
      int n = unpacker.unpackMapHeader();
      if ((long) n * 2 > remaining()) {
        throw Failure.malformed(
            what + ": a map of " + n + " entries with " + remaining() + " bytes left");
      }
      return n;
    }

    /** Consumes {@code length} payload bytes after a header and returns where they start. */
    int payload(int length) throws IOException, Failure {
      if (length > remaining()) {
        throw Failure.malformed(
            "a value of " + length + " bytes with " + remaining() + " bytes left at byte " + pos());
      }
      int start = pos();
      if (length > 0) {
        unpacker.readPayloadAsReference(length);
      }
      return start;
    }

    /** A str value (invalid UTF-8 is replaced, never an error). */
    String string() throws IOException, Failure {
      int length = unpacker.unpackRawStringHeader();
      int start = payload(length);
      return length == 0 ? "" : new String(buf, start, length, StandardCharsets.UTF_8);
    }

    /** Skips the value that is not what was expected and says why. */
    Object invalid(String why) throws IOException {
      skip(1);
      return invalidAfter(why);
    }

    /** Says why the value just consumed is not what was expected. */
    Object invalidAfter(String why) {
      problem = why;
      return INVALID;
    }
  }

  /** A decode failure inside the decoder; becomes a {@link DecodeFailure} at its boundary. */
  private static final class Failure extends Exception {
    private static final long serialVersionUID = 1L;
    final String reason;

    private Failure(String reason, String detail) {
      super(detail, null, false, false);
      this.reason = reason;
    }

    static Failure malformed(String detail) {
      return new Failure(DecodeFailure.MALFORMED_MSGPACK, detail);
    }

    static Failure notABatch(String detail) {
      return new Failure(DecodeFailure.NOT_A_BATCH, detail);
    }

    static Failure badEvent(String detail) {
      return new Failure(DecodeFailure.BAD_EVENT, detail);
    }
  }
}
