package io.prefixlog.tools.replay;

import io.prefixlog.cli.Units;
import io.prefixlog.tools.Command;
import java.io.PrintStream;

/**
 * How a replay of either mode ended, as the command reports it: failed requests first (with the
 * first failure, the one to look at), then an interruption; otherwise success.
 */
final class ReplayEnd {
  private ReplayEnd() {}

  /**
   * Reports the end on {@code err} and gives the exit code.
   *
   * @param firstFailure what went wrong with the first failed request; read only when one failed
   */
  static int report(
      PrintStream err, long sent, long failed, Object firstFailure, boolean interrupted) {
    if (failed > 0) {
      err.println(
          "prefixlog replay: "
              + Units.count(failed)
              + " of "
              + Units.count(sent)
              + " requests failed; first failure: "
              + firstFailure);
      return Command.FAILED;
    }
    if (interrupted) {
      err.println("prefixlog replay: interrupted after " + Units.count(sent) + " requests");
      return Command.FAILED;
    }
    return Command.OK;
  }
}
