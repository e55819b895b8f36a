package io.prefixlog.benchmarks.proxy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Runs wrk (keep-alive connections, one POST body from a file) and reads its result from a lua
 * {@code done()} hook that prints the request count, duration, errors and latency percentiles in
 * microseconds (wrk's own text output rounds to 10 µs and mixes units).
 */
final class Wrk {
  private final Path script;
  private final int threads;
  private final int connections;

  /**
   * @param workDir where the lua script is written
   * @param body the POST body every request sends
   */
  Wrk(Path workDir, byte[] body, int threads, int connections) throws IOException {
    Path bodyFile = Files.write(workDir.resolve("body.json"), body);
    this.script =
        Files.writeString(
            workDir.resolve("post.lua"),
            """
            wrk.method = "POST"
            wrk.headers["Content-Type"] = "application/json"
            wrk.headers["X-Session-ID"] = "proxy-benchmark"
            local f = assert(io.open("%s", "rb"))
            wrk.body = f:read("*a")
            f:close()
            done = function(summary, latency, requests)
              local e = summary.errors
              io.write(string.format("RESULT requests %%d\\n", summary.requests))
              io.write(string.format("RESULT duration_us %%d\\n", summary.duration))
              io.write(string.format("RESULT errors %%d\\n",
                e.connect + e.read + e.write + e.status + e.timeout))
              for _, p in ipairs({50, 90, 99, 99.9}) do
                io.write(string.format("RESULT p%%s %%d\\n", p, latency:percentile(p)))
              end
              io.write(string.format("RESULT max %%d\\n", latency.max))
              -- The whole distribution (distinct values in µs and their counts): runs merge
              -- into one window's percentiles.
              for i = 1, #latency do
                local value, count = latency(i)
                io.write(string.format("HIST %%d %%d\\n", value, count))
              end
            end
            """
                .formatted(bodyFile.toAbsolutePath()),
            StandardCharsets.UTF_8);
    this.threads = threads;
    this.connections = connections;
  }

  /**
   * One run's figures; latencies in microseconds, {@code histogram} every distinct latency and how
   * many requests took it.
   */
  record Result(
      long requests,
      long durationMicros,
      long errors,
      long p50,
      long p90,
      long p99,
      long p999,
      NavigableMap<Long, Long> histogram) {
    double rps() {
      return requests * 1e6 / durationMicros;
    }

    /** The latency at percentile {@code p} of several runs' requests together, in µs. */
    static long percentile(List<Result> runs, double p) {
      NavigableMap<Long, Long> merged = new TreeMap<>();
      long total = 0;
      for (Result run : runs) {
        for (Map.Entry<Long, Long> e : run.histogram().entrySet()) {
          merged.merge(e.getKey(), e.getValue(), Long::sum);
          total += e.getValue();
        }
      }
      // wrk's rule: the first value at or above the wanted rank.
      long rank = (long) Math.ceil(p / 100 * total);
      long seen = 0;
      for (Map.Entry<Long, Long> e : merged.entrySet()) {
        seen += e.getValue();
        if (seen >= rank) {
          return e.getKey();
        }
      }
      return merged.isEmpty() ? 0 : merged.lastKey();
    }
  }

  Result run(String url, Duration duration) throws IOException, InterruptedException {
    List<String> command =
        List.of(
            "wrk",
            "-t" + threads,
            "-c" + connections,
            "-d" + duration.toSeconds() + "s",
            "--timeout",
            "10s",
            "-s",
            script.toString(),
            url);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output;
    try (var in = process.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    if (!process.waitFor(duration.toSeconds() + 30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IOException("wrk did not finish: " + command);
    }
    Map<String, Long> values = new HashMap<>();
    NavigableMap<Long, Long> histogram = new TreeMap<>();
    List<String> other = new ArrayList<>();
    for (String line : output.split("\n")) {
      if (line.startsWith("HIST ")) {
        String[] parts = line.trim().split(" ");
        histogram.merge(Long.parseLong(parts[1]), Long.parseLong(parts[2]), Long::sum);
      } else if (line.startsWith("RESULT ")) {
        String[] parts = line.split(" ");
        values.put(parts[1], Long.parseLong(parts[2].trim()));
      } else {
        other.add(line);
      }
    }
    if (process.exitValue() != 0 || !values.containsKey("requests")) {
      throw new IOException("wrk failed (exit " + process.exitValue() + "): " + output);
    }
    return new Result(
        values.get("requests"),
        values.get("duration_us"),
        values.get("errors"),
        values.get("p50"),
        values.get("p90"),
        values.get("p99"),
        values.get("p99.9"),
        Collections.unmodifiableNavigableMap(histogram));
  }
}
