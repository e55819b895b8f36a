package io.prefixlog.core.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prefixlog.schemas.json.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;

/**
 * A quick timing harness, not a test: {@link BodyFields#read} on chat bodies of about 20 KB and 600
 * KB, printed next to a reference measured in the same run: the same streaming pass reading the
 * top-level fields only and skipping {@code messages} whole, which is all {@code read} did before
 * it read a conversation's anchor. Times are the thread's CPU time, so that other processes on a
 * shared machine inflate them less than wall time.
 *
 * <pre>
 * mvn -B -o -q test-compile -pl core -am
 * mvn -B -o -q dependency:build-classpath -pl core -Dmdep.outputFile=cp.txt -Dmdep.includeScope=test
 * java -cp schemas/target/classes:core/target/classes:core/target/test-classes:$(cat core/cp.txt) \
 *     io.prefixlog.core.session.BodyFieldsTiming
 * </pre>
 */
public final class BodyFieldsTiming {
  private BodyFieldsTiming() {}

  public static void main(String[] args) {
    List<Bodies> sets =
        List.of(
            new Bodies(
                "airline agent turns, 19-21 KB (tau-bench: a 6 KB system prompt, a short first user"
                    + " message, then tool calls and results)",
                airlineBodies(19_000, 21_000)),
            new Bodies(
                "one 20 KB first user message (ProxyBenchmark's body: all of it is anchor)",
                List.of(oneLongUserMessage(20_000))),
            new Bodies(
                "a 600 KB agent turn (swe-agent: 1.7 KB system prompt, 3.5 KB first user message,"
                    + " then the histories of the corpus' trajectories)",
                List.of(agentBody(600_000))));
    for (Bodies set : sets) {
      long bytes = set.bodies().stream().mapToLong(b -> b.length).sum();
      System.out.printf(
          Locale.ROOT,
          "%s: %d bodies, mean %.1f KB%n",
          set.name(),
          set.bodies().size(),
          bytes / 1024.0 / set.bodies().size());
      for (int round = 0; round < 3; round++) {
        System.out.printf(
            Locale.ROOT,
            "  round %d: BodyFields.read %8.2f µs | reference: top-level fields only %8.2f µs%n",
            round,
            time(set.bodies(), b -> BodyFields.read(b).stream() ? 1 : 0),
            time(set.bodies(), b -> BodyFields.readTopLevel(b).stream() ? 1 : 0));
      }
    }
  }

  private record Bodies(String name, List<byte[]> bodies) {}

  private static List<byte[]> airlineBodies(int min, int max) {
    List<byte[]> out = new ArrayList<>();
    for (JsonNode conversation : conversations("agentic/tau_bench_gpt4o_airline.jsonl")) {
      List<JsonNode> messages = new ArrayList<>();
      conversation.path("messages").forEach(messages::add);
      for (int i = 1; i <= messages.size(); i++) {
        byte[] body = body(messages.subList(0, i));
        if (body.length >= min && body.length <= max) {
          out.add(body);
        }
      }
    }
    return out;
  }

  private static byte[] oneLongUserMessage(int bytes) {
    StringBuilder text = new StringBuilder(bytes);
    while (text.length() < bytes) {
      text.append(
          "The proxy forwards every byte of the request and the response, captures the body while"
              + " it flows and hands the event to Kafka off the request path. ");
    }
    ObjectNode system = JsonNodeFactory.instance.objectNode();
    system.put("role", "system").put("content", "You are a helpful assistant.");
    ObjectNode user = JsonNodeFactory.instance.objectNode();
    user.put("role", "user").put("content", text.substring(0, bytes));
    return body(List.of(system, user));
  }

  private static byte[] agentBody(int bytes) {
    List<JsonNode> conversations = conversations("agentic/swe_agent_trajectories.jsonl");
    List<JsonNode> messages = new ArrayList<>();
    conversations.get(0).path("messages").forEach(messages::add);
    int next = 1;
    while (body(messages).length < bytes) {
      JsonNode later = conversations.get(next++ % conversations.size()).path("messages");
      for (int i = 2; i < later.size(); i++) {
        messages.add(later.get(i));
      }
    }
    return body(messages);
  }

  private static byte[] body(List<JsonNode> messages) {
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.put("model", "prefixlog-demo");
    ArrayNode array = body.putArray("messages");
    messages.forEach(array::add);
    body.put("max_tokens", 1024);
    try {
      return Json.mapper().writeValueAsBytes(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<JsonNode> conversations(String file) {
    List<JsonNode> out = new ArrayList<>();
    try (BufferedReader reader =
        Files.newBufferedReader(corpora().resolve(file), StandardCharsets.UTF_8)) {
      String line;
      while ((line = reader.readLine()) != null) {
        out.add(Json.mapper().readTree(line));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private static Path corpora() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("corpora/SOURCES.md"))) {
        return dir.resolve("corpora");
      }
    }
    throw new IllegalStateException(
        "corpora/ not found above " + Path.of("").toAbsolutePath() + ": run from the project");
  }

  /** Mean CPU microseconds per body over 2 s of CPU time, after 1 s of warm-up. */
  private static double time(List<byte[]> bodies, ToLongFunction<byte[]> work) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long sink = 0;
    long warmUpEnd = threads.getCurrentThreadCpuTime() + 1_000_000_000L;
    int i = 0;
    while (threads.getCurrentThreadCpuTime() < warmUpEnd) {
      sink += work.applyAsLong(bodies.get(i++ % bodies.size()));
    }
    long start = threads.getCurrentThreadCpuTime();
    long end = start + 2_000_000_000L;
    int n = 0;
    long now;
    do {
      for (int k = 0; k < 20; k++) {
        sink += work.applyAsLong(bodies.get(n++ % bodies.size()));
      }
      now = threads.getCurrentThreadCpuTime();
    } while (now < end);
    if (sink == 42) {
      System.out.print("");
    }
    return (now - start) / 1000.0 / n;
  }
}
