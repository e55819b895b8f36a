package io.prefixlog.benchmarks.streams;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

/**
 * What one run executes. Every variant gets {@code StreamApp.streamsProperties} of its
 * configuration, so apart from the topology and the settings named here they are identical.
 *
 * <p>A, B and C are the measurement docs/design.md#performance-targets asks for. D to K are ideas
 * for making the stream app faster that need no change to its code: settings, and one what-if
 * topology (E). L is a second reference: what the routing step that prefixlog's state sits behind
 * costs by itself.
 */
enum Variant {
  /** prefixlog's real topology through {@code StreamApp}: validate, encode, two stores, deltas. */
  PREFIXLOG("A", "prefixlog", Topology.PREFIXLOG, Map.of()),
  /** Source → sink, the raw value unchanged. */
  PASS_THROUGH("B", "pass-through", Topology.PASS_THROUGH, Map.of()),
  /** Pass-through plus one logged RocksDB store that puts every value (the anchor's store case). */
  STORE("C", "pass+store", Topology.STORE, Map.of()),
  /** A with {@link BlobDbConfigSetter} (BlobDB + LZ4) on its stores. */
  PREFIXLOG_BLOB(
      "D",
      "A+BlobDB/LZ4 stores",
      Topology.PREFIXLOG,
      Map.of("PREFIXLOG_KAFKA_ROCKSDB_CONFIG_SETTER", BlobDbConfigSetter.class.getName())),
  /**
   * What-if: A's processor with {@code session-bases} not logged ({@link WhatIfTopology}). The
   * bases are a cache of bodies the deltas topic already holds; a base lost on restore makes the
   * encoder write a keyframe, never a wrong delta.
   */
  PREFIXLOG_UNLOGGED_BASES("E", "A, bases unlogged", Topology.PREFIXLOG_UNLOGGED_BASES, Map.of()),
  /** A with lz4 instead of zstd for everything the app produces. */
  PREFIXLOG_LZ4(
      "F",
      "A+producer lz4",
      Topology.PREFIXLOG,
      Map.of("PREFIXLOG_KAFKA_PRODUCER_COMPRESSION_TYPE", "lz4")),
  /** A with 1 MiB producer batches (16 KiB by default: every 20 KB body is a batch of its own). */
  PREFIXLOG_BIG_BATCHES(
      "G",
      "A+1 MiB batches",
      Topology.PREFIXLOG,
      Map.of("PREFIXLOG_KAFKA_PRODUCER_BATCH_SIZE", Integer.toString(1 << 20))),
  /** A with a 1 s commit interval (100 ms by default with exactly-once). */
  PREFIXLOG_COMMIT_1S(
      "H", "A+commit 1 s", Topology.PREFIXLOG, Map.of("PREFIXLOG_COMMIT_INTERVAL", "1s")),
  /** E, F and G together. */
  PREFIXLOG_COMBINED(
      "I",
      "E+F+G",
      Topology.PREFIXLOG_UNLOGGED_BASES,
      Map.of(
          "PREFIXLOG_KAFKA_PRODUCER_COMPRESSION_TYPE",
          "lz4",
          "PREFIXLOG_KAFKA_PRODUCER_BATCH_SIZE",
          Integer.toString(1 << 20))),
  /** E and G together (zstd kept). */
  PREFIXLOG_UNLOGGED_BIG_BATCHES(
      "J",
      "E+G",
      Topology.PREFIXLOG_UNLOGGED_BASES,
      Map.of("PREFIXLOG_KAFKA_PRODUCER_BATCH_SIZE", Integer.toString(1 << 20))),
  /** F and G together (bases logged). */
  PREFIXLOG_LZ4_BIG_BATCHES(
      "K",
      "F+G",
      Topology.PREFIXLOG,
      Map.of(
          "PREFIXLOG_KAFKA_PRODUCER_COMPRESSION_TYPE",
          "lz4",
          "PREFIXLOG_KAFKA_PRODUCER_BATCH_SIZE",
          Integer.toString(1 << 20))),
  /**
   * A reference, not an idea: B with the raw events first routed through a repartition topic of
   * prefixlog's fixed partition count, as prefixlog's topology routes them. It is the floor of any
   * topology that keeps session state behind that step; its ratio to B is the part of
   * pass-through's rate that the routing alone leaves.
   */
  ROUTED_PASS_THROUGH("L", "routed pass-through", Topology.ROUTED_PASS_THROUGH, Map.of());

  /** Which topology a variant runs. */
  enum Topology {
    PREFIXLOG,
    PASS_THROUGH,
    STORE,
    PREFIXLOG_UNLOGGED_BASES,
    ROUTED_PASS_THROUGH
  }

  private final String code;
  private final String label;
  private final Topology topology;
  private final Map<String, String> settings;

  Variant(String code, String label, Topology topology, Map<String, String> settings) {
    this.code = code;
    this.label = label;
    this.topology = topology;
    this.settings = settings;
  }

  String code() {
    return code;
  }

  String label() {
    return label;
  }

  Topology topology() {
    return topology;
  }

  /** Extra stream-app settings, by environment-variable name. */
  Map<String, String> settings() {
    return settings;
  }

  /** Whether it writes prefixlog's outputs (deltas and dead letters). */
  boolean isPrefixlog() {
    return topology == Topology.PREFIXLOG || topology == Topology.PREFIXLOG_UNLOGGED_BASES;
  }

  static Variant ofCode(String code) {
    return Arrays.stream(values())
        .filter(v -> v.code.equals(code.trim().toUpperCase(Locale.ROOT)))
        .findFirst()
        .orElseThrow(
            () -> new IllegalArgumentException("unknown variant " + code + " (expected A to L)"));
  }
}
