package io.prefixlog.benchmarks.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JvmPausesTest {
  @TempDir Path dir;

  @Test
  void aWindowHasTheCollectorsPausesTheLongestAndTheHeapAfterItsLastCollection() throws Exception {
    // Given: lines as JDK 17 writes them with -Xlog:gc,safepoint:file=…:timemillis (G1)
    Path log = dir.resolve("jvm.log");
    Files.writeString(
        log,
        String.join(
            "\n",
            "[1000ms] Using G1",
            "[2000ms] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 24M->6M(34M) 3.500ms",
            "[2000ms] Safepoint \"G1CollectForAllocation\", Time since last: 1 ns, Reaching"
                + " safepoint: 100000 ns, Cleanup: 1 ns, At safepoint: 3400000 ns, Total: 3500000"
                + " ns",
            "[2500ms] Safepoint \"Cleanup\", Time since last: 1 ns, Reaching safepoint: 1 ns,"
                + " Cleanup: 1 ns, At safepoint: 1 ns, Total: 250000 ns",
            "[3000ms] GC(1) Pause Young (Normal) (G1 Evacuation Pause) 30M->7M(47M) 1.250ms",
            "[9000ms] GC(2) Pause Remark 40M->40M(64M) 2.000ms",
            ""),
        StandardCharsets.UTF_8);

    // When: the pauses that ended in [2000, 9000)
    JvmPauses pauses = JvmPauses.read(log);
    JvmPauses.Window window = pauses.window(2000, 9000);

    // Then: two collections, the longer 3.5 ms, 47 MiB committed after the second; the remark
    // at 9000 ms is outside; safepoints 3.5 + 0.25 ms, the longer 3.5
    assertThat(pauses.collector()).isEqualTo("G1");
    assertThat(window).isEqualTo(new JvmPauses.Window(2, 4.75, 2, 3.75, 3.5, 3.5, 47));
  }

  @Test
  void aLogThatDoesNotExistHasNoPausesAndNoCollector() throws Exception {
    // Given: a JVM that never wrote its log
    Path log = dir.resolve("missing.log");

    // When
    JvmPauses pauses = JvmPauses.read(log);

    // Then
    assertThat(pauses.collector()).isEqualTo("?");
    assertThat(pauses.window(0, Long.MAX_VALUE))
        .isEqualTo(new JvmPauses.Window(0, 0, 0, 0, 0, 0, -1));
  }
}
