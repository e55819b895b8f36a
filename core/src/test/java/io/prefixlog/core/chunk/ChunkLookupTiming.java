package io.prefixlog.core.chunk;

import com.fasterxml.jackson.core.JsonParser;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.json.Json;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;

/**
 * A quick timing harness, not a test: renders and hashes the 28–32 KB chat bodies of the airline
 * corpus and prints the mean time per body next to references measured in the same run: a SHA-256
 * of the body (which validation already pays), Jackson's token pass over it (the floor of any
 * parse), and the same rendering over Jackson's tree ({@link TreeRenderer}). Times are the thread's
 * CPU time, so that other processes on a shared machine inflate them less than wall time.
 *
 * <pre>
 * mvn -o -q -pl core test-compile
 * java -cp core/target/classes:core/target/test-classes:$(cat cp.txt) \
 *     io.prefixlog.core.chunk.ChunkLookupTiming [chunkSize]
 * </pre>
 */
public final class ChunkLookupTiming {
  private ChunkLookupTiming() {}

  public static void main(String[] args) {
    int chunkSize = args.length > 0 ? Integer.parseInt(args[0]) : 256;
    List<byte[]> bodies = new ArrayList<>();
    for (CorpusBodies.Conversation conversation :
        CorpusBodies.conversations(
            "agentic/tau_bench_gpt4o_airline.jsonl",
            Integer.MAX_VALUE,
            CorpusBodies.AIRLINE_TOOLS)) {
      for (byte[] body : conversation.bodies()) {
        if (body.length >= 28_000 && body.length <= 32_000) {
          bodies.add(body);
        }
      }
    }
    long bytes = bodies.stream().mapToLong(b -> b.length).sum();
    System.out.printf(
        Locale.ROOT,
        "%d bodies of 28-32 KB (mean %.1f KB), chunk size %d bytes%n",
        bodies.size(),
        bytes / 1024.0 / bodies.size(),
        chunkSize);
    ChunkHasher hasher = new ChunkHasher(chunkSize);
    ToLongFunction<byte[]> renderAndHash =
        b -> hasher.hash(PromptRenderer.render(b).bytes()).length;
    ToLongFunction<byte[]> render = b -> PromptRenderer.render(b).length();
    ToLongFunction<byte[]> sha256 = b -> Sha256.hex(b).length();
    ToLongFunction<byte[]> tokens =
        b -> {
          long n = 0;
          try (JsonParser parser = Json.mapper().createParser(b)) {
            while (parser.nextToken() != null) {
              n++;
            }
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
          return n;
        };
    ToLongFunction<byte[]> tree = b -> TreeRenderer.render(b).length();
    for (int round = 0; round < 3; round++) {
      System.out.printf(
          Locale.ROOT,
          "round %d: render+hash %6.1f µs | render %6.1f µs | reference: sha256(body) %6.1f µs,"
              + " Jackson tokens %6.1f µs, tree rendering %6.1f µs%n",
          round,
          time(bodies, renderAndHash),
          time(bodies, render),
          time(bodies, sha256),
          time(bodies, tokens),
          time(bodies, tree));
    }
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
      for (int k = 0; k < 100; k++) {
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
