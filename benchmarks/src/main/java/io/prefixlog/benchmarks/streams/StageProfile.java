package io.prefixlog.benchmarks.streams;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.luben.zstd.Zstd;
import io.prefixlog.core.delta.DeltaRecords;
import io.prefixlog.core.delta.EncodedTurn;
import io.prefixlog.core.delta.EncoderSettings;
import io.prefixlog.core.delta.PrefixFingerprint;
import io.prefixlog.core.delta.SessionState;
import io.prefixlog.core.delta.SessionStateCodec;
import io.prefixlog.core.delta.TurnEncoder;
import io.prefixlog.core.request.RawEventValidator;
import io.prefixlog.core.request.ValidatedRequest;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.RawRequestEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompactionStyle;
import org.rocksdb.CompressionType;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * The session-delta processor's work per record, taken apart and timed in this JVM without Kafka,
 * over the same events in the same order: what {@code SessionDeltaProcessor.process} does, stage by
 * stage, with its state in memory; then the same replay with the two stores in RocksDB opened with
 * Kafka Streams' own defaults ({@code RocksDBStore.openDB} in 4.3.1: 16 MiB × 3 write buffers, 50
 * MiB LRU block cache, 4 KiB blocks, Bloom filter, universal compaction, no compression, WAL off),
 * once as is and once with {@link BlobDbConfigSetter}, timing only the store calls.
 *
 * <p>Some stages repeat part of another to take it apart: parse + bind + decode + SHA-256 are the
 * pieces of validate; fingerprint is the part of encode that reads the whole body once. The zstd
 * rows are what the producer's compression costs for one record alone (Kafka's zstd level 3);
 * inside a batch the cost per byte is about the same.
 */
final class StageProfile {
  /** The stage rows, in the order they are printed. */
  enum Stage {
    VALIDATE("RawEventValidator.validate (all of validation)"),
    PARSE("  of which readTree (JSON parse of the ~24 KB event)"),
    BIND("  of which treeToValue (tree → RawRequestEvent)"),
    DECODE("  of which body String → UTF-8 bytes"),
    SHA("  of which SHA-256 of the body"),
    SINGLE_PASS("idea: readValue(bytes, RawRequestEvent) in one pass"),
    STATE_DECODE("SessionStateCodec.decode"),
    ENCODE("TurnEncoder.encode (candidates, DeltaEncoder)"),
    FINGERPRINT("  of which PrefixFingerprint.of (one pass over the body)"),
    STATE_ENCODE("SessionStateCodec.encode"),
    RECORD_JSON("DeltaRecords.of + JsonSerde.toBytes (delta record)"),
    ZSTD_DELTA("zstd -3 of the delta record (sink, prefixlog)"),
    ZSTD_BODY("zstd -3 of the body (session-bases changelog)"),
    ZSTD_RAW("zstd -3 of the raw event (pass-through sink)");

    private final String label;

    Stage(String label) {
      this.label = label;
    }

    String label() {
      return label;
    }
  }

  /** Per stage, µs per record: the median over the measured passes, and their min and max. */
  record Timing(Stage stage, double median, double min, double max) {}

  /**
   * The store calls of one replay over RocksDB.
   *
   * @param foregroundMicros µs per record inside get/put/delete on this thread
   * @param backgroundMicros µs per record of CPU on other threads of the JVM meanwhile (RocksDB's
   *     flush and compaction threads, mostly; GC and JIT too)
   * @param opsPerRecord store calls per record
   * @param dbBytes bytes on disk at the end (SST and blob files)
   */
  record StoreTiming(
      String label,
      double foregroundMicros,
      double backgroundMicros,
      double opsPerRecord,
      long dbBytes) {}

  /**
   * @param deltaRecords delta records built (= events)
   * @param deltaBytes their JSON bytes
   * @param keyframes keyframe records among them
   */
  record Result(
      List<Timing> stages,
      List<StoreTiming> stores,
      long deltaRecords,
      long deltaBytes,
      long keyframes,
      int passes) {}

  private static final JsonSerde<DeltaRecord> DELTA_SERDE = JsonSerde.of(DeltaRecord.class);
  private static final int ZSTD_LEVEL = 3;

  private final List<SyntheticSessions.Event> events;
  private final EncoderSettings settings;
  private final long maxBodyBytes;

  StageProfile(List<SyntheticSessions.Event> events, EncoderSettings settings, long maxBodyBytes) {
    this.events = List.copyOf(events);
    this.settings = settings;
    this.maxBodyBytes = maxBodyBytes;
  }

  Result run(int warmups, int passes, Path tmp) {
    long[][] perPass = new long[passes][];
    PassStats stats = null;
    for (int i = 0; i < warmups + passes; i++) {
      long[] nanos = new long[Stage.values().length];
      stats = memoryPass(nanos);
      if (i >= warmups) {
        perPass[i - warmups] = nanos;
      }
    }
    List<Timing> timings = new ArrayList<>();
    for (Stage stage : Stage.values()) {
      double[] micros = new double[passes];
      for (int p = 0; p < passes; p++) {
        micros[p] = perPass[p][stage.ordinal()] / 1e3 / events.size();
      }
      Arrays.sort(micros);
      timings.add(new Timing(stage, micros[passes / 2], micros[0], micros[passes - 1]));
    }
    List<StoreTiming> stores = new ArrayList<>();
    stores.add(rocksPass("RocksDB, Kafka Streams defaults", false, tmp.resolve("rocks-default")));
    stores.add(rocksPass("RocksDB + BlobDbConfigSetter", true, tmp.resolve("rocks-blob")));
    return new Result(timings, stores, stats.records, stats.deltaBytes, stats.keyframes, passes);
  }

  private record PassStats(long records, long deltaBytes, long keyframes) {}

  private PassStats memoryPass(long[] ns) {
    TurnEncoder encoder = new TurnEncoder(settings);
    RawEventValidator validator = new RawEventValidator(maxBodyBytes);
    Map<String, byte[]> states = new HashMap<>();
    Map<String, byte[]> bases = new HashMap<>();
    long deltaBytes = 0;
    long keyframes = 0;
    long now = 1_795_000_000_000L;
    try {
      for (SyntheticSessions.Event event : events) {
        byte[] value = event.value();
        long t0 = System.nanoTime();
        JsonNode tree = Json.mapper().readTree(value);
        long t1 = System.nanoTime();
        RawRequestEvent parsed = Json.mapper().treeToValue(tree, RawRequestEvent.class);
        long t2 = System.nanoTime();
        byte[] decoded = parsed.body().getBytes(StandardCharsets.UTF_8);
        long t3 = System.nanoTime();
        String digest = Sha256.hex(decoded);
        long t4 = System.nanoTime();
        RawEventValidator.Outcome outcome = validator.validate(event.key(), value);
        long t5 = System.nanoTime();
        RawRequestEvent single = Json.mapper().readValue(value, RawRequestEvent.class);
        long t6 = System.nanoTime();
        add(ns, Stage.PARSE, t1 - t0);
        add(ns, Stage.BIND, t2 - t1);
        add(ns, Stage.DECODE, t3 - t2);
        add(ns, Stage.SHA, t4 - t3);
        add(ns, Stage.VALIDATE, t5 - t4);
        add(ns, Stage.SINGLE_PASS, t6 - t5);
        if (outcome.rejected() != null || !digest.equals(single.bodySha256())) {
          throw new IllegalStateException("a generated event was rejected: " + outcome.rejected());
        }
        ValidatedRequest request = outcome.accepted();
        String session = request.event().sessionKey();

        long s0 = System.nanoTime();
        byte[] stored = states.get(session);
        SessionState state =
            stored == null ? SessionState.newChain("0a1b2c3d") : SessionStateCodec.decode(stored);
        long s1 = System.nanoTime();
        EncodedTurn turn =
            encoder.encode(
                state,
                request.body(),
                request.event().bodySha256(),
                request.utf8(),
                seq -> bases.get(baseKey(session, seq)),
                now++);
        long s2 = System.nanoTime();
        long[] fingerprint = PrefixFingerprint.of(request.body());
        long s3 = System.nanoTime();
        if (turn.storeBody()) {
          bases.put(baseKey(session, turn.seq()), request.body());
        }
        for (long evicted : turn.evictedSeqs()) {
          bases.remove(baseKey(session, evicted));
        }
        long s4 = System.nanoTime();
        states.put(session, SessionStateCodec.encode(turn.newState()));
        long s5 = System.nanoTime();
        byte[] delta = DELTA_SERDE.toBytes(DeltaRecords.of(request.event(), turn));
        long s6 = System.nanoTime();
        byte[] zDelta = Zstd.compress(delta, ZSTD_LEVEL);
        long s7 = System.nanoTime();
        byte[] zBody = Zstd.compress(request.body(), ZSTD_LEVEL);
        long s8 = System.nanoTime();
        byte[] zRaw = Zstd.compress(value, ZSTD_LEVEL);
        long s9 = System.nanoTime();
        add(ns, Stage.STATE_DECODE, s1 - s0);
        add(ns, Stage.ENCODE, s2 - s1);
        add(ns, Stage.FINGERPRINT, s3 - s2);
        add(ns, Stage.STATE_ENCODE, s5 - s4);
        add(ns, Stage.RECORD_JSON, s6 - s5);
        add(ns, Stage.ZSTD_DELTA, s7 - s6);
        add(ns, Stage.ZSTD_BODY, s8 - s7);
        add(ns, Stage.ZSTD_RAW, s9 - s8);
        deltaBytes += delta.length;
        keyframes += turn.isKeyframe() ? 1 : 0;
        if (fingerprint.length == 0 || zDelta.length + zBody.length + zRaw.length == 0) {
          throw new IllegalStateException("empty fingerprint or compressed output");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("a generated event did not parse", e);
    }
    return new PassStats(events.size(), deltaBytes, keyframes);
  }

  /** The processor's store calls against two RocksDB instances; times only the calls. */
  private StoreTiming rocksPass(String label, boolean blob, Path dir) {
    RocksDB.loadLibrary();
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    TurnEncoder encoder = new TurnEncoder(settings);
    RawEventValidator validator = new RawEventValidator(maxBodyBytes);
    long[] storeNanos = new long[1];
    long ops = 0;
    long now = 1_795_000_000_000L;
    long dbBytes;
    long processBefore;
    long threadBefore;
    long processAfter;
    long threadAfter;
    try (Store states = Store.open(dir.resolve("session-state"), blob);
        Store bases = Store.open(dir.resolve("session-bases"), blob)) {
      processBefore = os.getProcessCpuTime();
      threadBefore = threads.getCurrentThreadCpuTime();
      for (SyntheticSessions.Event event : events) {
        ValidatedRequest request = validator.validate(event.key(), event.value()).accepted();
        String session = request.event().sessionKey();
        long t0 = System.nanoTime();
        byte[] stored = states.get(session);
        storeNanos[0] += System.nanoTime() - t0;
        ops++;
        SessionState state =
            stored == null ? SessionState.newChain("0a1b2c3d") : SessionStateCodec.decode(stored);
        long[] loads = new long[1];
        EncodedTurn turn =
            encoder.encode(
                state,
                request.body(),
                request.event().bodySha256(),
                request.utf8(),
                seq -> {
                  long g = System.nanoTime();
                  byte[] body = bases.get(baseKey(session, seq));
                  storeNanos[0] += System.nanoTime() - g;
                  loads[0]++;
                  return body;
                },
                now++);
        ops += loads[0];
        byte[] newState = SessionStateCodec.encode(turn.newState());
        long t1 = System.nanoTime();
        if (turn.storeBody()) {
          bases.put(baseKey(session, turn.seq()), request.body());
          ops++;
        }
        for (long evicted : turn.evictedSeqs()) {
          bases.delete(baseKey(session, evicted));
          ops++;
        }
        states.put(session, newState);
        ops++;
        storeNanos[0] += System.nanoTime() - t1;
      }
      threadAfter = threads.getCurrentThreadCpuTime();
      processAfter = os.getProcessCpuTime();
      dbBytes = sizeOf(dir);
    }
    ThroughputRun.deleteRecursively(dir);
    double n = events.size();
    long background = (processAfter - processBefore) - (threadAfter - threadBefore);
    return new StoreTiming(
        label, storeNanos[0] / 1e3 / n, Math.max(0, background) / 1e3 / n, ops / n, dbBytes);
  }

  static String baseKey(String session, long seq) {
    return session + "/" + seq; // as SessionStores.baseKey
  }

  private static void add(long[] ns, Stage stage, long nanos) {
    ns[stage.ordinal()] += nanos;
  }

  private static long sizeOf(Path dir) {
    try (var paths = Files.walk(dir)) {
      return paths.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot size " + dir, e);
    }
  }

  /** One RocksDB instance opened as Kafka Streams' RocksDBStore opens it; String keys as UTF-8. */
  private static final class Store implements AutoCloseable {
    private static final long WRITE_BUFFER_BYTES = 16L << 20;
    private static final long BLOCK_CACHE_BYTES = 50L << 20;
    private static final long BLOCK_BYTES = 4096;
    private static final int MAX_WRITE_BUFFERS = 3;

    private final LRUCache cache;
    private final BloomFilter filter;
    private final Options options;
    private final WriteOptions writeOptions;
    private final RocksDB db;

    private Store(
        LRUCache cache,
        BloomFilter filter,
        Options options,
        WriteOptions writeOptions,
        RocksDB db) {
      this.cache = cache;
      this.filter = filter;
      this.options = options;
      this.writeOptions = writeOptions;
      this.db = db;
    }

    static Store open(Path dir, boolean blob) {
      LRUCache cache = new LRUCache(BLOCK_CACHE_BYTES);
      BloomFilter filter = new BloomFilter();
      BlockBasedTableConfig table = new BlockBasedTableConfig();
      table.setBlockCache(cache);
      table.setBlockSize(BLOCK_BYTES);
      table.setFilterPolicy(filter);
      Options options = new Options();
      options.setOptimizeFiltersForHits(true);
      options.setTableFormatConfig(table);
      options.setWriteBufferSize(WRITE_BUFFER_BYTES);
      options.setCompressionType(CompressionType.NO_COMPRESSION);
      options.setCompactionStyle(CompactionStyle.UNIVERSAL);
      options.setMaxWriteBufferNumber(MAX_WRITE_BUFFERS);
      options.setCreateIfMissing(true);
      options.setErrorIfExists(false);
      options.setInfoLogLevel(InfoLogLevel.ERROR_LEVEL);
      options.setIncreaseParallelism(Math.max(Runtime.getRuntime().availableProcessors(), 2));
      if (blob) {
        BlobDbConfigSetter.apply(options);
      }
      WriteOptions writeOptions = new WriteOptions();
      writeOptions.setDisableWAL(true);
      try {
        Files.createDirectories(dir);
        return new Store(
            cache, filter, options, writeOptions, RocksDB.open(options, dir.toString()));
      } catch (IOException | RocksDBException e) {
        writeOptions.close();
        options.close();
        filter.close();
        cache.close();
        throw new IllegalStateException("cannot open RocksDB in " + dir + ": " + e, e);
      }
    }

    byte[] get(String key) {
      try {
        return db.get(key.getBytes(StandardCharsets.UTF_8));
      } catch (RocksDBException e) {
        throw new IllegalStateException("RocksDB get failed: " + e, e);
      }
    }

    void put(String key, byte[] value) {
      try {
        db.put(writeOptions, key.getBytes(StandardCharsets.UTF_8), value);
      } catch (RocksDBException e) {
        throw new IllegalStateException("RocksDB put failed: " + e, e);
      }
    }

    void delete(String key) {
      try {
        db.delete(writeOptions, key.getBytes(StandardCharsets.UTF_8));
      } catch (RocksDBException e) {
        throw new IllegalStateException("RocksDB delete failed: " + e, e);
      }
    }

    @Override
    public void close() {
      db.close();
      writeOptions.close();
      options.close();
      filter.close();
      cache.close();
    }
  }
}
