package io.prefixlog.tools.analyze;

import io.prefixlog.analysis.mrc.LookupRequest;
import io.prefixlog.core.chunk.LookupChains;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The lookups read from every input, with what could not be used.
 *
 * <p>Files are logs: every line is a lookup, as in LMCache's simulator. The topic is compacted by
 * key ({@code session_key/chain/seq}, {@code request_id} in older records): a later record of a key
 * replaces the earlier one and a tombstone removes it, as compaction would ({@link #addKeyed}).
 *
 * <p>Version 2 records that list only the hashes after those shared with the previous turn of their
 * chain are resolved here, in the order they are read ({@link LookupChains}), before anything else
 * looks at them; one that cannot be resolved is counted by reason ({@link #resolution()}) and left
 * out, never analysed as if its tail were its whole list.
 *
 * <p>{@link #requests()} orders the lookups by timestamp (ties keep input order, as LMCache's
 * stable sort does) and names each one's cache: its model, or, when one model has records in both
 * units (LMCache's token chunks and prefixlog's byte chunks), the model and the unit, since such
 * caches cannot be one.
 */
final class Trace {
  /** Bad lines listed in the report; the count is always complete. */
  static final int PROBLEMS_SHOWN = 20;

  /** The name under which lookups without {@code model_name} are reported. */
  static final String NO_MODEL = "(no model)";

  private final String modelFilter;
  private final LookupChains<long[]> chains;
  private final List<Lookup> lookups = new ArrayList<>();
  private final Map<String, Integer> byKey = new HashMap<>();
  private final List<String> problems = new ArrayList<>();
  private long problemCount;
  private long records;
  private long v2Records;
  private long lmcacheRecords;
  private long sampledOut;
  private long blank;
  private long filteredOut;
  private long tombstones;
  private long replaced;

  /** The memory bound on the chains' lists when none is given: 256 MiB, 32 M hashes. */
  static final long DEFAULT_CHAIN_BYTES = 256L << 20;

  /**
   * @param modelFilter keep only lookups of this {@code model_name}; null keeps all
   */
  Trace(String modelFilter) {
    this(modelFilter, DEFAULT_CHAIN_BYTES);
  }

  /**
   * @param modelFilter keep only lookups of this {@code model_name}; null keeps all
   * @param chainBytes the memory bound on the chains' lists that version 2 records are resolved
   *     from
   */
  Trace(String modelFilter, long chainBytes) {
    this.modelFilter = modelFilter;
    this.chains = new LookupChains<>(LookupChains.LONGS, chainBytes);
  }

  /** A whole lookup of a log: always a new one. */
  void add(Lookup lookup) {
    accept(new LookupParser.Parsed(Optional.of(lookup), null, false, 0, false));
  }

  /**
   * A record of a compacted topic: replaces an earlier record of {@code key}.
   *
   * @param lookup the whole record, or null for a tombstone
   */
  void addKeyed(String key, Lookup lookup) {
    accept(new LookupParser.Parsed(Optional.ofNullable(lookup), key, lookup == null, 0, false));
  }

  /**
   * One parsed line or record, in the order read: a blank line, a tombstone, or a record, with its
   * key when the input has keys (a topic, a kcat {@code -J} dump). Without a key, a version 2
   * record that refers to its previous turn cannot be resolved; with one, the latest record of a
   * key wins.
   */
  void accept(LookupParser.Parsed parsed) {
    if (parsed.tombstone()) {
      chains.tombstone(parsed.key());
      removeKey(parsed.key());
      tombstones++;
      return;
    }
    if (parsed.lookup().isEmpty()) {
      blank++;
      return;
    }
    Lookup lookup = resolve(parsed);
    if (parsed.key() == null) {
      if (lookup != null) {
        keep(lookup);
      }
      return;
    }
    removeKey(parsed.key());
    if (lookup == null) {
      return;
    }
    int before = lookups.size();
    keep(lookup);
    if (lookups.size() > before) {
      byKey.put(parsed.key(), before);
    }
  }

  /** An earlier record of {@code key}, if any, is replaced. */
  private void removeKey(String key) {
    Integer earlier = key == null ? null : byKey.remove(key);
    if (earlier != null) {
      lookups.set(earlier, null);
      replaced++;
    }
  }

  /** The record's whole lookup, or null when it could not be resolved; counts it either way. */
  private Lookup resolve(LookupParser.Parsed parsed) {
    Lookup listed = parsed.lookup().orElseThrow();
    records++;
    if (parsed.v2()) {
      v2Records++;
    }
    LookupChains.Outcome<long[]> outcome =
        chains.accept(parsed.key(), !listed.sampledOut(), parsed.prefixChunks(), listed.keys());
    if (outcome instanceof LookupChains.Resolved<long[]> resolved) {
      return resolved.joined() ? listed.withKeys(resolved.hashes()) : listed;
    }
    return null;
  }

  private void keep(Lookup lookup) {
    if (lookup.lmcache()) {
      lmcacheRecords++;
    }
    if (lookup.sampledOut()) {
      sampledOut++;
    }
    if (modelFilter != null && !modelFilter.equals(lookup.model())) {
      filteredOut++;
      return;
    }
    lookups.add(lookup);
  }

  /** A line or record that is not a lookup: counted, and listed up to {@link #PROBLEMS_SHOWN}. */
  void bad(String location, String reason) {
    problemCount++;
    if (problems.size() < PROBLEMS_SHOWN) {
      problems.add(location + ": " + reason);
    }
  }

  long records() {
    return records;
  }

  /** Version 2 records read ({@code schema_version} 2), resolved or not. */
  long v2Records() {
    return v2Records;
  }

  /** How the version 2 records were resolved: joined, skipped by reason, chains let go. */
  LookupChains.Stats resolution() {
    return chains.stats();
  }

  /**
   * Hash-only lookups of requests whose bodies capture sampling left out: analysed like every other
   * (their hashes are the bridge's), counted so the report can say how much traffic they are. A
   * record later replaced under its key still counts, as the record count does.
   */
  long sampledOut() {
    return sampledOut;
  }

  long lmcacheRecords() {
    return lmcacheRecords;
  }

  long blankLines() {
    return blank;
  }

  long filteredOut() {
    return filteredOut;
  }

  long tombstones() {
    return tombstones;
  }

  /** Topic records replaced by a later record of the same key. */
  long replaced() {
    return replaced;
  }

  long problemCount() {
    return problemCount;
  }

  /** The first {@link #PROBLEMS_SHOWN} problems, {@code location: reason}. */
  List<String> problems() {
    return List.copyOf(problems);
  }

  /** The lookups kept, in timestamp order (stable). */
  List<Lookup> sorted() {
    List<Lookup> kept = new ArrayList<>(lookups.size());
    for (Lookup lookup : lookups) {
      if (lookup != null) {
        kept.add(lookup);
      }
    }
    kept.sort(Comparator.comparingDouble(Lookup::timestamp));
    return kept;
  }

  /** The caches (models) of the lookups kept, by name: see {@link Trace}. */
  Map<String, CacheInfo> caches() {
    Map<String, Map<Lookup.ChunkUnit, CacheInfo.Builder>> byModel = new TreeMap<>();
    for (Lookup lookup : lookups) {
      if (lookup != null) {
        byModel
            .computeIfAbsent(lookup.model(), m -> new LinkedHashMap<>())
            .computeIfAbsent(lookup.unit(), u -> new CacheInfo.Builder(u))
            .add(lookup);
      }
    }
    Map<String, CacheInfo> caches = new TreeMap<>();
    byModel.forEach(
        (model, units) ->
            units.forEach(
                (unit, builder) ->
                    caches.put(cacheName(model, unit, units.size() > 1), builder.build(model))));
    return caches;
  }

  /** The engine's requests, in timestamp order, each under its cache's name. */
  List<LookupRequest> requests() {
    java.util.function.Function<Lookup, String> cache = cacheNamer();
    List<LookupRequest> requests = new ArrayList<>();
    for (Lookup lookup : sorted()) {
      requests.add(lookup.request(cache.apply(lookup)));
    }
    return requests;
  }

  /** Names the cache of a lookup: see {@link Trace}. */
  java.util.function.Function<Lookup, String> cacheNamer() {
    Map<String, java.util.EnumSet<Lookup.ChunkUnit>> units = new HashMap<>();
    for (Lookup lookup : lookups) {
      if (lookup != null) {
        units
            .computeIfAbsent(lookup.model(), m -> java.util.EnumSet.noneOf(Lookup.ChunkUnit.class))
            .add(lookup.unit());
      }
    }
    Map<String, String> plain = new HashMap<>();
    return lookup -> {
      if (units.get(lookup.model()).size() > 1) {
        return cacheName(lookup.model(), lookup.unit(), true);
      }
      return plain.computeIfAbsent(lookup.model(), m -> cacheName(m, lookup.unit(), false));
    };
  }

  static String cacheName(String model, Lookup.ChunkUnit unit, boolean withUnit) {
    String name = model.isEmpty() ? NO_MODEL : model;
    return withUnit ? name + " [" + unit.wireName() + "]" : name;
  }
}
