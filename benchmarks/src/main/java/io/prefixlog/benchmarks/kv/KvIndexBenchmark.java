package io.prefixlog.benchmarks.kv;

import io.prefixlog.benchmarks.harness.Benchmark;
import io.prefixlog.benchmarks.harness.Machine;
import io.prefixlog.benchmarks.harness.Medians;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.UsageException;
import io.prefixlog.core.kv.DecodeResult;
import io.prefixlog.core.kv.DecodedBatch;
import io.prefixlog.core.kv.KvBatchDecoder;
import io.prefixlog.core.kv.KvSource;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.embedded.KafkaBroker;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.kv.KvEventBatch;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.admin.TopicCreator;
import io.prefixlog.tools.topic.CompactedView;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.Value;

/**
 * KV events per second through prefixlog's two stages, next to msgpack-core's generic decode of the
 * same payloads ({@code MessageUnpacker.unpackValue}, a tree of values without any meaning given to
 * them) in the same run:
 *
 * <ul>
 *   <li><b>subscriber decode</b>: the bridge's per-batch work on a payload — {@code
 *       KvBatchDecoder.decode} (every field checked, hashes to hex, token ids counted) and the
 *       {@code kv.events} JSON the producer sends;
 *   <li><b>block index</b>: the stream app itself ({@code StreamApp}: exactly-once v2, one stream
 *       thread, RocksDB stores with changelogs, the JSON of every entry and tombstone) on a real
 *       single-node broker (a child process), reading those JSON records from {@code kv.events}
 *       (produced before it starts); a fresh application id and state directory per round; timed
 *       from the first batch applied to the last, start-up left out.
 * </ul>
 *
 * <p>Workload: {@link KvWorkload}. Rounds interleave the three stages (the broker idles during the
 * first two); medians over rounds, after one warm-up round. The run fails (exit 1) unless the index
 * ends with exactly the blocks the workload's cache holds.
 *
 * <pre>{@code
 * java -cp benchmarks/target/classes:$(cat benchmarks/target/classpath.txt) \
 *     io.prefixlog.benchmarks.kv.KvIndexBenchmark [--batches 5000] [--rounds 5]
 * }</pre>
 */
public final class KvIndexBenchmark {
  private static final KvSource SOURCE = KvSource.of("tcp://127.0.0.1:5557", 0, "");
  private static final JsonSerde<KvEventBatch> JSON = JsonSerde.of(KvEventBatch.class);

  private static final Benchmark BENCHMARK =
      new Benchmark(
          "KvIndexBenchmark",
          "vLLM KV-event batches through msgpack decoding, the JSON record and the stream app's block"
              + " index, against the raw msgpack decode; medians of interleaved rounds.",
          List.of(
              Option.value("batches", "N", "5000", "KV event batches in the workload."),
              Option.value("rounds", "R", "5", "Measured rounds (after one warm-up round).")));

  private KvIndexBenchmark() {}

  /** The command line's values. */
  private record Settings(int batches, int rounds) {
    static Settings of(CommandLine line) throws UsageException {
      return new Settings(
          (int) line.longValue("batches", 5_000, 1), (int) line.longValue("rounds", 5, 1));
    }
  }

  public static void main(String[] args) throws Exception {
    BENCHMARK.main(args, Settings::of, KvIndexBenchmark::run);
  }

  /** Runs the benchmark; returns 1 when the index does not hold what the workload stored. */
  private static int run(Settings settings) throws Exception {
    int batches = settings.batches();
    int rounds = settings.rounds();
    KvWorkload workload = new KvWorkload(batches, 42);
    List<byte[]> records = new ArrayList<>();
    long seq = 0;
    for (byte[] payload : workload.payloads) {
      records.add(JSON.toBytes(decoded(payload, seq++)));
    }
    System.out.printf(
        Locale.ROOT,
        "KvIndexBenchmark: %d batches, %d events (%.1f per batch), %d blocks stored, %d removed,"
            + " %.1f MB of msgpack%n",
        workload.payloads.size(),
        workload.events,
        (double) workload.events / workload.payloads.size(),
        workload.blocksStored,
        workload.blocksRemoved,
        workload.bytes / 1e6);
    Machine.header(System.out);

    double[][] seconds = new double[3][rounds];
    long check = 0;
    Path dir = Files.createTempDirectory("kv-index-bench");
    long indexed;
    try (KafkaBroker broker =
        KafkaBroker.start(KafkaBroker.Options.defaults(dir.resolve("kafka")).withBrokerPort(0))) {
      String bootstrap = broker.bootstrapServers();
      produce(bootstrap, dir, records);
      for (int r = -1; r < rounds; r++) {
        long t0 = System.nanoTime();
        check += rawMsgpack(workload.payloads);
        long t1 = System.nanoTime();
        check += subscriberDecode(workload.payloads);
        long t2 = System.nanoTime();
        long index = blockIndex(bootstrap, dir, r + 1, records.size());
        if (r >= 0) {
          seconds[0][r] = (t1 - t0) / 1e9;
          seconds[1][r] = (t2 - t1) / 1e9;
          seconds[2][r] = index / 1e9;
        }
      }
      indexed = indexEntries(bootstrap);
    } finally {
      try (Stream<Path> paths = Files.walk(dir)) {
        for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
    String[] names = {
      "msgpack-core unpackValue (reference)",
      "subscriber decode + JSON",
      "block index (Kafka Streams, EOS)"
    };
    double reference = workload.events / Medians.of(seconds[0]);
    System.out.printf(
        Locale.ROOT,
        "%-38s %14s %22s %14s %8s%n",
        "stage",
        "events/s",
        "(min-max over rounds)",
        "blocks/s",
        "vs ref");
    for (int v = 0; v < 3; v++) {
      double[] s = seconds[v].clone();
      Arrays.sort(s);
      double rate = workload.events / Medians.of(seconds[v]);
      System.out.printf(
          Locale.ROOT,
          "%-38s %,14.0f %,10.0f-%,-11.0f %,14.0f %7.3fx%n",
          names[v],
          rate,
          workload.events / s[s.length - 1],
          workload.events / s[0],
          (workload.blocksStored + workload.blocksRemoved) / Medians.of(seconds[v]),
          rate / reference);
    }
    System.out.printf(
        Locale.ROOT,
        "index check: %d entries at the end, the workload's cache holds %d: %s (checksum %d)%n",
        indexed,
        workload.resident,
        indexed == workload.resident ? "OK" : "MISMATCH",
        check);
    return indexed == workload.resident ? 0 : 1;
  }

  private static KvEventBatch decoded(byte[] payload, long seq) {
    DecodeResult result = KvBatchDecoder.decode(payload, SOURCE, seq, 1_750_000_000_000L + seq);
    if (result instanceof DecodedBatch batch) {
      return batch.batch();
    }
    throw new IllegalStateException("the workload does not decode: " + result);
  }

  private static long rawMsgpack(List<byte[]> payloads) throws IOException {
    long sink = 0;
    for (byte[] payload : payloads) {
      try (MessageUnpacker unpacker = MessagePack.newDefaultUnpacker(payload)) {
        Value value = unpacker.unpackValue();
        sink += value.asArrayValue().size();
      }
    }
    return sink;
  }

  private static long subscriberDecode(List<byte[]> payloads) {
    long sink = 0;
    long seq = 0;
    for (byte[] payload : payloads) {
      sink += JSON.toBytes(decoded(payload, seq++)).length;
    }
    return sink;
  }

  /**
   * The stream app (exactly-once v2, RocksDB, one stream thread) with a fresh application id and
   * state directory over the whole {@code kv.events} topic, produced before it starts: nanoseconds
   * from its first batch applied to its last (start-up, rebalance and store opening left out).
   */
  private static long blockIndex(String bootstrap, Path dir, int round, int batches)
      throws InterruptedException, IOException {
    Map<String, String> settings = settings(bootstrap, dir);
    settings.put("PREFIXLOG_APPLICATION_ID", "kv-index-bench-" + round);
    settings.put("PREFIXLOG_STATE_DIR", dir.resolve("state-" + round).toString());
    StreamAppConfig config = StreamAppConfig.defaults(settings);
    try (StreamApp app = new StreamApp(config)) {
      app.start();
      LongSupplier applied =
          () ->
              Meters.count(
                  app.metrics().registry(), "prefixlog_kv_index_batches_total", "kind", "batch");
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
      while (applied.getAsLong() == 0) {
        check(deadline, app);
        Thread.sleep(1);
      }
      long first = System.nanoTime();
      long firstCount = applied.getAsLong();
      while (applied.getAsLong() < batches) {
        check(deadline, app);
        Thread.sleep(1);
      }
      long elapsed = System.nanoTime() - first;
      // Scaled to all batches: the first poll already saw firstCount of them applied.
      return elapsed * batches / Math.max(1, batches - firstCount + 1);
    }
  }

  private static void check(long deadline, StreamApp app) {
    if (System.nanoTime() > deadline || app.state() == KafkaStreams.State.ERROR) {
      throw new IllegalStateException("the stream app did not apply every batch: " + app.state());
    }
  }

  private static Map<String, String> settings(String bootstrap, Path dir) {
    Map<String, String> settings = new HashMap<>();
    settings.put("PREFIXLOG_BOOTSTRAP_SERVERS", bootstrap);
    settings.put("PREFIXLOG_METRICS_PORT", "-1");
    settings.put("PREFIXLOG_PARTITIONS", "1");
    settings.put("PREFIXLOG_CHUNK_LOOKUPS_ENABLED", "false");
    settings.put("PREFIXLOG_STATE_DIR", dir.resolve("state").toString());
    return settings;
  }

  /** Creates the topics and produces the records to {@code kv.events}, keyed by source. */
  private static void produce(String bootstrap, Path dir, List<byte[]> records)
      throws InterruptedException, java.util.concurrent.ExecutionException {
    StreamAppConfig config = StreamAppConfig.defaults(settings(bootstrap, dir));
    Properties admin = new Properties();
    admin.put("bootstrap.servers", bootstrap);
    try (Admin client = Admin.create(admin)) {
      TopicCreator.createMissing(client, config, java.time.Duration.ofSeconds(60));
    }
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd");
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, 1 << 20);
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
      for (byte[] record : records) {
        producer.send(new ProducerRecord<>(config.topics().kvEvents().name(), SOURCE.id(), record));
      }
      producer.flush();
    }
  }

  /** Entries of the compacted block index now. */
  private static long indexEntries(String bootstrap) throws Exception {
    return CompactedView.read(bootstrap, "prefixlog.kv.block-index", "kv-index-bench").size();
  }
}
