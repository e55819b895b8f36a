package io.prefixlog.benchmarks.ui;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.prefixlog.benchmarks.harness.Benchmark;
import io.prefixlog.benchmarks.harness.Machine;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.Outcome;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.UsageException;
import io.prefixlog.core.rebuild.RebuildScope;
import io.prefixlog.embedded.KafkaBroker;
import io.prefixlog.tools.reconstruct.ReconstructRequest;
import io.prefixlog.tools.reconstruct.ReconstructService;
import io.prefixlog.tools.ui.UiServer;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The session explorer ({@code prefixlog ui}) over a large capture: the server time of a sessions
 * page and of a turn page whose body is about 200 KB, next to {@code reconstruct --session --chain
 * --seq} rebuilding the same turns in the same run (target: p95 ≤ 100 ms over 100 k sessions / 1 M
 * turns).
 *
 * <p>Workload: delta records written straight to a real broker's {@code session.deltas}, as the
 * stream app writes them (version 3, key {@code session/chain/seq}): {@code --sessions} sessions of
 * {@code --turns} turns with small chat bodies, plus {@code --big-sessions} whose keyframe is a
 * {@code --big-kb} body; every later turn a delta that appends one message to the turn before
 * (copy, insert, copy). Server time is the UI's own {@code Server-Timing} (render included, sending
 * not); the client's round trip is printed beside it. Sessions pages cycle through the four sorts,
 * deep pages and a key-prefix search. The run fails (exit 1) unless every turn page says its
 * SHA-256 matches and {@code reconstruct} prints the same bytes.
 *
 * <pre>{@code
 * java -Xmx2g -cp benchmarks/target/classes:$(cat benchmarks/target/classpath.txt) \
 *     io.prefixlog.benchmarks.ui.UiBenchmark [--sessions 100000] [--turns 10]
 * }</pre>
 */
public final class UiBenchmark {
  private static final String PREFIX = "ui-bench.";
  private static final String CHAIN = "c0ffee00";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern SERVER_TIMING = Pattern.compile("app;dur=([0-9.]+)");

  private static final Benchmark BENCHMARK =
      new Benchmark(
          "UiBenchmark",
          "prefixlog ui's sessions and turn pages over a large capture: p50/p95 server time, next"
              + " to reconstruct --session --seq for the same turns.",
          List.of(
              Option.value("sessions", "N", "100000", "Sessions with small bodies."),
              Option.value("turns", "N", "10", "Turns per session."),
              Option.value("big-sessions", "N", "5", "Sessions whose keyframe is a big body."),
              Option.value("big-kb", "KB", "200", "The big keyframe's size."),
              Option.value("requests", "N", "200", "Requests per page kind (after 20 warm-up)."),
              Option.value("reconstructs", "N", "3", "reconstruct runs (each reads the topic).")));

  private UiBenchmark() {}

  private record Settings(
      int sessions, int turns, int bigSessions, int bigKb, int requests, int reconstructs) {
    static Settings of(CommandLine line) throws UsageException {
      return new Settings(
          (int) line.longValue("sessions", 100_000, 1),
          (int) line.longValue("turns", 10, 2),
          (int) line.longValue("big-sessions", 5, 1),
          (int) line.longValue("big-kb", 200, 1),
          (int) line.longValue("requests", 200, 1),
          (int) line.longValue("reconstructs", 3, 1));
    }
  }

  public static void main(String[] args) throws Exception {
    BENCHMARK.main(args, Settings::of, UiBenchmark::run);
  }

  private static int run(Settings s) throws Exception {
    long turns = (long) (s.sessions() + s.bigSessions()) * s.turns();
    System.out.printf(
        Locale.ROOT,
        "UiBenchmark: %,d sessions, %,d turns (%d sessions with a %d KB keyframe)%n",
        s.sessions() + s.bigSessions(),
        turns,
        s.bigSessions(),
        s.bigKb());
    Machine.header(System.out);
    Path dir = Files.createTempDirectory("ui-bench");
    try (KafkaBroker broker =
        KafkaBroker.start(KafkaBroker.Options.defaults(dir.resolve("kafka")).withBrokerPort(0))) {
      String bootstrap = broker.bootstrapServers();
      long t0 = System.nanoTime();
      List<Turn> big = produce(bootstrap, s);
      System.out.printf(
          Locale.ROOT, "produced %,d records in %.1f s%n", turns, (System.nanoTime() - t0) / 1e9);

      PrintStream quiet =
          new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
      t0 = System.nanoTime();
      // As up runs it: loopback, a generated token, any free port; it indexes the topic in the
      // background.
      UiServer ui = UiServer.startOnLoopback(bootstrap, PREFIX, 0);
      String base = ui.url().substring(0, ui.url().length() - 1);
      HttpClient http = loggedIn(ui);
      String expected =
          String.format(
              Locale.ROOT,
              "%,d of %,d sessions match",
              s.sessions() + s.bigSessions(),
              s.sessions() + s.bigSessions());
      while (true) {
        Thread.sleep(500);
        try {
          String page = get(http, base + "/").body();
          if (page.contains("Index up to date") && page.contains(expected)) {
            break;
          }
        } catch (java.io.IOException e) {
          // not listening yet
        }
      }
      System.out.printf(
          Locale.ROOT,
          "ui indexed them in %.1f s; heap after GC %d MiB%n",
          (System.nanoTime() - t0) / 1e9,
          Machine.usedHeapAfterGcMiB());

      List<String> listUrls = new ArrayList<>();
      for (String sort : List.of("last", "turns", "bytes", "cached")) {
        listUrls.add("/?sort=" + sort);
        listUrls.add("/?sort=" + sort + "&order=asc&page=40");
      }
      listUrls.add("/?q=" + key(12_345 % s.sessions()).substring(0, 4));
      listUrls.add("/?model=prefixlog-demo&sort=bytes");
      double[][] list = measure(http, base, listUrls, s.requests(), null);
      List<String> turnUrls = new ArrayList<>();
      for (Turn t : big) {
        turnUrls.add("/turn?key=" + t.key + "&chain=" + CHAIN + "&seq=" + t.seq);
      }
      int[] mismatches = new int[1];
      double[][] turn = measure(http, base, turnUrls, s.requests(), mismatches);

      // The reference: reconstruct rebuilding the same turns, whole process in-JVM.
      double[] rebuild = new double[s.reconstructs()];
      int differ = 0;
      for (int i = 0; i < rebuild.length; i++) {
        Turn t = big.get(i % big.size());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long r0 = System.nanoTime();
        ReconstructRequest request =
            ReconstructRequest.builder()
                .topic(bootstrap, PREFIX)
                .scope(new RebuildScope(t.key, CHAIN, t.seq))
                .print()
                .quiet()
                .build();
        Outcome outcome =
            new ReconstructService(
                    new Terminal(
                        new PrintStream(out, true, StandardCharsets.UTF_8), quiet, Map.of(), false))
                .run(request)
                .outcome();
        rebuild[i] = (System.nanoTime() - r0) / 1e6;
        if (outcome != Outcome.DONE || !sha256(out.toByteArray()).equals(t.sha)) {
          differ++;
        }
      }
      ui.close();
      System.out.println();
      System.out.printf(
          Locale.ROOT,
          "%-44s %9s %9s %9s %9s %9s%n",
          "",
          "requests",
          "p50 ms",
          "p95 ms",
          "max ms",
          "client p95");
      row("sessions page (server time)", list);
      row("turn page, " + s.bigKb() + " KB keyframe + " + (s.turns() - 1) + " deltas", turn);
      Arrays.sort(rebuild);
      System.out.printf(
          Locale.ROOT,
          "%-44s %9d %9.1f %9.1f %9.1f%n",
          "reconstruct --session --chain --seq --print",
          rebuild.length,
          percentile(rebuild, 0.5),
          percentile(rebuild, 0.95),
          rebuild[rebuild.length - 1]);
      System.out.printf(
          Locale.ROOT,
          "turn pages not verified: %d; reconstruct runs that failed or printed other bytes: %d%n",
          mismatches[0],
          differ);
      Machine.footer(System.out);
      return mismatches[0] == 0 && differ == 0 ? 0 : 1;
    }
  }

  private static void row(String name, double[][] m) {
    System.out.printf(
        Locale.ROOT,
        "%-44s %9d %9.1f %9.1f %9.1f %9.1f%n",
        name,
        m[0].length,
        percentile(m[0], 0.5),
        percentile(m[0], 0.95),
        m[0][m[0].length - 1],
        percentile(m[1], 0.95));
  }

  /** Server and client milliseconds per request (sorted), after 20 warm-up requests. */
  private static double[][] measure(
      HttpClient http, String base, List<String> urls, int n, int[] mismatches) throws Exception {
    double[] server = new double[n];
    double[] client = new double[n];
    for (int i = -20; i < n; i++) {
      String url = urls.get(Math.floorMod(i, urls.size()));
      long t0 = System.nanoTime();
      HttpResponse<String> r = get(http, base + url);
      double ms = (System.nanoTime() - t0) / 1e6;
      if (r.statusCode() != 200) {
        throw new IllegalStateException(url + " answered " + r.statusCode());
      }
      Matcher m = SERVER_TIMING.matcher(r.headers().firstValue("Server-Timing").orElse(""));
      if (!m.find()) {
        throw new IllegalStateException(url + " has no Server-Timing");
      }
      if (mismatches != null && !r.body().contains("SHA-256 matches")) {
        mismatches[0]++;
      }
      if (i >= 0) {
        server[i] = Double.parseDouble(m.group(1));
        client[i] = ms;
      }
    }
    Arrays.sort(server);
    Arrays.sort(client);
    return new double[][] {server, client};
  }

  private static double percentile(double[] sorted, double p) {
    return sorted[(int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
  }

  /**
   * A client of the UI: HTTP/1.1, which the UI serves (no h2c upgrade attempt on every new
   * connection), logged in once by the login URL, whose cookie every page request then carries.
   */
  private static HttpClient loggedIn(UiServer ui) throws Exception {
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .cookieHandler(new CookieManager())
            .build();
    get(http, ui.loginUrl());
    return http;
  }

  private static HttpResponse<String> get(HttpClient http, String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String key(int i) {
    return String.format(Locale.ROOT, "%032x", (long) i * 2654435761L);
  }

  /** The last turn of a big session: what its turn page and reconstruct rebuild. */
  private record Turn(String key, long seq, String sha) {}

  private static List<Turn> produce(String bootstrap, Settings s) throws Exception {
    String topic = PREFIX + "session.deltas";
    Properties admin = new Properties();
    admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin a = Admin.create(admin)) {
      a.createTopics(List.of(new NewTopic(topic, 4, (short) 1))).all().get();
    }
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(512 * 1024));
    p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(8 << 20));
    List<Turn> big = new ArrayList<>();
    long ts = 1_763_700_000_000L;
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < s.sessions() + s.bigSessions(); i++) {
        boolean isBig = i >= s.sessions();
        String key = key(i);
        String system = isBig ? lorem(s.bigKb() * 1024) : "You are a helpful assistant.";
        String body =
            "{\"model\":\"prefixlog-demo\",\"messages\":[{\"role\":\"system\",\"content\":"
                + JSON.writeValueAsString(system)
                + "},{\"role\":\"user\",\"content\":\"session "
                + i
                + " asks its first question\"}]}";
        String sha = sha256(body.getBytes(StandardCharsets.UTF_8));
        producer.send(
            new ProducerRecord<>(
                topic,
                key + "/" + CHAIN + "/1",
                record(key, 1, ts + i, keyframe(body), body, sha, null, null)));
        for (int seq = 2; seq <= s.turns(); seq++) {
          String insert =
              ",{\"role\":\"assistant\",\"content\":\"answer "
                  + (seq - 1)
                  + "\"},{\"role\":\"user\",\"content\":\"question "
                  + seq
                  + " of session "
                  + i
                  + "\"}";
          int points = body.codePointCount(0, body.length());
          String ops =
              "\"ops\":[{\"op\":\"copy\",\"from\":0,\"len\":"
                  + (points - 2)
                  + "},{\"op\":\"insert\",\"text\":"
                  + JSON.writeValueAsString(insert)
                  + "},{\"op\":\"copy\",\"from\":"
                  + (points - 2)
                  + ",\"len\":2}]";
          String next = body.substring(0, body.length() - 2) + insert + "]}";
          String nextSha = sha256(next.getBytes(StandardCharsets.UTF_8));
          String delta =
              "\"kind\":\"delta\",\"base_seq\":"
                  + (seq - 1)
                  + ",\"base_sha256\":\""
                  + sha
                  + "\","
                  + ops
                  + ",\"chain_depth\":"
                  + (seq - 1)
                  + ",\"prefix_len\":"
                  + (points - 2);
          producer.send(
              new ProducerRecord<>(
                  topic,
                  key + "/" + CHAIN + "/" + seq,
                  record(
                      key,
                      seq,
                      ts + i + seq * 1000L,
                      delta,
                      next,
                      nextSha,
                      100L * seq,
                      80L * seq)));
          body = next;
          sha = nextSha;
        }
        if (isBig) {
          big.add(new Turn(key, s.turns(), sha));
        }
      }
      producer.flush();
    }
    return big;
  }

  private static String keyframe(String body) throws Exception {
    return "\"kind\":\"full\",\"keyframe_reason\":\"first_turn\",\"body\":"
        + JSON.writeValueAsString(body)
        + ",\"body_encoding\":\"utf-8\",\"chain_depth\":0,\"prefix_len\":0";
  }

  private static String record(
      String key,
      long seq,
      long ts,
      String kind,
      String body,
      String sha,
      Long prompt,
      Long cached) {
    return "{\"schema_version\":3,\"session_key\":\""
        + key
        + "\",\"seq\":"
        + seq
        + ",\"chain\":\""
        + CHAIN
        + "\",\"request_id\":\"r-"
        + key.substring(0, 8)
        + "-"
        + seq
        + "\",\"ts\":"
        + ts
        + ",\"model\":\"prefixlog-demo\",\"client_addr\":\"127.0.0.1\",\"method\":\"POST\",\"path\":\"/v1/chat/completions\","
        + kind
        + ",\"body_len\":"
        + body.getBytes(StandardCharsets.UTF_8).length
        + ",\"body_sha256\":\""
        + sha
        + "\""
        + (prompt == null ? "" : ",\"prompt_tokens\":" + prompt + ",\"cached_tokens\":" + cached)
        + ",\"response\":{\"status\":200,\"latency_ms\":"
        + (10 + seq)
        + ".5}}";
  }

  private static String lorem(int bytes) {
    String words = "the quick brown fox jumps over the lazy dog while the agent reads its tools ";
    StringBuilder b = new StringBuilder(bytes + words.length());
    while (b.length() < bytes) {
      b.append(words);
    }
    return b.substring(0, bytes);
  }

  private static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }
}
