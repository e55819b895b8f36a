package io.prefixlog.benchmarks.streams;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.benchmarks.harness.DriverTopics;
import io.prefixlog.benchmarks.harness.Medians;
import io.prefixlog.benchmarks.harness.ScratchDirs;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.topology.PrefixlogTopology;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;

/**
 * The stream app's real topology ({@link PrefixlogTopology#build}, with {@link
 * StreamApp#streamsProperties}), driven in this JVM by Kafka Streams' {@link TopologyTestDriver}:
 * the real processors, Serdes and RocksDB stores, without a broker. It times what {@link
 * StageProfile}'s stages add up to, so that the stage rows (the pieces, timed apart) can be read
 * against the whole as the app runs it.
 *
 * <p>The driver runs a repartition in-process and keeps outputs and changelogs in memory, so the
 * figure is the processing, the stores and the Serdes, not the network or the broker's work.
 */
final class ProcessorPass {
  /**
   * One run over all events.
   *
   * @param micros µs per record on this thread, inside {@code pipeInput}
   * @param otherThreadsMicros µs per record of CPU on other threads meanwhile (RocksDB's flush and
   *     compaction threads, GC, JIT)
   * @param deltas delta records the run emitted (must equal the events)
   * @param stateBytes bytes in the state directory at the end (RocksDB's files)
   */
  record Timing(
      String label, double micros, double otherThreadsMicros, long deltas, long stateBytes) {}

  /**
   * What one run configures.
   *
   * @param settings stream-app settings over the defaults (by environment-variable name)
   * @param streamsOverrides Kafka Streams settings over the app's ({@code rocksdb.config.setter})
   */
  record Configuration(
      String label, Map<String, String> settings, Map<String, Object> streamsOverrides) {}

  private ProcessorPass() {}

  /** The medians of several runs of one configuration, field by field. */
  static Timing median(List<Timing> runs) {
    return new Timing(
        runs.get(0).label(),
        Medians.of(runs.stream().mapToDouble(Timing::micros).toArray()),
        Medians.of(runs.stream().mapToDouble(Timing::otherThreadsMicros).toArray()),
        runs.stream().mapToLong(Timing::deltas).min().orElse(0),
        (long) Medians.of(runs.stream().mapToDouble(Timing::stateBytes).toArray()));
  }

  /** Pipes {@code events} through the real topology once, state in a fresh {@code stateDir}. */
  static Timing run(
      Configuration configuration, List<SyntheticSessions.Event> events, Path stateDir) {
    String label = configuration.label();
    Map<String, String> all = new HashMap<>(configuration.settings());
    all.put("PREFIXLOG_STATE_DIR", stateDir.toString());
    StreamAppConfig config = StreamAppConfig.defaults(all);
    StreamAppMetrics metrics = new StreamAppMetrics(new SimpleMeterRegistry());
    Properties properties = StreamApp.streamsProperties(config, metrics);
    properties.putAll(configuration.streamsOverrides());
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long deltas;
    long stateBytes;
    long inPipe = 0;
    long threadBefore;
    long threadAfter;
    long processBefore;
    long processAfter;
    try (TopologyTestDriver driver =
        new TopologyTestDriver(PrefixlogTopology.build(config, metrics), properties)) {
      TestInputTopic<String, byte[]> input = DriverTopics.rawInput(driver, config);
      TestOutputTopic<String, byte[]> output =
          DriverTopics.output(driver, config.topics().sessionDeltas());
      processBefore = os.getProcessCpuTime();
      threadBefore = threads.getCurrentThreadCpuTime();
      for (SyntheticSessions.Event event : events) {
        long t0 = System.nanoTime();
        input.pipeInput(event.key(), event.value());
        inPipe += System.nanoTime() - t0;
      }
      threadAfter = threads.getCurrentThreadCpuTime();
      processAfter = os.getProcessCpuTime();
      deltas = output.getQueueSize();
      stateBytes = sizeOf(stateDir);
    }
    ScratchDirs.deleteRecursively(stateDir);
    double n = events.size();
    long otherThreads = (processAfter - processBefore) - (threadAfter - threadBefore);
    return new Timing(
        label, inPipe / 1e3 / n, Math.max(0, otherThreads) / 1e3 / n, deltas, stateBytes);
  }

  /** Streams settings that make the stores use {@link BlobDbConfigSetter}. */
  static Map<String, Object> blobDb() {
    return Map.of(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, BlobDbConfigSetter.class);
  }

  private static long sizeOf(Path dir) {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (var paths = Files.walk(dir)) {
      return paths.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot size " + dir, e);
    }
  }
}
