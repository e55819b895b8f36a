package io.prefixlog.tools.up;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.cli.Terminal;
import io.prefixlog.tools.Command;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's first command, as a newcomer runs it: {@code prefixlog up --demo}. Part of the demo
 * goes through the capture proxy to the bundled demo engine, and rebuilds with its cached tokens.
 */
class UpCommandIT {
  @TempDir Path dataDir;

  @Test
  @Timeout(value = 480, unit = TimeUnit.SECONDS)
  void shouldStartTheStackReplayTheDemoRebuildEveryTurnAndAnalyseTheLookups() throws Exception {
    // When
    String printed = upDemo();

    // Then
    assertThat(printed)
        .contains("prefixlog is up (")
        .contains("  kafka         127.0.0.1:")
        .contains("  topics        prefixlog.requests.raw (in)  ->  prefixlog.session.deltas")
        .containsPattern("  kv events     demo engine tcp://127\\.0\\.0\\.1:\\d+\\|dp0\\| -> ")
        .containsPattern(
            "  block index   [\\d,]+ resident blocks in prefixlog.kv.block-index; the engine holds")
        .contains("demo: KV OK, the block index equals the engine's cache.\n")
        .containsPattern(
            "  ui            http://127\\.0\\.0\\.1:\\d+/\\?token=[A-Za-z0-9_-]{32}   \\(the session"
                + " explorer; prefixlog ui\\)\\n")
        .containsPattern(
            "  bridge        http://127\\.0\\.0\\.1:\\d+  ->  http://127\\.0\\.0\\.1:\\d+"
                + " \\(bundled demo engine\\) \\(capture proxy\\)\\n");
    assertEveryTurnRebuilt(printed);
    assertThat(printed)
        .contains("demo: prefixlog analyze (charts and CSV in " + dataDir.resolve("analysis"))
        // The stream app writes chunk lookup records version 2; every one resolves from the start
        .containsPattern(
            "\n  [\\d,]+ records of version 2 \\(schema_version 2\\); [\\d,]+ listed only the"
                + " hashes after those of their chain's previous turn and were all resolved from"
                + " it\n")
        .doesNotContain("unresolved")
        .contains("  LRU hit rate by capacity:\n")
        // The optimal bound beside LRU, and the routing what-if over the demo's small fleet
        .contains("  optimal bound     OPT = Belady/MIN per chunk")
        .containsPattern("    largest gap: \\+[\\d.]+ pts at [\\d,]+ chunks")
        .contains("== routing what-if: 4 replicas x 100 chunks each")
        .containsPattern("\\n    prefix-load +[\\d.]+% +[\\d.]+% ")
        // The engines' own figures beside the simulation: the demo engine's usage, and the demo
        // KV engine's statistics read back from kv.source-stats
        .containsPattern(
            "\\n    engine actual: [\\d,]+ of [\\d,]+ prompt tokens cached \\([\\d.]+%\\) over the"
                + " [\\d,]+ of [\\d,]+ requests that carry\\n")
        .contains("  KV sources: 1 in prefixlog.kv.source-stats, each one's latest statistics")
        .containsPattern("\\n    tcp://127\\.0\\.0\\.1:\\d+\\|dp0\\| +[\\d,]+ +100\\.0% +[\\d,]+ ")
        .contains("    1 KV source against 4 replicas simulated")
        .contains("wrote " + dataDir.resolve("analysis/routing.csv") + "\n")
        .endsWith("wrote " + dataDir.resolve("analysis/rolling.png") + "\n");
    assertThat(javax.imageio.ImageIO.read(dataDir.resolve("analysis/curve.png").toFile()))
        .isNotNull();
    // The expected shape: agent sessions re-send their history, so at capacities above the
    // working set most of the prompt bytes hit the prefix cache.
    java.util.regex.Matcher workingSet =
        java.util.regex.Pattern.compile("\\n +[\\d,]+ chunks +([\\d.]+)% .*working set\\n")
            .matcher(printed);
    assertThat(workingSet.find()).as(printed).isTrue();
    assertThat(Double.parseDouble(workingSet.group(1))).isGreaterThan(80.0);

    // And when the README's command runs again on the same data (without --fresh), its demo
    // reports and checks its own turns, as the first did: it printed "demo: FAILED" with turns
    // missing and more rebuilt than replayed, counting the first run's records
    assertEveryTurnRebuilt(upDemo());
  }

  /** The demo's table: every turn of this run rebuilt, none missing or extra. */
  private static void assertEveryTurnRebuilt(String printed) {
    assertThat(printed)
        .containsPattern("agentic/swe_agent_trajectories +22 +230 .* kafka +- +230 +0\\n")
        // Proxied: captured by the bridge, with the engine's cached tokens in the deltas.
        .containsPattern(
            "agentic/tau_bench_gpt4o_airline +200 +2454 .* proxy +[1-9]\\d\\.\\d% +2454 +0\\n")
        .containsPattern("chat/oasst_en100_threads +40 +(\\d+) .* proxy +\\d+\\.\\d% +\\1 +0\\n")
        .containsPattern("chat/hh_rlhf_helpful_base_test +40 +(\\d+) .* kafka +- +\\1 +0\\n")
        .contains("demo: OK, 0 rebuild mismatches.\n");
  }

  /** {@code up --demo --exit-after-demo} on the test's data directory; what it printed. */
  private String upDemo() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Terminal terminal = Terminal.captured(out, err);
    int code =
        new UpCommand(terminal)
            .run(
                new String[] {
                  "--demo",
                  "--exit-after-demo",
                  "--demo-chat-conversations",
                  "40",
                  "--data-dir",
                  dataDir.toString(),
                  "--kafka-port",
                  "0",
                  "--metrics-port",
                  "0",
                  "--proxy-port",
                  "0",
                  "--proxy-metrics-port",
                  "0",
                  "--ui-port",
                  "0"
                });
    String printed = out.toString(StandardCharsets.UTF_8);
    assertThat(code).as(printed + err.toString(StandardCharsets.UTF_8)).isEqualTo(Command.OK);
    return printed;
  }
}
