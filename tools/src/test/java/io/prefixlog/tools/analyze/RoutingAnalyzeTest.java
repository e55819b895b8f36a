package io.prefixlog.tools.analyze;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.analysis.mrc.NaiveLru;
import io.prefixlog.analysis.mrc.Semantics;
import io.prefixlog.tools.CapturedTerminal;
import io.prefixlog.tools.Command;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RoutingAnalyzeTest {
  @TempDir Path dir;
  private final CapturedTerminal console = new CapturedTerminal();

  private int analyze(String... args) {
    return new AnalyzeCommand(console.fresh()).run(args);
  }

  private static String line(double t, String session, long seqLen, long... keys) {
    StringBuilder s =
        new StringBuilder("{\"timestamp\":")
            .append(t)
            .append(",\"request_id\":\"r")
            .append(t)
            .append("\",\"model_name\":\"m\",\"chunk_size\":4,\"seq_len\":")
            .append(seqLen)
            .append(",\"chunk_hashes\":[");
    for (int i = 0; i < keys.length; i++) {
      s.append(i > 0 ? "," : "").append("\"0x").append(Long.toHexString(keys[i])).append('"');
    }
    return s.append("],\"session_key\":\"")
        .append(session)
        .append("\",\"hash_algo\":\"t\",\"chunk_unit\":\"tokens\",\"chunked\":\"chat_messages\"}")
        .toString();
  }

  private Path tiny() throws IOException {
    String a = "aaaaaaaaaaaaaaaa";
    String b = "bbbbbbbbbbbbbbbb";
    return Files.write(
        dir.resolve("tiny.jsonl"),
        List.of(
            line(1_763_700_000, a, 10, 1, 2),
            line(1_763_700_001, b, 12, 1, 2, 3),
            line(1_763_700_002, a, 13, 1, 2, 4),
            line(1_763_700_003, b, 12, 1, 2, 3)),
        StandardCharsets.UTF_8);
  }

  @Test
  void shouldWriteTheExactPerReplicaFiguresOfATinyTrace() throws IOException {
    // Given: [1,2] [1,2,3] [1,2,4] [1,2,3] on 2 replicas of 3 chunks.
    // round-robin: 0 gets r1 (cold) and r3 (1,2 hit); 1 gets r2 (cold) and r4 (1,2,3 hit).
    // prefix: everything follows [1,2] to replica 0; r3 evicts 3, r4 evicts 4: 0+2+2+2 hits.
    Path file = tiny();

    // When
    int code =
        analyze(
            "--file", file.toString(),
            "--replicas", "2",
            "--replica-capacity", "3",
            "--policies", "round-robin,prefix",
            "--csv", dir.resolve("csv").toString());

    // Then
    assertThat(code).as(console.err()).isEqualTo(Command.OK);
    assertThat(Files.readAllLines(dir.resolve("csv").resolve("routing.csv")))
        .containsExactly(
            "model,policy,replicas,capacity_chunks,replica,requests,chunk_lookups,prefix_hits,"
                + "units,unit_hits,prefix_chunks,prefix_units",
            "m,round-robin,2,3,0,2,5,2,23,8,0.400000,0.347826",
            "m,round-robin,2,3,1,2,6,3,24,12,0.500000,0.500000",
            "m,round-robin,2,3,*,4,11,5,47,20,0.454545,0.425532",
            "m,prefix,2,3,0,4,11,6,47,24,0.545455,0.510638",
            "m,prefix,2,3,1,0,0,0,0,0,0.000000,0.000000",
            "m,prefix,2,3,*,4,11,6,47,24,0.545455,0.510638");
    String summary = console.out();
    assertThat(summary)
        .contains("== routing what-if: 2 replicas x 3 chunks each; load = units routed in the last")
        .containsPattern("round-robin +45\\.5% +42\\.6% +1\\.00 +1\\.09 +40\\.0%-50\\.0%")
        .containsPattern("prefix +54\\.5% +51\\.1% +2\\.00 +2\\.00 +54\\.5%-54\\.5%");
  }

  @Test
  void shouldEqualOneLruCacheWhenThereIsOneReplica() throws IOException {
    // Given: a random trace of several sessions, one model
    List<TraceLines.Req> reqs = TraceLines.random(7, 40, List.of("m"));
    Path file =
        Files.write(
            dir.resolve("random.jsonl"),
            reqs.stream().map(r -> TraceLines.prefixlog(r, "tokens")).toList());
    List<TraceLines.Req> ordered = new ArrayList<>(reqs);
    ordered.sort(java.util.Comparator.comparingDouble(TraceLines.Req::timestamp));
    for (long capacity : new long[] {1, 5, 40, 400}) {
      NaiveLru lru = new NaiveLru(capacity);
      for (TraceLines.Req r : ordered) {
        lru.accept(r.keys(), 0, r.keys().length, r.chunkSize(), r.seqLen());
      }

      // When
      int code =
          analyze(
              "--file", file.toString(),
              "--replicas", "1",
              "--replica-capacity", Long.toString(capacity),
              "--csv", dir.resolve("c" + capacity).toString());

      // Then: every policy routes to the one replica, which is the single cache
      assertThat(code).isEqualTo(Command.OK);
      List<String> rows = Files.readAllLines(dir.resolve("c" + capacity).resolve("routing.csv"));
      assertThat(rows).hasSize(1 + 6 * 2);
      for (String row : rows.subList(1, rows.size())) {
        String[] f = row.split(",");
        assertThat(Long.parseLong(f[7])).as(row).isEqualTo(lru.hits(Semantics.PREFIX));
        assertThat(Long.parseLong(f[6])).as(row).isEqualTo(lru.accesses());
        assertThat(Long.parseLong(f[9])).as(row).isEqualTo(lru.unitHits(Semantics.PREFIX));
      }
    }
  }

  @Test
  void shouldNameTheBadRoutingOption() throws IOException {
    Path file = tiny();
    assertThat(analyze("--file", file.toString(), "--replica-capacity", "3"))
        .isEqualTo(Command.USAGE);
    assertThat(console.err()).contains("--replica-capacity needs --replicas");
    assertThat(analyze("--file", file.toString(), "--replicas", "2")).isEqualTo(Command.USAGE);
    assertThat(console.err()).contains("--replicas needs --replica-capacity");
    assertThat(
            analyze(
                "--file",
                file.toString(),
                "--replicas",
                "2",
                "--replica-capacity",
                "3",
                "--policies",
                "prefix,fastest"))
        .isEqualTo(Command.USAGE);
    assertThat(console.err()).contains("--policies: unknown routing policy 'fastest'");
    assertThat(analyze("--file", file.toString(), "--replicas", "2", "--replica-capacity", "1GiB"))
        .isEqualTo(Command.USAGE);
    assertThat(console.err()).contains("KV bytes of a chunk are not known");
  }

  /** {@link #line} with the engine's usage: {@code cached} null leaves it out, as vLLM does. */
  private static String usage(
      double t, String session, long seqLen, long prompt, Long cached, long... keys) {
    String base = line(t, session, seqLen, keys);
    return base.substring(0, base.length() - 1)
        + ",\"prompt_tokens\":"
        + prompt
        + (cached == null ? "" : ",\"cached_tokens\":" + cached)
        + "}";
  }

  private static String stats(
      String source,
      long stored,
      long removed,
      long resident,
      long tokens,
      long restarts,
      Long lifetimeP50) {
    return "{\"source\":\""
        + source
        + "\",\"ts\":1763700003000,\"seq\":9,\"resident_blocks\":"
        + resident
        + ",\"resident_tokens\":"
        + tokens
        + ",\"stores_total\":"
        + stored
        + ",\"removals_total\":"
        + removed
        + ",\"clears_total\":0,\"gaps\":0,\"restarts\":"
        + restarts
        + (lifetimeP50 == null
            ? ""
            : ",\"lifetime_count\":5,\"lifetime_p50_ms\":"
                + lifetimeP50
                + ",\"lifetime_p90_ms\":"
                + lifetimeP50
                + ",\"lifetime_p99_ms\":"
                + lifetimeP50)
        + "}";
  }

  private static String envelope(String key, String payload) {
    return "{\"topic\":\"prefixlog.kv.source-stats\",\"partition\":0,\"key\":\""
        + key
        + "\",\"payload\":"
        + (payload == null
            ? "null"
            : "\"" + payload.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
        + "}";
  }

  @Test
  void shouldShowTheEnginesOwnFiguresBesideTheSimulatedFleet() throws IOException {
    // Given: the tiny trace with the engine's usage on three of its four requests (64 of 350
    // prompt tokens cached), and a kcat -J dump of kv.source-stats from two engines: a's first
    // record is superseded by its second, c's is removed by a tombstone.
    String a = "aaaaaaaaaaaaaaaa";
    String b = "bbbbbbbbbbbbbbbb";
    Path lookups =
        Files.write(
            dir.resolve("usage.jsonl"),
            List.of(
                usage(1_763_700_000, a, 10, 100, null, 1, 2),
                usage(1_763_700_001, b, 12, 120, 0L, 1, 2, 3),
                usage(1_763_700_002, a, 13, 130, 64L, 1, 2, 4),
                line(1_763_700_003, b, 12, 1, 2, 3)),
            StandardCharsets.UTF_8);
    String sourceA = "tcp://10.0.0.1:5557|dp0|";
    String sourceB = "tcp://10.0.0.2:5557|dp0|";
    String sourceC = "tcp://10.0.0.3:5557|dp0|";
    Path sources =
        Files.write(
            dir.resolve("source-stats.jsonl"),
            List.of(
                envelope(sourceA, stats(sourceA, 10, 0, 10, 160, 0, null)),
                envelope(sourceC, stats(sourceC, 7, 0, 7, 112, 0, null)),
                envelope(sourceB, stats(sourceB, 100, 0, 100, 1_600, 0, null)),
                envelope(sourceA, stats(sourceA, 300, 100, 200, 3_200, 1, 90_000L)),
                envelope(sourceC, null)),
            StandardCharsets.UTF_8);

    // When
    int code =
        analyze(
            "--file", lookups.toString(),
            "--replicas", "2",
            "--replica-capacity", "3",
            "--policies", "round-robin,prefix",
            "--source-stats", sources.toString());

    // Then
    String summary = console.out();
    assertThat(code).as(console.err()).isEqualTo(Command.OK);
    assertThat(summary)
        .contains(
            "    engine actual: 64 of 350 prompt tokens cached (18.3%) over the 3 of 4 requests"
                + " that carry\n      the engine's usage: the real fleet, its own routing and"
                + " caches\n")
        .contains("  KV sources: 2 in " + sources + ", each one's latest statistics")
        .containsPattern(
            "\\n    source +stored +share +removed +resident +tokens +tok/bl +gaps +restarts"
                + " +clears +lifetime p50\\n"
                + "    tcp://10\\.0\\.0\\.1:5557\\|dp0\\| +300 +75\\.0% +100 +200 +3,200 +16\\.0"
                + " +0 +1 +0 +1m 30s\\n"
                + "    tcp://10\\.0\\.0\\.2:5557\\|dp0\\| +100 +25\\.0% +0 +100 +1,600 +16\\.0"
                + " +0 +0 +0 +-\\n"
                + "    all +400 +100\\.0% +100 +300 +4,800 +16\\.0 +0 +1 +0\\n"
                + "    blocks stored max/mean over sources: 1\\.50 \\(")
        .contains("    gaps and restarts: the bridge lost events or the engine restarted")
        .contains(
            "    not per source: requests, prompt and cached tokens. The requests do not name the"
                + " engine\n      that served them (no upstream in the records)")
        .doesNotContain("10.0.0.3")
        .doesNotContain("simulates a fleet of the captured size");
  }

  @Test
  void shouldSayWhyNoEngineFiguresAreShown() throws IOException {
    // Given: lookup files without usage, and no statistics
    Path file = tiny();

    // When
    int code = analyze("--file", file.toString(), "--replicas", "3", "--replica-capacity", "3");

    // Then
    assertThat(code).isEqualTo(Command.OK);
    assertThat(console.out())
        .contains("    engine actual: not reported (no prompt_tokens in the records)\n")
        .contains(
            "  KV sources: none to show (lookup files read, no --source-stats given); the engines'"
                + " block counts need kv.source-stats (--source-stats FILE with --file)\n");
  }

  @Test
  void shouldRefuseAStatisticsLineThatIsNotOne() throws IOException {
    // Given
    Path file = tiny();
    Path bad = Files.write(dir.resolve("bad.jsonl"), List.of("{\"resident_blocks\":3}"));

    // When
    int code =
        analyze(
            "--file",
            file.toString(),
            "--replicas",
            "2",
            "--replica-capacity",
            "3",
            "--source-stats",
            bad.toString());

    // Then
    assertThat(code).isEqualTo(Command.FAILED);
    assertThat(console.err())
        .contains("--source-stats " + bad + ":1: no source: not a kv.source-stats record");
    assertThat(analyze("--file", file.toString(), "--source-stats", bad.toString()))
        .isEqualTo(Command.USAGE);
    assertThat(console.err()).contains("--source-stats needs --replicas");
  }

  @Test
  void shouldAttributeRequestsToTheUpstreamsTheyWereForwardedTo() throws IOException {
    // Given: the tiny trace's requests forwarded by two capture proxies, one per engine; the
    // engines' KV sources on the same hosts, and one more source on a host without a proxy
    String a = "aaaaaaaaaaaaaaaa";
    String b = "bbbbbbbbbbbbbbbb";
    String one = "http://10.0.0.1:8000";
    String two = "http://10.0.0.2:8000";
    Path lookups =
        Files.write(
            dir.resolve("upstreams.jsonl"),
            List.of(
                upstream(usage(1_763_700_000, a, 10, 100, null, 1, 2), one),
                upstream(usage(1_763_700_001, b, 12, 120, 0L, 1, 2, 3), two),
                upstream(usage(1_763_700_002, a, 13, 130, 64L, 1, 2, 4), one),
                upstream(line(1_763_700_003, b, 12, 1, 2, 3), two)),
            StandardCharsets.UTF_8);
    String sourceOne = "tcp://10.0.0.1:5557|dp0|";
    String sourceOneRank1 = "tcp://10.0.0.1:5558|dp1|";
    String sourceThree = "tcp://10.0.0.3:5557|dp0|";
    Path sources =
        Files.write(
            dir.resolve("stats.jsonl"),
            List.of(
                stats(sourceOne, 300, 100, 200, 3_200, 0, null),
                stats(sourceOneRank1, 50, 0, 50, 800, 0, null),
                stats(sourceThree, 100, 0, 100, 1_600, 0, null)),
            StandardCharsets.UTF_8);

    // When
    int code =
        analyze(
            "--file", lookups.toString(),
            "--replicas", "2",
            "--replica-capacity", "3",
            "--policies", "session",
            "--source-stats", sources.toString());

    // Then: 10.0.0.1 served 2 requests (64 of 230 tokens cached) and holds two KV sources (its
    // two data-parallel ranks); 10.0.0.2 served 2 (0 of 120) and published no KV events
    String summary = console.out();
    assertThat(code).as(console.err()).isEqualTo(Command.OK);
    assertThat(summary)
        .containsPattern(
            "\\n    upstream +requests +share +with usage +prompt tokens +cached tokens +hit rate"
                + " +KV sources\\n"
                + "    http://10\\.0\\.0\\.1:8000 +2 +50\\.0% +2 +230 +64 +27\\.8% +2\\n"
                + "    http://10\\.0\\.0\\.2:8000 +2 +50\\.0% +1 +120 +0 +0\\.0% +0\\n"
                + "    all +4 +100\\.0% +3 +350 +64 +18\\.3%\\n"
                + "    requests max/mean over upstreams: 1\\.00 ")
        .contains("  KV sources: 3 in " + sources)
        .contains("    per source: the upstream table names the engine each request was forwarded")
        .doesNotContain("not per source");
  }

  @Test
  void shouldNotJoinSourcesToUpstreamsThatShareAHost() throws IOException {
    // Given: two proxies on one host (two engines on one machine, told apart by port)
    String a = "aaaaaaaaaaaaaaaa";
    Path lookups =
        Files.write(
            dir.resolve("shared.jsonl"),
            List.of(
                upstream(usage(1_763_700_000, a, 10, 100, 40L, 1, 2), "http://10.0.0.1:8000"),
                upstream(usage(1_763_700_001, a, 10, 100, 60L, 1, 2), "http://10.0.0.1:8001")),
            StandardCharsets.UTF_8);
    Path sources =
        Files.write(
            dir.resolve("stats.jsonl"),
            List.of(stats("tcp://10.0.0.1:5557|dp0|", 10, 0, 10, 160, 0, null)),
            StandardCharsets.UTF_8);

    // When
    int code =
        analyze(
            "--file",
            lookups.toString(),
            "--replicas",
            "2",
            "--replica-capacity",
            "3",
            "--source-stats",
            sources.toString());

    // Then
    assertThat(code).isEqualTo(Command.OK);
    assertThat(console.out())
        .containsPattern(
            "\\n    http://10\\.0\\.0\\.1:8000 +1 +50\\.0% +1 +100 +40 +40\\.0% +host shared\\n")
        .containsPattern(
            "\\n    http://10\\.0\\.0\\.1:8001 +1 +50\\.0% +1 +100 +60 +60\\.0% +host shared\\n");
  }

  private static String upstream(String line, String upstream) {
    return line.substring(0, line.length() - 1) + ",\"upstream\":\"" + upstream + "\"}";
  }
}
