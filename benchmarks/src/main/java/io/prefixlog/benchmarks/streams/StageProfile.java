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
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The session-delta processor's work per record, in this JVM without a broker, over the same events
 * in the same order. First the pieces it calls (the real validator, state codec, encoder and record
 * Serde), timed apart stage by stage with the state in memory; then the whole: the real topology
 * driven by {@link ProcessorPass} (Kafka Streams' {@code TopologyTestDriver}, the real processors
 * and RocksDB stores), with Kafka Streams' RocksDB defaults and with {@link BlobDbConfigSetter}.
 * The stage rows say where the time goes; the processor rows say what it adds up to as the app runs
 * it.
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
   * @param deltaRecords delta records built (= events)
   * @param deltaBytes their JSON bytes
   * @param keyframes keyframe records among them
   */
  record Result(
      List<Timing> stages,
      List<ProcessorPass.Timing> processor,
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
    // The whole, as the app runs it: each configuration once to warm up, then the measured passes
    // interleaved (configuration by configuration within a pass, so that JIT warm-up and a busy
    // neighbour weigh on all of them alike), medians per configuration.
    Map<String, String> deltasOnly =
        Map.of("PREFIXLOG_CHUNK_LOOKUPS_ENABLED", "false", "PREFIXLOG_KV_INDEX_ENABLED", "false");
    Map<String, String> deltasOnlyStreamsDefaults =
        Map.of(
            "PREFIXLOG_CHUNK_LOOKUPS_ENABLED", "false",
            "PREFIXLOG_KV_INDEX_ENABLED", "false",
            "PREFIXLOG_ROCKSDB_MEMORY", "0");
    List<ProcessorPass.Configuration> configurations =
        List.of(
            new ProcessorPass.Configuration(
                "session deltas only, the app's RocksDB (one shared memory budget)",
                deltasOnly,
                Map.of()),
            new ProcessorPass.Configuration(
                "session deltas only, Kafka Streams' RocksDB defaults",
                deltasOnlyStreamsDefaults,
                Map.of()),
            new ProcessorPass.Configuration(
                "session deltas only, + BlobDbConfigSetter", deltasOnly, ProcessorPass.blobDb()),
            new ProcessorPass.Configuration(
                "the whole topology (+ chunk lookups, KV index)", Map.of(), Map.of()));
    List<List<ProcessorPass.Timing>> runs = new ArrayList<>();
    for (ProcessorPass.Configuration c : configurations) {
      runs.add(new ArrayList<>());
    }
    for (int pass = -1; pass < passes; pass++) {
      for (int c = 0; c < configurations.size(); c++) {
        ProcessorPass.Timing t =
            ProcessorPass.run(configurations.get(c), events, tmp.resolve("processor-" + c));
        if (pass >= 0) {
          runs.get(c).add(t);
        }
      }
    }
    List<ProcessorPass.Timing> processor = runs.stream().map(ProcessorPass::median).toList();
    for (ProcessorPass.Timing t : processor) {
      if (t.deltas() != events.size()) {
        throw new IllegalStateException(
            t.label() + ": " + t.deltas() + " deltas for " + events.size() + " events");
      }
    }
    return new Result(timings, processor, stats.records, stats.deltaBytes, stats.keyframes, passes);
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
            encoder.encode(state, request, seq -> bases.get(baseKey(session, seq)), now++);
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

  static String baseKey(String session, long seq) {
    return session + "/" + seq; // as SessionStores.baseKey
  }

  private static void add(long[] ns, Stage stage, long nanos) {
    ns[stage.ordinal()] += nanos;
  }
}
