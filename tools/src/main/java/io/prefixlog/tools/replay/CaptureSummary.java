package io.prefixlog.tools.replay;

import io.prefixlog.cli.Units;
import io.prefixlog.core.rebuild.Counts;
import io.prefixlog.tools.reconstruct.CaptureInput;
import java.io.PrintStream;
import java.net.URI;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** The lines {@code replay --from-capture} prints before its comparison table. */
final class CaptureSummary {
  /** A request that went out later than this after its due time counts as late. */
  static final long LATE_NANOS = 10_000_000;

  private final PrintStream out;
  private final URI target;

  CaptureSummary(PrintStream out, URI target) {
    this.out = out;
    this.target = target;
  }

  /**
   * What was read and what will be sent.
   *
   * @return false when a turn failed its check (nothing is sent then)
   */
  boolean input(CaptureInput.Rebuilt rebuilt, CapturedRequests captured, double sample) {
    Counts c = rebuilt.report().counts();
    long failures = c.failures(true);
    out.println("replay --from-capture: " + rebuilt.description());
    out.printf(
        Locale.ROOT,
        "  turns: %s rebuilt and checked, %s erased (never rebuilt, not sent), %s failed their"
            + " check%n",
        Units.count(c.rebuiltOk()),
        Units.count(c.erased()),
        Units.count(failures));
    if (failures > 0) {
      out.println("FAILED: some turns did not rebuild; run reconstruct on the same input");
      out.flush();
      return false;
    }
    out.printf(
        Locale.ROOT,
        "  left out: %s of %s outside --sample-sessions %s, %s not a POST to"
            + " /v1/chat/completions or /v1/completions, %s cut at the capture limit, %s sent by"
            + " an earlier capture replay%n",
        Units.count(captured.unsampledTurns(), "turn"),
        Units.count(captured.unsampledSessions(), "session"),
        number(sample),
        Units.count(captured.notReplayable()),
        Units.count(captured.truncated()),
        Units.count(captured.earlierReplays()));
    return true;
  }

  /** How the run kept to the schedule, and the answers' statuses. */
  void replay(ReplayPlan plan, CaptureReplay.Outcome outcome, int concurrency) {
    long lastSend = 0;
    long late = 0;
    long lateAfterAnswer = 0;
    long maxLate = 0;
    Map<String, Long> statuses = new TreeMap<>();
    for (int i = 0; i < outcome.sent(); i++) {
      long lateness = outcome.lateNanos()[i];
      lastSend = Math.max(lastSend, plan.steps().get(i).dueNanos() + lateness);
      if (lateness > LATE_NANOS) {
        late++;
        if (plan.steps().get(i).after() >= 0) {
          lateAfterAnswer++;
        }
      }
      maxLate = Math.max(maxLate, lateness);
      int status = outcome.status()[i];
      statuses.merge(status < 0 ? "error" : Integer.toString(status), 1L, Long::sum);
    }
    long sessions =
        plan.steps().stream()
            .limit(outcome.sent())
            .map(step -> step.request().sessionKey())
            .distinct()
            .count();
    out.printf(
        Locale.ROOT,
        "  sent %s requests of %s sessions to %s, concurrency %d%n"
            + "  schedule: captured over %s, due over %s at --speed %s; last sent at %s, last"
            + " answer at %s%n"
            + "  late: %s requests went out more than %d ms after their due time (max %.1f ms); %s"
            + " of them waited for their session's previous answer, the others for a free slot"
            + " or the client%n"
            + "  status %s%n",
        Units.count(outcome.sent()),
        Units.count(sessions),
        target,
        concurrency,
        Units.seconds(plan.captureSpanMs() * 1_000_000),
        Units.seconds(plan.scheduledSpanNanos()),
        number(plan.speed()),
        Units.seconds(lastSend),
        Units.seconds(outcome.elapsedNanos()),
        Units.count(late),
        LATE_NANOS / 1_000_000,
        maxLate / 1e6,
        Units.count(lateAfterAnswer),
        statusLine(statuses));
  }

  private static String statusLine(Map<String, Long> statuses) {
    if (statuses.isEmpty()) {
      return "none";
    }
    StringBuilder line = new StringBuilder();
    statuses.forEach(
        (status, n) ->
            line.append(line.length() == 0 ? "" : ", ")
                .append(status)
                .append(' ')
                .append(Units.count(n)));
    return line.toString();
  }

  private static String number(double value) {
    return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
  }
}
