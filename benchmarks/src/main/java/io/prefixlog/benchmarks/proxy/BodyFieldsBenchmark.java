package io.prefixlog.benchmarks.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prefixlog.benchmarks.harness.Benchmark;
import io.prefixlog.benchmarks.harness.Corpora;
import io.prefixlog.benchmarks.harness.Machine;
import io.prefixlog.benchmarks.harness.Medians;
import io.prefixlog.core.session.BodyFields;
import io.prefixlog.tools.cli.CommandLine;
import io.prefixlog.tools.cli.Option;
import io.prefixlog.tools.cli.UsageException;
import java.io.BufferedReader;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The capture proxy's {@code BodyFields.read} (its top-level scan first, Jackson when the scan
 * gives up) against Jackson's streaming reader alone ({@code BodyFields.readWithJackson}, what the
 * scan short-cuts), on chat request bodies built from the bundled corpora and on ProxyBenchmark's
 * 20 KB body. Every figure comes from forked JVMs, one per way and fork (so that neither way's
 * profile shapes the other's compiled code), the two ways alternating their order: per fork the
 * median of {@code --reps} timed repetitions after {@code --warmup-s} seconds; printed, the median
 * over forks and their range.
 */
public final class BodyFieldsBenchmark {
  private static final Benchmark BENCHMARK =
      new Benchmark(
          "BodyFieldsBenchmark",
          "BodyFields.read (top-level scan, Jackson as fallback) against Jackson alone, ns per"
              + " body, on chat bodies from the corpora.",
          List.of(
              Option.value("corpora", "DIR", "corpora/ found upwards", "The conversation corpora."),
              Option.value("forks", "N", "5", "Forked JVMs per way (median over forks)."),
              Option.value("warmup-s", "S", "3", "Untimed seconds per fork and body set."),
              Option.value("reps", "R", "10", "Timed repetitions per fork and body set."),
              Option.value("rep-ms", "MS", "300", "Length of one timed repetition.")));

  record Options(Path corpora, int forks, int warmupSeconds, int reps, int repMillis) {
    static Options of(CommandLine line) throws UsageException {
      Path corpora =
          line.value("corpora").isPresent() ? Path.of(line.value("corpora").get()) : Corpora.find();
      return new Options(
          corpora,
          (int) line.longValue("forks", 5, 1),
          (int) line.longValue("warmup-s", 3, 0),
          (int) line.longValue("reps", 10, 1),
          (int) line.longValue("rep-ms", 300, 10));
    }
  }

  private BodyFieldsBenchmark() {}

  public static void main(String[] args) throws Throwable {
    if (args.length > 0 && args[0].equals("--fork")) {
      fork(args);
      return;
    }
    BENCHMARK.main(args, Options::of, BodyFieldsBenchmark::run);
  }

  private static int run(Options options) throws Exception {
    System.out.println(BENCHMARK.title());
    Machine.header(System.out);
    // set -> way -> per-fork medians (ns per body)
    Map<String, Map<String, List<Double>>> figures = new LinkedHashMap<>();
    Map<String, String> sizes = new LinkedHashMap<>();
    for (int f = 0; f < options.forks(); f++) {
      List<String> ways = f % 2 == 0 ? List.of("scan", "jackson") : List.of("jackson", "scan");
      for (String way : ways) {
        for (String line : forkOnce(options, way)) {
          // "<set> <bodies> <bytes> <fast> <ns per body>"
          String[] p = line.split(" ");
          sizes.put(p[0], p[1] + " bodies, " + p[2] + " bytes on average, scan answers " + p[3]);
          figures
              .computeIfAbsent(p[0], k -> new LinkedHashMap<>())
              .computeIfAbsent(way, k -> new ArrayList<>())
              .add(Double.parseDouble(p[4]));
        }
      }
    }
    System.out.println();
    System.out.println(
        "set         | way     | ns/body (median of forks) | range over forks | MB/s  | scan vs"
            + " jackson");
    for (var set : figures.entrySet()) {
      double jackson = Medians.of(set.getValue().get("jackson"));
      for (var way : set.getValue().entrySet()) {
        double median = Medians.of(way.getValue());
        double min = way.getValue().stream().mapToDouble(Double::doubleValue).min().orElse(0);
        double max = way.getValue().stream().mapToDouble(Double::doubleValue).max().orElse(0);
        long bytes = Long.parseLong(sizes.get(set.getKey()).split(" ")[2]);
        System.out.printf(
            Locale.ROOT,
            "%-11s | %-7s | %25.0f | %7.0f – %-7.0f | %5.0f | %s%n",
            set.getKey(),
            way.getKey(),
            median,
            min,
            max,
            bytes * 1e3 / median,
            way.getKey().equals("scan")
                ? String.format(Locale.ROOT, "%.2f× the time", median / jackson)
                : "");
      }
    }
    sizes.forEach((k, v) -> System.out.println(k + ": " + v));
    Machine.footer(System.out);
    return 0;
  }

  private static List<String> forkOnce(Options options, String way)
      throws IOException, InterruptedException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command =
        List.of(
            java,
            "-Xms256m",
            "-Xmx256m",
            "-XX:+UseSerialGC",
            "-cp",
            System.getProperty("java.class.path"),
            BodyFieldsBenchmark.class.getName(),
            "--fork",
            way,
            options.corpora().toString(),
            String.valueOf(options.warmupSeconds()),
            String.valueOf(options.reps()),
            String.valueOf(options.repMillis()));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    List<String> lines = new ArrayList<>();
    try (BufferedReader out = process.inputReader(StandardCharsets.UTF_8)) {
      String line;
      while ((line = out.readLine()) != null) {
        if (line.startsWith("=")) {
          lines.add(line.substring(1));
        } else {
          System.out.println("  fork " + way + ": " + line);
        }
      }
    }
    if (process.waitFor() != 0) {
      throw new IllegalStateException("fork " + way + " failed");
    }
    return lines;
  }

  /** The body sets, as a proxy sees them: OpenAI chat requests. */
  static Map<String, List<byte[]>> bodies(Path corpora) throws IOException {
    ObjectMapper mapper = new ObjectMapper();
    Map<String, List<byte[]>> sets = new LinkedHashMap<>();
    sets.put("oasst", requests(mapper, corpora.resolve("chat/oasst_en100_threads.jsonl"), 1000));
    sets.put(
        "hh-rlhf", requests(mapper, corpora.resolve("chat/hh_rlhf_helpful_base_test.jsonl"), 1000));
    sets.put("bench-20KB", List.of(ChatBody.of(20 * 1024)));
    return sets;
  }

  private static List<byte[]> requests(ObjectMapper mapper, Path file, int max) throws IOException {
    List<byte[]> bodies = new ArrayList<>();
    int n = 0;
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (line.isBlank() || bodies.size() >= max) {
        continue;
      }
      JsonNode conversation = mapper.readTree(line);
      ObjectNode request = mapper.createObjectNode();
      request.put("model", "llama-3.1-8b-instruct");
      request.set("messages", conversation.get("messages"));
      request.put("temperature", 0.7);
      request.put("max_tokens", 512);
      request.put("stream", n % 2 == 0);
      request.put("user", "user-" + n++);
      bodies.add(mapper.writeValueAsBytes(request));
    }
    return bodies;
  }

  /** One fork: {@code --fork <way> <corpora> <warmup s> <reps> <rep ms>}; prints "=" lines. */
  private static void fork(String[] args) throws Throwable {
    String way = args[1];
    Map<String, List<byte[]>> sets = bodies(Path.of(args[2]));
    long warmupNanos = Long.parseLong(args[3]) * 1_000_000_000L;
    int reps = Integer.parseInt(args[4]);
    long repNanos = Long.parseLong(args[5]) * 1_000_000L;
    Method jacksonMethod =
        BodyFields.class.getDeclaredMethod("readWithJackson", byte[].class, int.class, int.class);
    jacksonMethod.setAccessible(true);
    MethodHandle jackson = MethodHandles.lookup().unreflect(jacksonMethod);
    Method scanMethod =
        Class.forName("io.prefixlog.core.session.TopLevelScan")
            .getDeclaredMethod("read", byte[].class, int.class, int.class);
    scanMethod.setAccessible(true);
    MethodHandle read =
        way.equals("scan")
            ? MethodHandles.lookup()
                .findStatic(
                    BodyFields.class,
                    "read",
                    MethodType.methodType(BodyFields.class, byte[].class, int.class, int.class))
            : jackson;
    for (var set : sets.entrySet()) {
      List<byte[]> bodies = set.getValue();
      long bytes = 0;
      int fast = 0;
      for (byte[] body : bodies) {
        bytes += body.length;
        Object scanned = scanMethod.invoke(null, body, 0, body.length);
        fast += scanned != null ? 1 : 0;
        Object expected = jackson.invoke(body, 0, body.length);
        Object got = read.invoke(body, 0, body.length);
        if (!expected.equals(got)) {
          throw new IllegalStateException("the two ways disagree on a body of " + set.getKey());
        }
      }
      byte[][] array = bodies.toArray(new byte[0][]);
      long sink = 0;
      long until = System.nanoTime() + warmupNanos;
      while (System.nanoTime() < until) {
        sink += pass(read, array);
      }
      double[] perBody = new double[reps];
      for (int r = 0; r < reps; r++) {
        long calls = 0;
        long start = System.nanoTime();
        long stop = start + repNanos;
        long now;
        do {
          sink += pass(read, array);
          calls += array.length;
          now = System.nanoTime();
        } while (now < stop);
        perBody[r] = (now - start) / (double) calls;
      }
      System.out.printf(
          Locale.ROOT,
          "=%s %d %d %d/%d %.1f%n",
          set.getKey(),
          array.length,
          bytes / array.length,
          fast,
          array.length,
          Medians.of(perBody));
      if (sink == 42) {
        System.out.println("(sink)");
      }
    }
  }

  private static long pass(MethodHandle read, byte[][] bodies) throws Throwable {
    long sink = 0;
    for (byte[] body : bodies) {
      BodyFields fields = (BodyFields) read.invokeExact(body, 0, body.length);
      sink += fields.stream() ? 1 : fields.model() == null ? 0 : fields.model().length();
    }
    return sink;
  }
}
