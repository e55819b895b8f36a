package io.prefixlog.core.kv;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.prefixlog.schemas.kv.KvEvent;
import io.prefixlog.schemas.kv.KvEventBatch;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Random vLLM batches in every layout, each with the record the decoder must make of it, worked out
 * here independently of the decoder (hex by {@link String#format} and {@link HexFormat}, fields by
 * name).
 */
final class RandomBatches {
  /** A payload's value tree (see {@link Msgpack}) and the record it must decode to. */
  record Generated(Object tree, KvEventBatch expected) {
    byte[] payload() {
      return Msgpack.pack(tree);
    }
  }

  /** Legacy BlockStored array lengths vLLM shipped, oldest first (tag included). */
  private static final int[] STORED_LENGTHS = {6, 7, 8, 9, 10, 12, 13};

  private static final int[] REMOVED_LENGTHS = {2, 3, 4, 5};

  private static final List<String> STORED_FIELDS =
      List.of(
          "block_hashes",
          "parent_block_hash",
          "token_ids",
          "block_size",
          "lora_id",
          "medium",
          "lora_name",
          "extra_keys",
          "group_idx",
          "kv_cache_spec_kind",
          "kv_cache_spec_sliding_window",
          "locality");

  private static final List<String> REMOVED_FIELDS =
      List.of("block_hashes", "medium", "group_idx", "locality");

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final Random random;
  private final KvSource source;

  RandomBatches(Random random, KvSource source) {
    this.random = random;
    this.source = source;
  }

  Generated next(long seq, long receivedMs) {
    double ts = 1.0e9 + random.nextInt(1_000_000_000) + random.nextInt(1000) / 1000.0;
    int eventCount = 1 + random.nextInt(5);
    List<Object> events = new ArrayList<>();
    List<KvEvent> expected = new ArrayList<>();
    for (int i = 0; i < eventCount; i++) {
      event(events, expected);
    }
    Integer rank = random.nextInt(4) == 0 ? null : random.nextInt(8);
    Object tree;
    Integer expectedRank = rank;
    switch (random.nextInt(4)) {
      case 0 -> {
        tree = Msgpack.list(ts, events);
        expectedRank = null;
      }
      case 1 -> tree = Msgpack.list(ts, events, rank);
      case 2 -> tree = Msgpack.list(ts, events, rank, "later-field");
      default -> {
        List<Object[]> entries = new ArrayList<>();
        entries.add(new Object[] {"ts", ts});
        entries.add(new Object[] {"events", events});
        if (rank != null || random.nextBoolean()) {
          entries.add(new Object[] {"data_parallel_rank", rank});
        }
        if (random.nextInt(4) == 0) {
          entries.add(new Object[] {"unknown_batch_field", Msgpack.list(1, "x")});
        }
        Collections.shuffle(entries, random);
        Map<Object, Object> map = new LinkedHashMap<>();
        entries.forEach(e -> map.put(e[0], e[1]));
        tree = map;
      }
    }
    KvEventBatch batch =
        new KvEventBatch(
            KvEventBatch.SCHEMA_VERSION,
            source.id(),
            source.endpoint(),
            expectedRank,
            source.topic(),
            seq,
            receivedMs,
            ts,
            null,
            null,
            null,
            expected);
    return new Generated(tree, batch);
  }

  private void event(List<Object> events, List<KvEvent> expected) {
    int kind = random.nextInt(20);
    String type =
        kind < 10
            ? KvEvent.BLOCK_STORED
            : kind < 16
                ? KvEvent.BLOCK_REMOVED
                : kind < 17
                    ? KvEvent.ALL_BLOCKS_CLEARED
                    : random.nextBoolean() ? "BlockInactive" : "Future_Event2";
    boolean asArray = random.nextBoolean();
    Map<String, Object> values = new LinkedHashMap<>(); // wire values by field name
    Map<String, Object> kept = new LinkedHashMap<>(); // expected values by field name
    int blocks = 1 + random.nextInt(8);
    if (!type.equals(KvEvent.ALL_BLOCKS_CLEARED)) {
      List<Object> hashes = new ArrayList<>();
      List<String> hex = new ArrayList<>();
      for (int i = 0; i < blocks; i++) {
        hash(hashes, hex);
      }
      values.put("block_hashes", hashes);
      kept.put("block_hashes", hex);
      maybe(values, kept, "medium", oneOf("GPU", "CPU", "STORAGE", "CPU_TIER1"), null);
      maybe(values, kept, "group_idx", random.nextInt(4), null);
      maybe(values, kept, "locality", oneOf("LOCAL", "REMOTE"), null);
    }
    if (type.equals(KvEvent.BLOCK_STORED) || type.equals("BlockInactive")) {
      if (random.nextBoolean()) {
        List<Object> parent = new ArrayList<>();
        List<String> parentHex = new ArrayList<>();
        hash(parent, parentHex);
        values.put("parent_block_hash", parent.get(0));
        kept.put("parent_block_hash", parentHex.get(0));
      } else {
        values.put("parent_block_hash", null);
      }
      int tokens = random.nextInt(5) == 0 ? 0 : blocks * 16;
      values.put("token_ids", Msgpack.tokens(tokens, random.nextInt(100_000)));
      kept.put("token_count", tokens);
      maybe(values, kept, "block_size", 16, null);
      maybe(values, kept, "lora_id", 1 + random.nextInt(5), null);
      maybe(values, kept, "lora_name", "adapter-" + random.nextInt(3), null);
      if (random.nextBoolean()) {
        List<Object> extra = new ArrayList<>();
        ArrayNode extraJson = JSON.arrayNode();
        for (int i = 0; i < blocks; i++) {
          if (random.nextBoolean()) {
            extra.add(null);
            extraJson.addNull();
          } else {
            byte[] digest = bytes(32);
            extra.add(Msgpack.list("lora-x", Msgpack.list("mm-hash", i), digest));
            ArrayNode tuple = JSON.arrayNode();
            tuple.add("lora-x");
            tuple.add(JSON.arrayNode().add("mm-hash").add(i));
            tuple.add(HexFormat.of().formatHex(digest));
            extraJson.add(tuple);
          }
        }
        values.put("extra_keys", extra);
        kept.put("extra_keys", extraJson);
      } else {
        values.put("extra_keys", null);
      }
      maybe(values, kept, "kv_cache_spec_kind", oneOf("full_attention", "sliding_window"), null);
      maybe(values, kept, "kv_cache_spec_sliding_window", 4096, null);
      if (!asArray) {
        maybe(values, kept, "session_id", "session-" + random.nextInt(100), null);
      }
    }
    boolean known = !type.equals("BlockInactive") && !type.equals("Future_Event2");
    if (asArray) {
      List<Object> array = new ArrayList<>();
      array.add(type);
      List<String> order =
          type.equals(KvEvent.BLOCK_STORED)
              ? STORED_FIELDS
              : type.equals(KvEvent.BLOCK_REMOVED) ? REMOVED_FIELDS : List.of();
      int length =
          type.equals(KvEvent.BLOCK_STORED)
              ? STORED_LENGTHS[random.nextInt(STORED_LENGTHS.length)]
              : type.equals(KvEvent.BLOCK_REMOVED)
                  ? REMOVED_LENGTHS[random.nextInt(REMOVED_LENGTHS.length)]
                  : 1 + random.nextInt(3);
      for (int position = 1; position < length; position++) {
        String name = position - 1 < order.size() ? order.get(position - 1) : null;
        array.add(name == null ? Msgpack.list(position) : values.get(name));
      }
      if (length - 1 >= order.size() && random.nextInt(5) == 0) {
        array.add("a-later-positional-field"); // a field added after the ones known here
      }
      events.add(array);
      // What the decoder keeps: the fields inside the array's length, none for an unknown tag.
      Map<String, Object> inRange = new LinkedHashMap<>();
      if (known) {
        for (int position = 1; position < length && position - 1 < order.size(); position++) {
          String name = order.get(position - 1);
          String keptName = name.equals("token_ids") ? "token_count" : name;
          if (kept.containsKey(keptName)) {
            inRange.put(keptName, kept.get(keptName));
          }
        }
      }
      expected.add(toEvent(type, inRange));
    } else {
      List<Object[]> entries = new ArrayList<>();
      values.forEach(
          (name, value) -> {
            // msgspec omit_defaults: fields whose default is None are left out when None
            boolean omittable = !name.equals("block_hashes") && !name.equals("token_ids");
            if (value != null || !omittable || random.nextBoolean()) {
              entries.add(new Object[] {name, value});
            }
          });
      if (random.nextInt(3) == 0) {
        entries.add(new Object[] {"ownership", "tier-" + random.nextInt(3)});
      }
      Map<Object, Object> map = new LinkedHashMap<>();
      if (random.nextInt(4) == 0) {
        Collections.shuffle(entries, random); // "type" anywhere, not first
        entries.add(random.nextInt(entries.size() + 1), new Object[] {"type", type});
      } else {
        map.put("type", type);
        Collections.shuffle(entries, random);
      }
      entries.forEach(e -> map.put(e[0], e[1]));
      events.add(map);
      expected.add(toEvent(type, kept));
    }
  }

  private static KvEvent toEvent(String type, Map<String, Object> f) {
    @SuppressWarnings("unchecked")
    List<String> hashes = (List<String>) f.get("block_hashes");
    return new KvEvent(
        type,
        hashes,
        (String) f.get("parent_block_hash"),
        (Integer) f.get("token_count"),
        (Integer) f.get("block_size"),
        f.get("lora_id") == null ? null : ((Integer) f.get("lora_id")).longValue(),
        (String) f.get("lora_name"),
        (String) f.get("medium"),
        (Integer) f.get("group_idx"),
        (String) f.get("kv_cache_spec_kind"),
        (Integer) f.get("kv_cache_spec_sliding_window"),
        (String) f.get("locality"),
        (String) f.get("session_id"),
        (JsonNode) f.get("extra_keys"));
  }

  /** A field present with {@code value} or nil (then absent in the record). */
  private void maybe(
      Map<String, Object> values, Map<String, Object> kept, String name, Object value, Object nil) {
    if (random.nextBoolean()) {
      values.put(name, value);
      kept.put(name, value);
    } else {
      values.put(name, nil);
    }
  }

  /** One hash in one of vLLM's three forms, and its expected hex. */
  private void hash(List<Object> wire, List<String> hex) {
    switch (random.nextInt(4)) {
      case 0, 1 -> {
        BigInteger unsigned = new BigInteger(64, random); // half of them above Long.MAX_VALUE
        wire.add(unsigned);
        hex.add(String.format("%016x", unsigned));
      }
      case 2 -> {
        long signed = random.nextLong() | Long.MIN_VALUE; // builtin hashing: negative int64
        wire.add(signed);
        hex.add(String.format("%016x", signed));
      }
      default -> {
        byte[] digest = bytes(random.nextBoolean() ? 32 : 16);
        wire.add(digest);
        hex.add(HexFormat.of().formatHex(digest));
      }
    }
  }

  private byte[] bytes(int n) {
    byte[] bytes = new byte[n];
    random.nextBytes(bytes);
    return bytes;
  }

  private String oneOf(String... values) {
    return values[random.nextInt(values.length)];
  }

  /** A random msgpack value of any type, nested at most {@code depth} deep. */
  Object randomValue(int depth) {
    switch (random.nextInt(depth > 0 ? 11 : 8)) {
      case 0:
        return null;
      case 1:
        return random.nextBoolean();
      case 2:
        return (long) random.nextInt(200) - 100;
      case 3:
        return new BigInteger(64, random);
      case 4:
        return random.nextDouble() * (random.nextBoolean() ? -1e10 : 1e10);
      case 5:
        return random.nextBoolean() ? "BlockStored" : "x" + random.nextInt(10);
      case 6:
        return bytes(random.nextInt(9));
      case 7:
        return new Msgpack.Raw(new byte[] {(byte) 0xd4, 1, 2}); // fixext1
      case 8:
      case 9:
        {
          List<Object> list = new ArrayList<>();
          for (int i = random.nextInt(4); i > 0; i--) {
            list.add(randomValue(depth - 1));
          }
          return list;
        }
      default:
        {
          Map<Object, Object> map = new LinkedHashMap<>();
          for (int i = random.nextInt(4); i > 0; i--) {
            map.put(random.nextBoolean() ? "type" : randomValue(0), randomValue(depth - 1));
          }
          return map;
        }
    }
  }

  /**
   * A copy of {@code tree} with one node (anywhere: the batch, an event, a field, an element)
   * replaced by a random value: the wrong-type mutations.
   */
  Object replaceOneNode(Object tree) {
    List<Object[]> slots = new ArrayList<>(); // {container, key or index}
    collect(tree, slots);
    Object copy = deepCopy(tree);
    if (slots.isEmpty()) {
      return randomValue(2);
    }
    List<Object[]> copySlots = new ArrayList<>();
    collect(copy, copySlots);
    Object[] slot = copySlots.get(random.nextInt(copySlots.size()));
    Object replacement = randomValue(2);
    if (slot[0] instanceof List<?> list) {
      @SuppressWarnings("unchecked")
      List<Object> l = (List<Object>) list;
      l.set((Integer) slot[1], replacement);
    } else {
      @SuppressWarnings("unchecked")
      Map<Object, Object> m = (Map<Object, Object>) slot[0];
      m.put(slot[1], replacement);
    }
    return copy;
  }

  private static void collect(Object node, List<Object[]> slots) {
    if (node instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        slots.add(new Object[] {list, i});
        collect(list.get(i), slots);
      }
    } else if (node instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        slots.add(new Object[] {map, entry.getKey()});
        collect(entry.getValue(), slots);
      }
    }
  }

  private static Object deepCopy(Object node) {
    if (node instanceof List<?> list) {
      List<Object> copy = new ArrayList<>(list.size());
      list.forEach(e -> copy.add(deepCopy(e)));
      return copy;
    }
    if (node instanceof Map<?, ?> map) {
      Map<Object, Object> copy = new LinkedHashMap<>();
      map.forEach((k, v) -> copy.put(k, deepCopy(v)));
      return copy;
    }
    return node;
  }
}
