package io.prefixlog.tools.smoke;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.tools.smoke.ThreadNiceCheck.KernelThread;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the compose smoke reads the bridge's thread priorities from the kernel, and judges them. */
class ThreadNiceCheckTest {
  /** A /proc task stat line as Linux 6 writes it, with the given name and nice (field 19). */
  private static String stat(int tid, String name, int nice) {
    return tid
        + " ("
        + name
        + ") S 1 1 1 0 -1 1077936192 2870 0 0 0 41 12 0 0 "
        + (20 + nice)
        + " "
        + nice
        + " 44 0 3461242 3133440 412 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";
  }

  private static List<KernelThread> threads(int loop, int publisher, int producer, int jit) {
    return List.of(
        new KernelThread("java", 0),
        new KernelThread(ThreadNiceCheck.EVENT_LOOP, loop),
        new KernelThread(ThreadNiceCheck.EVENT_LOOP, loop),
        new KernelThread(ThreadNiceCheck.PUBLISHER, publisher),
        new KernelThread(ThreadNiceCheck.PRODUCER, producer),
        // The KV subscriber's producer, at normal priority.
        new KernelThread(ThreadNiceCheck.PRODUCER, 0),
        new KernelThread(ThreadNiceCheck.COMPILER, jit));
  }

  @Test
  void shouldReadTheNameAndTheNiceValueEvenWhenTheNameHoldsSpacesAndParentheses() {
    assertThat(ThreadNiceCheck.parse(stat(41, "vert.x-eventloo", 0)))
        .isEqualTo(new KernelThread("vert.x-eventloo", 0));
    assertThat(ThreadNiceCheck.parse(stat(42, "C2 CompilerThre", 9)))
        .isEqualTo(new KernelThread("C2 CompilerThre", 9));
    assertThat(ThreadNiceCheck.parse(stat(43, "odd) (name", -5)))
        .isEqualTo(new KernelThread("odd) (name", -5));
  }

  @Test
  void shouldPassCaptureAndCompilerThreadsBelowTheEventLoops() {
    // Given: the image's flags (capture priority 1 is nice 4, CompilerThreadPriority=9)
    List<KernelThread> threads = threads(0, 4, 4, 9);

    // When
    List<String> problems = ThreadNiceCheck.problems(threads);

    // Then
    assertThat(problems).isEmpty();
    assertThat(ThreadNiceCheck.summary(threads))
        .isEqualTo("nice: event loops 0, publisher 4, JIT 9");
  }

  @Test
  void shouldFailWhenThePriorityPolicyIsOffAndEveryThreadRunsAtNiceZero() {
    // Given: no -XX:ThreadPriorityPolicy=1, so Java priorities never reach the kernel
    List<KernelThread> threads = threads(0, 0, 0, 0);

    // When
    List<String> problems = ThreadNiceCheck.problems(threads);

    // Then
    assertThat(problems)
        .containsExactly(
            "prefixlog-proxy at nice [0], not below the event loops (nice 0)",
            "kafka-producer- at nice [0, 0], not below the event loops (nice 0)",
            "C2 CompilerThre at nice [0], not below the event loops (nice 0)");
  }

  @Test
  void shouldFailWhenAThreadRunsAboveNormal() {
    // Given: the policy without the remapping of Java priorities 6-10 (a root JVM's VM threads)
    List<KernelThread> threads = new ArrayList<>(threads(0, 4, 4, 9));
    threads.add(new KernelThread("VM Thread", -4));

    // When
    List<String> problems = ThreadNiceCheck.problems(threads);

    // Then
    assertThat(problems).containsExactly("VM Thread at nice -4, above normal");
  }

  @Test
  void shouldFailWhenNoEventLoopIsFound() {
    assertThat(ThreadNiceCheck.problems(List.of(new KernelThread("java", 0))))
        .containsExactly("no event-loop thread (vert.x-eventloo)");
  }
}
