package io.prefixlog.benchmarks.proxy;

import io.prefixlog.benchmarks.harness.Machine;
import io.prefixlog.benchmarks.harness.Medians;
import io.prefixlog.bridge.proxy.CaptureProxy;
import io.prefixlog.bridge.proxy.ProxyConfig;
import io.prefixlog.embedded.KafkaBroker;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The capture proxy's Kafka producer alone, as its publisher drives it: every {@code interval} ms a
 * burst of records (a ~21 KB raw event each, ProxyBenchmark's chat body inside, unique ids) is
 * sent, at ProxyBenchmark's ~195 events/s, to a real broker (child JVM). Per event: the CPU and the
 * allocated bytes of the sending thread inside {@code send()} and of the producer's network thread
 * ({@code ThreadMXBean}), for the proxy's producer settings and variants of them. Quicker to
 * iterate on than ProxyBenchmark, and free of the event loops' noise; ProxyBenchmark confirms.
 *
 * <p>{@code ProducerCostBenchmark [seconds per measurement] [passes] [variant ...]}, a variant
 * {@code name:interval=<ms>,<producer setting>=<value>,...} ({@code base:} alone is the proxy's
 * settings and 50 ms).
 */
public final class ProducerCostBenchmark {
  private ProducerCostBenchmark() {}

  record Variant(String name, long intervalMillis, Map<String, String> settings) {
    static Variant parse(String text) {
      int colon = text.indexOf(':');
      String name = text.substring(0, colon);
      long interval = 50;
      Map<String, String> settings = new LinkedHashMap<>();
      for (String kv : text.substring(colon + 1).split(",")) {
        if (kv.isBlank()) {
          continue;
        }
        String[] p = kv.split("=", 2);
        if (p[0].equals("interval")) {
          interval = Long.parseLong(p[1]);
        } else {
          settings.put(p[0], p[1]);
        }
      }
      return new Variant(name, interval, settings);
    }
  }

  record Figures(
      double sendCpuMicros, double netCpuMicros, double sendAllocKiB, double netAllocKiB) {}

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
    int passes = args.length > 1 ? Integer.parseInt(args[1]) : 2;
    List<Variant> variants = new ArrayList<>();
    for (int i = 2; i < args.length; i++) {
      variants.add(Variant.parse(args[i]));
    }
    if (variants.isEmpty()) {
      variants.add(Variant.parse("base:"));
    }
    Machine.header(System.out);
    Path dir = Files.createTempDirectory("prefixlog-producer-cost");
    try (KafkaBroker broker =
        KafkaBroker.start(KafkaBroker.Options.defaults(dir.resolve("kafka")).withBrokerPort(0))) {
      Map<String, List<Figures>> results = new LinkedHashMap<>();
      int topic = 0;
      for (int pass = 0; pass < passes; pass++) {
        for (Variant v : variants) {
          String name = "cost." + topic++;
          Properties admin = new Properties();
          admin.put("bootstrap.servers", broker.bootstrapServers());
          try (Admin a = Admin.create(admin)) {
            a.createTopics(List.of(new NewTopic(name, 1, (short) 1))).all().get();
          }
          Figures f = measure(broker.bootstrapServers(), name, v, seconds);
          results.computeIfAbsent(v.name(), k -> new ArrayList<>()).add(f);
          System.out.printf(
              Locale.ROOT,
              "pass %d %-14s send() %5.1f µs, network thread %5.1f µs per event;"
                  + " allocated send() %6.1f KiB, network thread %5.1f KiB per event%n",
              pass + 1,
              v.name(),
              f.sendCpuMicros(),
              f.netCpuMicros(),
              f.sendAllocKiB(),
              f.netAllocKiB());
        }
      }
      System.out.println();
      System.out.println(
          "variant        | send() µs | network µs | together µs | send() KiB | network KiB  (medians"
              + " over passes)");
      for (var e : results.entrySet()) {
        List<Figures> fs = e.getValue();
        double s = Medians.of(fs.stream().map(Figures::sendCpuMicros).toList());
        double n = Medians.of(fs.stream().map(Figures::netCpuMicros).toList());
        System.out.printf(
            Locale.ROOT,
            "%-14s | %9.1f | %10.1f | %11.1f | %10.1f | %11.1f%n",
            e.getKey(),
            s,
            n,
            s + n,
            Medians.of(fs.stream().map(Figures::sendAllocKiB).toList()),
            Medians.of(fs.stream().map(Figures::netAllocKiB).toList()));
      }
    }
    Machine.footer(System.out);
  }

  private static Figures measure(String bootstrap, String topic, Variant v, int seconds)
      throws Exception {
    ProxyConfig config = ProxyConfig.defaults(URI.create("http://127.0.0.1:1"), bootstrap);
    Map<String, Object> props = new HashMap<>(CaptureProxy.producerProperties(config));
    props.putAll(v.settings());
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    AtomicLong acked = new AtomicLong();
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(props)) {
      long net = networkThread(producer);
      // ~195 events/s as in ProxyBenchmark: the burst of one interval.
      double perMilli = 0.195;
      long sent = 0;
      long start = System.nanoTime();
      long warmupEnd = start + 8_000_000_000L;
      long end = warmupEnd + seconds * 1_000_000_000L;
      long sendCpu = 0;
      long sendAlloc = 0;
      long measured = 0;
      long netCpu0 = -1;
      long netAlloc0 = -1;
      long self = Thread.currentThread().getId();
      while (true) {
        long now = System.nanoTime();
        if (now >= end) {
          break;
        }
        boolean measuring = now >= warmupEnd;
        if (measuring && netCpu0 < 0) {
          netCpu0 = threads.getThreadCpuTime(net);
          netAlloc0 = threads.getThreadAllocatedBytes(net);
        }
        long due = (long) ((now - start) / 1e6 * perMilli);
        List<byte[]> values = new ArrayList<>();
        for (long k = sent; k < due; k++) {
          values.add(event(k));
        }
        long cpu0 = threads.getCurrentThreadCpuTime();
        long alloc0 = threads.getThreadAllocatedBytes(self);
        long burst = 0;
        for (byte[] value : values) {
          producer.send(
              new ProducerRecord<>(topic, "s-" + (sent % 50) + "-0123456789abcdef", value),
              (metadata, e) -> acked.incrementAndGet());
          sent++;
          burst++;
        }
        if (measuring) {
          sendCpu += threads.getCurrentThreadCpuTime() - cpu0;
          sendAlloc += threads.getThreadAllocatedBytes(self) - alloc0;
          measured += burst;
        }
        Thread.sleep(Math.max(1, v.intervalMillis()));
      }
      long netCpu = threads.getThreadCpuTime(net) - netCpu0;
      long netAlloc = threads.getThreadAllocatedBytes(net) - netAlloc0;
      return new Figures(
          sendCpu / 1e3 / measured,
          netCpu / 1e3 / measured,
          sendAlloc / 1024.0 / measured,
          netAlloc / 1024.0 / measured);
    }
  }

  private static long networkThread(KafkaProducer<?, ?> producer) {
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("kafka-producer-network-thread")) {
        return t.getId();
      }
    }
    throw new IllegalStateException("no producer network thread");
  }

  private static final byte[] ESCAPED_BODY =
      new String(ChatBody.of(20 * 1024), StandardCharsets.US_ASCII)
          .replace("\"", "\\\"")
          .getBytes(StandardCharsets.US_ASCII);
  private static final String HEAD =
      "{\"schema_version\":1,\"request_id\":\"%s\",\"ts\":%d,\"session_key\":\"s-%d\","
          + "\"session_key_source\":\"header\",\"client_addr\":\"127.0.0.1\",\"user_agent\":\"wrk\","
          + "\"method\":\"POST\",\"path\":\"/v1/chat/completions\",\"model\":\"prefixlog-demo\","
          + "\"body\":\"";

  /** A raw event as the proxy writes it (the body's quotes escaped), with a unique id. */
  static byte[] event(long n) {
    byte[] head =
        String.format(
                Locale.ROOT, HEAD, java.util.UUID.randomUUID(), System.currentTimeMillis(), n % 50)
            .getBytes(StandardCharsets.US_ASCII);
    byte[] body = ESCAPED_BODY;
    byte[] tail =
        ("\",\"body_encoding\":\"utf8\",\"body_len\":20480,\"body_sha256\":\""
                + "0".repeat(64)
                + "\",\"response\":{\"status\":200,\"latency_ms\":50.123}}")
            .getBytes(StandardCharsets.US_ASCII);
    byte[] out = new byte[head.length + body.length + tail.length];
    System.arraycopy(head, 0, out, 0, head.length);
    System.arraycopy(body, 0, out, head.length, body.length);
    System.arraycopy(tail, 0, out, head.length + body.length, tail.length);
    return out;
  }
}
