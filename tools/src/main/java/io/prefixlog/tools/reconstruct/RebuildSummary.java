package io.prefixlog.tools.reconstruct;

import io.prefixlog.cli.Units;
import io.prefixlog.core.rebuild.Counts;
import java.io.PrintStream;
import java.util.Locale;

/**
 * The first lines a command that works on rebuilt turns prints: what it read and how many turns
 * were rebuilt, erased and failed, then the failure when some did not rebuild. Shared because a
 * command built on {@link CaptureInput} must refuse to go on, in the same words, when a turn did
 * not rebuild: what it would produce would silently miss that turn.
 */
public final class RebuildSummary {
  private RebuildSummary() {}

  /**
   * Prints {@code "<command>: <input>"} and the turn counts; when some turns failed their check,
   * also the failure (then flushed).
   *
   * @param erased what became of the erased turns, in parentheses after their count
   * @return whether some turns failed their check: the command stops with a failure then
   */
  public static boolean failed(
      PrintStream out, String command, String input, Counts counts, String erased) {
    long failures = counts.failures(true);
    out.println(command + ": " + input);
    out.printf(
        Locale.ROOT,
        "  turns %s: %s rebuilt and checked, %s erased (" + erased + "), %s failed their check%n",
        Units.count(counts.turns()),
        Units.count(counts.rebuiltOk()),
        Units.count(counts.erased()),
        Units.count(failures));
    if (failures > 0) {
      out.println(
          "FAILED: some turns did not rebuild; run reconstruct on the same input to see why");
      out.flush();
    }
    return failures > 0;
  }
}
