package io.prefixlog.benchmarks.streams;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.benchmarks.harness.Benchmark;
import io.prefixlog.benchmarks.harness.Machine;
import io.prefixlog.benchmarks.harness.Medians;
import io.prefixlog.benchmarks.harness.ScratchDirs;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.core.delta.SessionStateCodec;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.core.session.SessionKey;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.session.SessionStores;
import io.prefixlog.streams.topology.PrefixlogTopology;
import io.prefixlog.tools.replay.ReplayEvents;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * What one run of the eviction punctuator costs with many sessions and few of them due: the real
 * topology in {@code TopologyTestDriver}, {@code --sessions} sessions of which {@code --due} expire
 * per punctuation. Each round adds the due sessions (last seen before the TTL), then one record
 * moves stream time a minute on and the punctuation runs inside its {@code pipeInput}. Printed next
 * to two references from the same run: the same record without a punctuation, and a scan that
 * decodes every session state, which is what the punctuator did before it had {@code
 * session-idle-index}.
 */
public final class EvictionBenchmark {
  private static final Benchmark BENCHMARK =
      new Benchmark(
          "EvictionBenchmark",
          "The eviction punctuator's cost with many sessions and few due, against a full scan of the"
              + " session states in the same run.",
          List.of(
              Option.value("sessions", "N", "100000", "Sessions in the task's state."),
              Option.value("due", "K", "100", "Sessions that expire per punctuation."),
              Option.value(
                  "rounds", "R", "7", "Punctuations measured (at most 9: one TTL of time).")));
  private static final JsonSerde<RawRequestEvent> SERDE = JsonSerde.of(RawRequestEvent.class);
  private static final long MINUTE = 60_000;

  private record Settings(int sessions, int due, int rounds) {
    static Settings of(CommandLine line) throws io.prefixlog.cli.UsageException {
      return new Settings(
          (int) line.longValue("sessions", 100_000, 10),
          (int) line.longValue("due", 100, 1),
          (int) Math.min(9, line.longValue("rounds", 7, 1)));
    }
  }

  private int requests;

  private EvictionBenchmark() {}

  public static void main(String[] args) throws Exception {
    BENCHMARK.main(
        args, Settings::of, settings -> new EvictionBenchmark().run(settings, System.out));
  }

  private int run(Settings settings, PrintStream out) throws Exception {
    out.println(BENCHMARK.title());
    Machine.header(out);
    Path dir = Files.createTempDirectory("prefixlog-eviction-bench");
    StreamAppConfig config =
        StreamAppConfig.defaults(
            Map.of(
                "PREFIXLOG_STATE_DIR", dir.toString(),
                "PREFIXLOG_SESSION_TTL", "10m",
                "PREFIXLOG_EVICTION_INTERVAL", "1m",
                "PREFIXLOG_CHUNK_LOOKUPS_ENABLED", "false",
                "PREFIXLOG_KV_INDEX_ENABLED", "false"));
    StreamAppMetrics metrics = new StreamAppMetrics(new SimpleMeterRegistry());
    long t0 = 1_795_000_000_000L;
    try (TopologyTestDriver driver =
        new TopologyTestDriver(
            PrefixlogTopology.build(config, metrics),
            StreamApp.streamsProperties(config, metrics))) {
      TestInputTopic<String, byte[]> raw =
          driver.createInputTopic(
              config.topics().requestsRaw().name(),
              new StringSerializer(),
              new ByteArraySerializer());
      long streamTime = t0 + 20 * MINUTE;
      long started = System.nanoTime();
      for (int i = 0; i < settings.sessions(); i++) {
        send(raw, "live-" + i, streamTime);
      }
      out.printf(
          Locale.ROOT,
          "%,d sessions (last seen at the same time, not due for 10 min) in %.1f s%n",
          settings.sessions(),
          (System.nanoTime() - started) / 1e9);
      KeyValueStore<String, byte[]> states = driver.getKeyValueStore(SessionStores.STATE);
      double[] punctuation = new double[settings.rounds()];
      double[] quiet = new double[settings.rounds()];
      double[] scan = new double[settings.rounds()];
      for (int r = 0; r < settings.rounds(); r++) {
        for (int i = 0; i < settings.due(); i++) {
          send(raw, "due-" + r + "-" + i, t0); // last seen 20+ minutes ago: past the TTL
        }
        long q = System.nanoTime();
        send(raw, "tick", streamTime); // same stream time: no punctuation
        quiet[r] = (System.nanoTime() - q) / 1e3;
        streamTime += MINUTE + 1;
        long p = System.nanoTime();
        send(raw, "tick", streamTime); // a minute on: the punctuation runs in this call
        punctuation[r] = (System.nanoTime() - p) / 1e3;
        long s = System.nanoTime();
        int decoded = 0;
        try (KeyValueIterator<String, byte[]> all = states.all()) {
          while (all.hasNext()) {
            SessionStateCodec.decode(all.next().value); // what the old punctuator did per state
            decoded++;
          }
        }
        scan[r] = (System.nanoTime() - s) / 1e3;
        if (decoded < settings.sessions()) {
          throw new IllegalStateException("scan saw " + decoded + " states");
        }
      }
      double evicted = Meters.count(metrics.registry(), "prefixlog_sessions_evicted_total");
      out.printf(
          Locale.ROOT,
          "%d punctuations, %d due sessions each; evicted in all: %.0f (expected %d)%n",
          settings.rounds(),
          settings.due(),
          evicted,
          (long) settings.rounds() * settings.due());
      out.printf(
          Locale.ROOT,
          "record with a punctuation (evicts %d of %,d):   %,10.0f µs (median)%n"
              + "same record, no punctuation:                 %,10.0f µs%n"
              + "reference: decode every state (the old scan): %,10.0f µs%n"
              + "punctuation's own cost / the old scan:        %10.3f×%n",
          settings.due(),
          settings.sessions() + settings.rounds() * settings.due(),
          Medians.of(punctuation),
          Medians.of(quiet),
          Medians.of(scan),
          (Medians.of(punctuation) - Medians.of(quiet)) / Medians.of(scan));
      Machine.footer(out);
      return evicted == (double) settings.rounds() * settings.due() ? 0 : 1;
    } finally {
      ScratchDirs.deleteRecursively(dir);
    }
  }

  private void send(TestInputTopic<String, byte[]> raw, String name, long timestamp) {
    String session = Sha256.hex(name.getBytes(StandardCharsets.UTF_8)).substring(0, 32);
    byte[] body =
        ("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"" + name + "\"}]}")
            .getBytes(StandardCharsets.UTF_8);
    RawRequestEvent event =
        ReplayEvents.chatCompletion(
            "req-" + (++requests),
            timestamp,
            new SessionKey(session, "header:x-session-id"),
            "127.0.0.1",
            "bench/1",
            Map.of(),
            "m",
            body,
            null);
    raw.pipeInput(session, SERDE.toBytes(event), timestamp);
  }
}
