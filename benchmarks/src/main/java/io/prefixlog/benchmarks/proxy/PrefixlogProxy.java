package io.prefixlog.benchmarks.proxy;

import io.prefixlog.embedded.ChildProcess;
import io.prefixlog.embedded.KafkaBroker;
import io.prefixlog.schemas.Topics;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * prefixlog's CaptureProxy in a child JVM ({@link ProxyChild}) publishing to a real broker: the raw
 * topic is created first (the stream app's job in a deployment; it is not running here, the
 * benchmark measures the request path).
 */
final class PrefixlogProxy implements AutoCloseable {
  static final String TOPIC_PREFIX = "bench.";

  /** In a cold-start variant's flags: the java launcher of the proxy's JVM. */
  static final String JAVA_OPTION = "--java=";

  /**
   * In a cold-start variant's flags: class directories or jars put before the proxy's class path,
   * so that the variant runs other builds of some classes, e.g. a frozen copy of another branch's
   * {@code ingest-bridge/target/classes} to compare its warm-up with this one in the same rounds.
   */
  static final String CLASSPATH_PREFIX_OPTION = "--classpath-prefix=";

  /**
   * The bridge image's JVM options: docker-compose.yml's default for the ingest-bridge service's
   * {@code JAVA_OPTS} ({@code BRIDGE_JAVA_OPTS}), which {@code PrefixlogProxyTest} checks against
   * the file, so that the benchmark's proxy runs what ships.
   */
  static final String IMAGE_JAVA_OPTS =
      "-XX:+UseSerialGC -XX:MaxRAMPercentage=75 -XX:InitialRAMPercentage=75"
          + " -XX:MaxHeapFreeRatio=100 -XX:NewRatio=1 -XX:+AlwaysPreTouch"
          + " -XX:+ExitOnOutOfMemoryError -XX:ThreadPriorityPolicy=1"
          + " -XX:JavaPriority6_To_OSPriority=0 -XX:JavaPriority7_To_OSPriority=0"
          + " -XX:JavaPriority8_To_OSPriority=0 -XX:JavaPriority9_To_OSPriority=0"
          + " -XX:JavaPriority10_To_OSPriority=0 -XX:CompilerThreadPriority=9";

  /**
   * Stands for the container's memory limit, from which the image's percentages size the heap: a
   * container of 2 GiB, docker-compose.yml's default {@code BRIDGE_MEMORY_LIMIT}. Without it the
   * JVM would size the heap from this machine's memory.
   */
  static final String CONTAINER_MEMORY = "-XX:MaxRAM=2g";

  /** The proxy JVM's flags: the image's, in a container of {@link #CONTAINER_MEMORY}. */
  static final List<String> JVM_FLAGS = imageFlags();

  private static List<String> imageFlags() {
    List<String> flags = new java.util.ArrayList<>(List.of(IMAGE_JAVA_OPTS.split(" ")));
    flags.add(CONTAINER_MEMORY);
    return List.copyOf(flags);
  }

  /**
   * {@link #JVM_FLAGS}, then any from the system property {@code prefixlog.bench.proxyJvmFlags}
   * (space-separated): how a profile of the proxy is taken, e.g. {@code
   * -XX:StartFlightRecording=filename=proxy.jfr,settings=profile}.
   */
  static List<String> jvmFlags() {
    return jvmFlags(List.of());
  }

  /**
   * {@link #jvmFlags()} and then {@code variant}'s (a variant's, such as a collector, a heap size
   * or a class-data archive). The JVM takes the last of a flag given twice, and {@code -Xms}/{@code
   * -Xmx} over the image's percentages, so a variant overrides by giving its own; {@code
   * -XX:ThreadPriorityPolicy=0} turns the priorities off. Only a collector cannot be overridden
   * (two {@code -XX:+Use…GC} make the JVM refuse to start): a variant that names one replaces the
   * image's and its young-generation sizing, which belongs to that collector.
   */
  static List<String> jvmFlags(List<String> variant) {
    List<String> flags = new java.util.ArrayList<>(JVM_FLAGS);
    String extra = System.getProperty("prefixlog.bench.proxyJvmFlags", "").trim();
    if (!extra.isEmpty()) {
      flags.addAll(List.of(extra.split("\\s+")));
    }
    if (variant.stream().anyMatch(PrefixlogProxy::isCollector)) {
      flags.removeIf(f -> isCollector(f) || isYoungSizing(f));
    }
    flags.addAll(variant);
    return flags;
  }

  private static boolean isCollector(String flag) {
    return flag.startsWith("-XX:+Use") && flag.endsWith("GC");
  }

  private static boolean isYoungSizing(String flag) {
    return flag.startsWith("-Xmn")
        || flag.startsWith("-XX:NewRatio=")
        || flag.startsWith("-XX:NewSize=")
        || flag.startsWith("-XX:MaxNewSize=");
  }

  private final ChildProcess child;
  private final int port;
  private final int metricsPort;
  private final String bootstrap;
  private final String topic;
  private final Path jvmLog;

  private PrefixlogProxy(
      ChildProcess child, int port, int metricsPort, String bootstrap, String topic, Path jvmLog) {
    this.child = child;
    this.port = port;
    this.metricsPort = metricsPort;
    this.bootstrap = bootstrap;
    this.topic = topic;
    this.jvmLog = jvmLog;
  }

  static PrefixlogProxy start(Path dir, String upstream, KafkaBroker broker)
      throws IOException, InterruptedException {
    return start(dir, upstream, broker, true);
  }

  /**
   * @param histograms false: the proxy's latency histograms record nothing ({@code
   *     PREFIXLOG_METRICS_HISTOGRAMS=false}), to measure their cost against a proxy that records
   */
  static PrefixlogProxy start(Path dir, String upstream, KafkaBroker broker, boolean histograms)
      throws IOException, InterruptedException {
    return start(
        dir,
        upstream,
        broker,
        histograms ? TOPIC_PREFIX : TOPIC_PREFIX + "nohist.",
        histograms,
        List.of());
  }

  /**
   * A proxy publishing to its own topic ({@code prefix} + requests.raw, created here) with {@code
   * variantFlags} after the usual JVM flags.
   */
  static PrefixlogProxy start(
      Path dir,
      String upstream,
      KafkaBroker broker,
      String prefix,
      boolean histograms,
      List<String> variantFlags)
      throws IOException, InterruptedException {
    String topic = Topics.withPrefix(prefix).requestsRaw().name();
    try (Admin admin = Admin.create(adminProps(broker.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IOException("cannot create " + topic, e);
    }
    Files.createDirectories(dir);
    Path portFile = dir.resolve("ports");
    // A variant's "--java=<launcher>" runs the proxy on another JDK (e.g. Temurin 25 for its AOT
    // cache), its "--classpath-prefix=<path>" other builds of some classes; neither is a JVM
    // flag, so they are taken out of the flags.
    List<String> flags = new java.util.ArrayList<>(variantFlags);
    ChildProcess.Builder builder = ChildProcess.builder(ProxyChild.class.getName());
    for (String flag : List.copyOf(flags)) {
      if (flag.startsWith(JAVA_OPTION)) {
        builder.java(Path.of(flag.substring(JAVA_OPTION.length())));
        flags.remove(flag);
      } else if (flag.startsWith(CLASSPATH_PREFIX_OPTION)) {
        builder.classpath(
            flag.substring(CLASSPATH_PREFIX_OPTION.length())
                + java.io.File.pathSeparator
                + System.getProperty("java.class.path"));
        flags.remove(flag);
      }
    }
    // Every proxy JVM logs its collector, pauses and safepoints ({@link JvmPauses}), so that both
    // regimes can say which collector ran and what it paused.
    Path jvmLog = dir.resolve("jvm.log");
    List<String> command = new java.util.ArrayList<>(jvmFlags(flags));
    command.add(JvmPauses.logFlag(jvmLog));
    ChildProcess child =
        builder
            .jvmFlags(command)
            .args(
                List.of(
                    upstream,
                    broker.bootstrapServers(),
                    prefix,
                    portFile.toString(),
                    "histograms=" + histograms))
            .logFile(dir.resolve("proxy.log"))
            // 60 s: a JDK 25 training run (-XX:AOTCacheOutput) writes its AOT cache at exit.
            .stopTimeout(Duration.ofSeconds(60))
            .start();
    String[] ports = PortFile.await(child, portFile, "the capture proxy");
    return new PrefixlogProxy(
        child,
        Integer.parseInt(ports[0]),
        Integer.parseInt(ports[1]),
        broker.bootstrapServers(),
        topic,
        jvmLog);
  }

  /** The JVM's -Xlog:gc,safepoint file ({@link JvmPauses#read}). */
  Path jvmLog() {
    return jvmLog;
  }

  int port() {
    return port;
  }

  long cpuNanos() {
    return ProcCpu.nanos(child.pid());
  }

  long pid() {
    return child.pid();
  }

  Map<String, Long> threadGroupNanos() {
    return ProcCpu.threadGroupNanos(child.pid());
  }

  /** Nanoseconds the proxy's event loop spent runnable but waiting for a CPU, or -1. */
  long loopWaitNanos() {
    return ProcCpu.threadGroupWaitNanos(child.pid()).getOrDefault("vert.x-eventloo", -1L);
  }

  /** Events in the raw topic and the proxy's own event counters, once the producer flushed. */
  String captureSummary() throws IOException, InterruptedException {
    Thread.sleep(1000); // linger and acks
    long records;
    try (Admin admin = Admin.create(adminProps(bootstrap))) {
      TopicPartition partition = new TopicPartition(topic, 0);
      records =
          admin
              .listOffsets(Map.of(partition, OffsetSpec.latest()))
              .all()
              .get()
              .get(partition)
              .offset();
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IOException("cannot read the end offset of " + topic, e);
    }
    String counters = "";
    if (metricsPort > 0) {
      HttpClient client = HttpClient.newHttpClient();
      String metrics =
          client
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      counters =
          metrics
              .lines()
              .filter(l -> !l.startsWith("#"))
              .filter(l -> l.matches(".*(published|dropped|spilled).*"))
              .collect(Collectors.joining("; "));
    }
    return records + " raw events in " + topic + (counters.isEmpty() ? "" : "; " + counters);
  }

  /** Events published and dropped (every reason), from the proxy's metrics. */
  record Capture(long published, long dropped) {}

  /** The proxy's published and dropped counters, once the producer flushed. */
  Capture capture() throws IOException, InterruptedException {
    Thread.sleep(1000); // linger and acks
    long published = 0;
    long dropped = 0;
    for (String line : scrape().lines().toList()) {
      if (line.startsWith("prefixlog_proxy_events_published_total")) {
        published += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      } else if (line.startsWith("prefixlog_proxy_events_dropped_total")) {
        dropped += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return new Capture(published, dropped);
  }

  private String scrape() throws IOException, InterruptedException {
    // HTTP/1.1: the JDK client's default h2c upgrade attempt hung once against the proxy's
    // metrics server, and a benchmark must not wait for ever.
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .build()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static Properties adminProps(String bootstrap) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    return p;
  }

  @Override
  public void close() {
    child.close();
  }
}
