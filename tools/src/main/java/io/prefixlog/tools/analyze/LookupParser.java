package io.prefixlog.tools.analyze;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.prefixlog.analysis.mrc.LookupRequest;
import io.prefixlog.analysis.mrc.Mix64;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Parses one JSON line into a {@link Lookup}, telling the two formats apart by their fields:
 *
 * <ul>
 *   <li>prefixlog's chunk-hash lookup record ({@code chunk.lookups}, docs/design.md#records):
 *       {@code chunk_unit} says what {@code chunk_size} and {@code seq_len} count ({@code bytes} or
 *       {@code tokens}); {@code prompt_tokens} and {@code cached_tokens} are the engine's figures
 *       when known;
 *   <li>a line of LMCache's lookup-hash log ({@code lookup_hashes_*.jsonl}, older {@code
 *       chunk_hashes_*.jsonl}): no {@code chunk_unit}, so the unit is tokens; {@code dtypes} and
 *       {@code shapes} give the KV bytes of one chunk (Σ over tensors of the shape's product × the
 *       dtype's size, as LMCache's simulator computes it).
 * </ul>
 *
 * <p>A line may also be a kcat {@code -J} envelope ({@code {"key": …, "payload": …}}) whose payload
 * is such a record, as a JSON string or object; a {@code null} payload is a tombstone. Required:
 * {@code timestamp} (a number ≥ 0), {@code chunk_size} (≥ 1), {@code seq_len} (≥ the full chunks'
 * units) and {@code chunk_hashes} (an array of hex strings, {@code 0x} optional, or integers); or,
 * in a version 2 record ({@code schema_version} 2), {@code prefix_chunks} and {@code tail_hashes}
 * instead of {@code chunk_hashes}: such a record is parsed as it lists its hashes, and {@link
 * Parsed#prefixChunks} says how many leading ones its chain's previous turn holds ({@link Trace}
 * resolves it). Unknown fields are ignored. Error messages name the field, never quote the input.
 */
final class LookupParser {
  private static final JsonFactory FACTORY = Json.mapper().getFactory();

  /** Bytes per element of the dtypes LMCache logs ({@code torch.} prefix optional). */
  static final Map<String, Integer> DTYPE_BYTES =
      Map.ofEntries(
          Map.entry("float64", 8),
          Map.entry("float32", 4),
          Map.entry("float16", 2),
          Map.entry("half", 2),
          Map.entry("float", 4),
          Map.entry("bfloat16", 2),
          Map.entry("float8_e4m3fn", 1),
          Map.entry("float8_e4m3fnuz", 1),
          Map.entry("float8_e5m2", 1),
          Map.entry("float8_e5m2fnuz", 1),
          Map.entry("uint8", 1),
          Map.entry("int8", 1),
          Map.entry("int16", 2),
          Map.entry("int32", 4),
          Map.entry("int64", 8));

  private LookupParser() {}

  /** A line that is not a usable lookup; the message names the field and what it expects. */
  static final class BadLineException extends Exception {
    BadLineException(String message) {
      super(message);
    }
  }

  /**
   * What a line held.
   *
   * @param lookup the record, its {@code keys} the hashes it lists: all of them, or a version 2
   *     record's {@code tail_hashes}
   * @param prefixChunks a version 2 record's {@code prefix_chunks}: the leading hashes its chain's
   *     previous turn holds; 0 for a whole record
   * @param v2 whether the record is a version 2 one ({@code schema_version} 2)
   */
  record Parsed(
      Optional<Lookup> lookup, String key, boolean tombstone, int prefixChunks, boolean v2) {
    static Parsed blank() {
      return new Parsed(Optional.empty(), null, false, 0, false);
    }

    /** A topic record's tombstone. */
    static Parsed tombstone(String key) {
      return new Parsed(Optional.empty(), key, true, 0, false);
    }

    /** The same, read under a record key (a topic record's). */
    Parsed withKey(String recordKey) {
      return new Parsed(lookup, recordKey, tombstone, prefixChunks, v2);
    }
  }

  /**
   * Parses {@code length} bytes of {@code line} (no line terminator).
   *
   * @return the lookup; or, for a blank line, nothing; for an envelope, also its key, and for a
   *     tombstone envelope no lookup and {@code tombstone} set
   * @throws BadLineException when the line is not JSON or not a lookup record
   */
  static Parsed parse(byte[] line, int length) throws BadLineException {
    try (JsonParser parser = FACTORY.createParser(line, 0, length)) {
      JsonToken first = parser.nextToken();
      if (first == null) {
        return Parsed.blank();
      }
      if (first != JsonToken.START_OBJECT) {
        throw new BadLineException("not a JSON object");
      }
      Fields top = new Fields();
      String key = null;
      boolean envelope = false;
      boolean tombstone = false;
      Fields payload = null;
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String name = parser.currentName();
        JsonToken value = parser.nextToken();
        if (name.equals("payload")) {
          envelope = true;
          if (value == JsonToken.VALUE_NULL) {
            tombstone = true;
          } else if (value == JsonToken.VALUE_STRING) {
            byte[] inner = parser.getText().getBytes(StandardCharsets.UTF_8);
            payload = readPayload(inner);
          } else if (value == JsonToken.START_OBJECT) {
            payload = new Fields();
            payload.readObject(parser);
          } else {
            throw new BadLineException("envelope payload is neither a JSON string nor an object");
          }
        } else if (name.equals("key") && value == JsonToken.VALUE_STRING) {
          key = parser.getText(); // an envelope's record key: not a record field
        } else {
          top.read(name, value, parser);
        }
      }
      if (parser.nextToken() != null) {
        throw new BadLineException("trailing data after the JSON object");
      }
      if (!envelope) {
        Lookup lookup = top.lookup();
        return new Parsed(Optional.of(lookup), null, false, top.prefixChunks, top.isV2());
      }
      if (tombstone) {
        return new Parsed(Optional.empty(), key, true, 0, false);
      }
      Lookup lookup = payload.lookup();
      return new Parsed(Optional.of(lookup), key, false, payload.prefixChunks, payload.isV2());
    } catch (JsonParseException e) {
      throw new BadLineException(
          "not valid JSON (at column " + e.getLocation().getColumnNr() + ")");
    } catch (IOException e) {
      throw new BadLineException("cannot parse: " + e.getClass().getSimpleName());
    }
  }

  /** Parses a record value (a topic record's bytes). */
  static Parsed parseValue(byte[] value) throws BadLineException {
    Parsed parsed = parse(value, value.length);
    if (parsed.lookup().isEmpty()) {
      throw new BadLineException(parsed.tombstone() ? "a tombstone" : "an empty value");
    }
    return parsed;
  }

  private static Fields readPayload(byte[] inner) throws BadLineException, IOException {
    try (JsonParser parser = FACTORY.createParser(inner)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        throw new BadLineException("envelope payload is not a JSON object");
      }
      Fields fields = new Fields();
      fields.readObject(parser);
      if (parser.nextToken() != null) {
        throw new BadLineException("trailing data after the envelope payload");
      }
      return fields;
    }
  }

  /**
   * The 64-bit key of a hex chunk hash: its value when it has at most 16 hex digits (LMCache's and
   * prefixlog's 64-bit hashes), else a fold of all its digits (wider hashes keep apart: equal
   * strings give equal keys, different ones differ up to 64-bit collisions).
   *
   * @throws IllegalArgumentException when the text is not hex
   */
  static long key(String hash) {
    int from = hash.startsWith("0x") || hash.startsWith("0X") ? 2 : 0;
    int digits = hash.length() - from;
    if (digits < 1) {
      throw new IllegalArgumentException("no hex digits");
    }
    long folded = 0;
    long group = 0;
    int inGroup = 0;
    for (int i = from; i < hash.length(); i++) {
      int d = Character.digit(hash.charAt(i), 16);
      if (d < 0) {
        throw new IllegalArgumentException("not a hex digit at index " + i);
      }
      group = (group << 4) | d;
      if (++inGroup == 16 && i < hash.length() - 1) {
        folded = Mix64.mix(folded ^ group);
        group = 0;
        inGroup = 0;
      }
    }
    return digits <= 16 ? group : Mix64.mix(folded ^ group);
  }

  /** The fields of one record object, as read. */
  private static final class Fields {
    Double timestamp;
    String model;
    Long chunkSize;
    Long seqLen;
    long[] keys;
    Long schemaVersion;
    Long prefix;
    long[] tailKeys;
    int prefixChunks;
    String chunkUnit;
    boolean hasDtypes;
    boolean hasShapes;
    String[] dtypes;
    long[][] shapes;
    Long promptTokens;
    Long cachedTokens;
    String sessionKey;
    String bodyOmitted;
    String upstream;
    String badField;

    void readObject(JsonParser parser) throws IOException, BadLineException {
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String name = parser.currentName();
        read(name, parser.nextToken(), parser);
      }
    }

    void read(String name, JsonToken value, JsonParser parser)
        throws IOException, BadLineException {
      switch (name) {
        case "timestamp" -> {
          if (!value.isNumeric()) {
            throw new BadLineException("timestamp is not a number (Unix seconds)");
          }
          timestamp = parser.getDoubleValue();
        }
        case "session_key" ->
            sessionKey = value == JsonToken.VALUE_STRING ? parser.getText() : null;
        case "body_omitted" ->
            bodyOmitted = value == JsonToken.VALUE_STRING ? parser.getText() : null;
        case "upstream" -> upstream = value == JsonToken.VALUE_STRING ? parser.getText() : null;
        case "model_name" -> model = value == JsonToken.VALUE_STRING ? parser.getText() : null;
        case "chunk_size" -> chunkSize = integer(name, value, parser);
        case "seq_len" -> seqLen = integer(name, value, parser);
        case "chunk_hashes" -> keys = hashes(name, value, parser);
        case "tail_hashes" -> tailKeys = hashes(name, value, parser);
        case "schema_version" -> schemaVersion = integer(name, value, parser);
        case "prefix_chunks" -> prefix = integer(name, value, parser);
        case "chunk_unit" -> {
          if (value != JsonToken.VALUE_STRING) {
            throw new BadLineException("chunk_unit is not a string (bytes or tokens)");
          }
          chunkUnit = parser.getText();
        }
        case "dtypes" -> {
          hasDtypes = true;
          dtypes = strings(value, parser);
        }
        case "shapes" -> {
          hasShapes = true;
          shapes = shapes(value, parser);
        }
        case "prompt_tokens" ->
            promptTokens = value == JsonToken.VALUE_NULL ? null : integer(name, value, parser);
        case "cached_tokens" ->
            cachedTokens = value == JsonToken.VALUE_NULL ? null : integer(name, value, parser);
        default -> parser.skipChildren();
      }
    }

    Lookup lookup() throws BadLineException {
      if (timestamp == null) {
        throw new BadLineException(
            missing("timestamp") + " (not a chunk-hash lookup record or LMCache lookup line)");
      }
      if (!Double.isFinite(timestamp) || timestamp < 0) {
        throw new BadLineException("timestamp must be a number of Unix seconds >= 0");
      }
      if (chunkSize == null) {
        throw new BadLineException(missing("chunk_size"));
      }
      if (chunkSize < 1 || chunkSize > Integer.MAX_VALUE) {
        throw new BadLineException("chunk_size must be a whole number >= 1, got " + chunkSize);
      }
      if (seqLen == null) {
        throw new BadLineException(missing("seq_len"));
      }
      long[] listed = listed();
      long chunks = (long) prefixChunks + listed.length;
      if (seqLen < chunks * chunkSize) {
        throw new BadLineException(
            "seq_len "
                + seqLen
                + " is less than "
                + (schemaVersion == null ? "chunk_hashes" : "(prefix_chunks + tail_hashes)")
                + " x chunk_size = "
                + chunks
                + " x "
                + chunkSize);
      }
      Lookup.ChunkUnit unit = Lookup.ChunkUnit.TOKENS;
      if (chunkUnit != null) {
        unit =
            switch (chunkUnit) {
              case "tokens" -> Lookup.ChunkUnit.TOKENS;
              case "bytes" -> Lookup.ChunkUnit.BYTES;
              default -> throw new BadLineException("chunk_unit must be bytes or tokens");
            };
      }
      long prompt = LookupRequest.UNKNOWN;
      long cached = LookupRequest.UNKNOWN;
      if (promptTokens != null) {
        prompt = promptTokens;
        // vLLM omits cached_tokens when it is zero: with the prompt known, absent means zero.
        cached = cachedTokens == null ? 0 : cachedTokens;
        if (cached > prompt) {
          throw new BadLineException(
              "cached_tokens " + cached + " is more than prompt_tokens " + prompt);
        }
      }
      boolean lmcache = chunkUnit == null && (hasDtypes || hasShapes);
      return new Lookup(
          timestamp,
          model == null ? "" : model,
          (int) (long) chunkSize,
          seqLen,
          listed,
          unit,
          lmcache,
          prompt,
          cached,
          kvBytes(),
          sessionKey == null ? "" : sessionKey,
          bodyOmitted != null,
          upstream == null ? "" : upstream);
    }

    boolean isV2() {
      return schemaVersion != null;
    }

    /**
     * The hashes the record lists, and in {@link #prefixChunks} how many its chain's previous turn
     * holds before them: version 1's (no {@code schema_version}) whole {@code chunk_hashes}, or
     * version 2's {@code prefix_chunks} and {@code tail_hashes}.
     */
    private long[] listed() throws BadLineException {
      if (schemaVersion == null) {
        if (tailKeys != null || prefix != null) {
          throw new BadLineException("prefix_chunks and tail_hashes need schema_version 2");
        }
        if (keys == null) {
          throw new BadLineException(missing("chunk_hashes"));
        }
        prefixChunks = 0;
        return keys;
      }
      if (schemaVersion != ChunkLookupRecord.SCHEMA_VERSION_V2) {
        throw new BadLineException(
            "schema_version "
                + schemaVersion
                + " is not one this reader knows (2, or none for version 1)");
      }
      if (keys != null) {
        throw new BadLineException(
            "a version 2 record has chunk_hashes (it lists prefix_chunks and tail_hashes)");
      }
      if (prefix == null) {
        throw new BadLineException(missing("prefix_chunks") + " (schema_version 2)");
      }
      if (tailKeys == null) {
        throw new BadLineException(missing("tail_hashes") + " (schema_version 2)");
      }
      if (prefix > Integer.MAX_VALUE) {
        throw new BadLineException("prefix_chunks " + prefix + " is too large");
      }
      prefixChunks = (int) (long) prefix;
      return tailKeys;
    }

    /** LMCache's bytes per chunk: Σ shape product × dtype size; 0 when unknown. */
    private long kvBytes() {
      if (dtypes == null || shapes == null || dtypes.length == 0 || shapes.length == 0) {
        return 0;
      }
      long total = 0;
      for (int i = 0; i < Math.min(dtypes.length, shapes.length); i++) {
        String dtype = dtypes[i].toLowerCase(Locale.ROOT);
        if (dtype.startsWith("torch.")) {
          dtype = dtype.substring("torch.".length());
        }
        Integer size = DTYPE_BYTES.get(dtype);
        if (size == null) {
          return 0;
        }
        try {
          long elements = 1;
          for (long dimension : shapes[i]) {
            elements = Math.multiplyExact(elements, dimension);
          }
          total = Math.addExact(total, Math.multiplyExact(elements, size));
        } catch (ArithmeticException e) {
          return 0; // not a real shape: unknown
        }
      }
      return total;
    }

    private static String missing(String field) {
      return "no " + field;
    }

    private static long integer(String name, JsonToken value, JsonParser parser)
        throws IOException, BadLineException {
      if (value != JsonToken.VALUE_NUMBER_INT
          || parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
        throw new BadLineException(name + " is not a whole number");
      }
      long n = parser.getLongValue();
      if (n < 0) {
        throw new BadLineException(name + " must be >= 0, got " + n);
      }
      return n;
    }

    private static long[] hashes(String name, JsonToken value, JsonParser parser)
        throws IOException, BadLineException {
      if (value != JsonToken.START_ARRAY) {
        throw new BadLineException(name + " is not an array");
      }
      long[] keys = new long[16];
      int n = 0;
      JsonToken t;
      while ((t = parser.nextToken()) != JsonToken.END_ARRAY) {
        long key;
        if (t == JsonToken.VALUE_STRING) {
          try {
            key = key(parser.getText());
          } catch (IllegalArgumentException e) {
            throw new BadLineException(name + "[" + n + "] is not a hex hash: " + e.getMessage());
          }
        } else if (t == JsonToken.VALUE_NUMBER_INT) {
          key = parser.getBigIntegerValue().longValue();
        } else {
          throw new BadLineException(name + "[" + n + "] is neither a hex string nor a number");
        }
        if (n == keys.length) {
          keys = Arrays.copyOf(keys, n * 2);
        }
        keys[n++] = key;
      }
      return Arrays.copyOf(keys, n);
    }

    private static String[] strings(JsonToken value, JsonParser parser) throws IOException {
      if (value != JsonToken.START_ARRAY) {
        parser.skipChildren();
        return null;
      }
      java.util.List<String> list = new java.util.ArrayList<>();
      JsonToken t;
      while ((t = parser.nextToken()) != JsonToken.END_ARRAY) {
        if (t == JsonToken.VALUE_STRING) {
          list.add(parser.getText());
        } else {
          parser.skipChildren();
          list.add("?");
        }
      }
      return list.toArray(String[]::new);
    }

    private static long[][] shapes(JsonToken value, JsonParser parser) throws IOException {
      if (value != JsonToken.START_ARRAY) {
        parser.skipChildren();
        return null;
      }
      java.util.List<long[]> list = new java.util.ArrayList<>();
      boolean ok = true;
      JsonToken t;
      while ((t = parser.nextToken()) != JsonToken.END_ARRAY) {
        if (t != JsonToken.START_ARRAY) {
          parser.skipChildren();
          ok = false;
          continue;
        }
        long[] dims = new long[8];
        int n = 0;
        JsonToken d;
        while ((d = parser.nextToken()) != JsonToken.END_ARRAY) {
          if (d != JsonToken.VALUE_NUMBER_INT || parser.getLongValue() < 0) {
            parser.skipChildren();
            ok = false;
            continue;
          }
          if (n == dims.length) {
            dims = Arrays.copyOf(dims, n * 2);
          }
          dims[n++] = parser.getLongValue();
        }
        list.add(Arrays.copyOf(dims, n));
      }
      return ok ? list.toArray(long[][]::new) : null;
    }
  }
}
