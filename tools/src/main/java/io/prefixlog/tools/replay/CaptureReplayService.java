package io.prefixlog.tools.replay;

import io.prefixlog.cli.Outcome;
import io.prefixlog.cli.Progress;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.Version;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.reconstruct.CaptureInput;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Sends the captured traffic again: every request rebuilt from the deltas topic or a dump of it,
 * and checked against its body_sha256 as reconstruct does, goes to the proxy with its captured
 * path, body and session headers, at its captured arrival time (divided by the speed); then latency
 * and cached tokens per request class beside the capture's own. The report goes to the terminal
 * given, as {@code prefixlog replay --from-capture} prints it.
 */
public final class CaptureReplayService {
  private final Terminal terminal;

  public CaptureReplayService(Terminal terminal) {
    this.terminal = Objects.requireNonNull(terminal, "terminal");
  }

  /** Replays the capture the request names; the outcome says whether every request was answered. */
  public ReplayResult run(CaptureReplayRequest settings) {
    Objects.requireNonNull(settings, "settings");
    return new ReplayResult(Outcome.ofExitCode(replay(settings)));
  }

  private int replay(CaptureReplayRequest settings) {
    CaptureInput input =
        settings.file() != null
            ? CaptureInput.dump(settings.file())
            : CaptureInput.topic(settings.bootstrap(), settings.topicPrefix());
    CapturedRequests captured =
        new CapturedRequests(
            settings.sampleSessions() >= 1
                ? SessionSample.ALL
                : new SessionSample(settings.sampleSessions()));
    CaptureInput.Rebuilt rebuilt;
    try {
      rebuilt = input.rebuild(captured, terminal, settings.progress());
    } catch (CaptureInput.InputException e) {
      terminal.err().println("prefixlog replay: " + e.getMessage());
      return Command.FAILED;
    }
    CaptureSummary summary = new CaptureSummary(terminal.out(), settings.viaProxy());
    if (!summary.input(rebuilt, captured, settings.sampleSessions())) {
      terminal
          .err()
          .println(
              "prefixlog replay: some captured turns did not rebuild, nothing was sent; run"
                  + " reconstruct on the same input to see why");
      return Command.FAILED;
    }
    ReplayPlan plan = ReplayPlan.of(captured.ordered(), settings.speed());
    if (plan.steps().isEmpty()) {
      terminal.err().println("prefixlog replay: the capture has no request to replay");
      return Command.FAILED;
    }
    CaptureReplay replay =
        new CaptureReplay(
            settings.viaProxy(),
            settings.concurrency(),
            CapturedRequests.REPLAY_AGENT + "/" + Version.current(),
            HexFormat.of().toHexDigits(new SecureRandom().nextInt()));
    return ReplayInterrupt.during(
        terminal,
        interrupt -> {
          CaptureReplay.Outcome outcome;
          try (Progress progress =
              Progress.counting(
                  terminal, settings.progress(), "replay", plan.steps().size(), "requests")) {
            outcome = replay.run(plan, progress, interrupt::requested);
          }
          summary.replay(plan, outcome, settings.concurrency());
          ReplayComparison.of(plan, outcome).print(terminal.out());
          return ReplayEnd.report(
              terminal.err(),
              outcome.sent(),
              outcome.failed(),
              outcome.firstFailure(),
              interrupt.requested());
        });
  }
}
