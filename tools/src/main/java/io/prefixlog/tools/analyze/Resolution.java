package io.prefixlog.tools.analyze;

import io.prefixlog.cli.Units;
import io.prefixlog.core.chunk.LookupChains;
import java.util.Locale;
import java.util.Map;

/**
 * The report lines on version 2 lookup records, shared by {@code analyze} and {@code export
 * --lmcache-lookups}: how many were read and resolved from their chain's previous turn, and every
 * one left out unresolved, by reason, with what the reader can do about it.
 */
final class Resolution {
  private Resolution() {}

  /**
   * Appends the lines; none when no version 2 record was read and none was unresolved.
   *
   * @param memoryOption the option that sets the memory bound, named when it let chains go
   */
  static void describe(
      StringBuilder s, long v2Records, LookupChains.Stats stats, String memoryOption) {
    if (v2Records > 0) {
      s.append(
          String.format(
              Locale.ROOT,
              "  %s of version 2 (schema_version 2); %s listed only the hashes after those of"
                  + " their chain's previous turn and %s resolved from it%n",
              Units.count(v2Records, "record"),
              Units.count(stats.joined() + stats.unresolvedTotal()),
              stats.unresolvedTotal() == 0 ? "were all" : Units.count(stats.joined()) + " were"));
    }
    long unresolved = stats.unresolvedTotal();
    if (unresolved > 0) {
      s.append(
          String.format(
              Locale.ROOT,
              "  %s left out, unresolved (never read as whole lists; a chain resolves again from"
                  + " its next whole record, at most 64 turns on):%n",
              Units.count(unresolved, "record")));
      for (Map.Entry<LookupChains.Unresolved, Long> e : stats.unresolved().entrySet()) {
        if (e.getValue() > 0) {
          s.append("    ")
              .append(Units.count(e.getValue()))
              .append(": ")
              .append(e.getKey().description())
              .append(hint(e.getKey(), memoryOption))
              .append('\n');
        }
      }
    }
    if (stats.chainsLetGo() > 0) {
      s.append(
          String.format(
              Locale.ROOT,
              "  the memory bound (%s) let a chain's list go %s%n",
              memoryOption,
              Units.count(stats.chainsLetGo(), "time")));
    }
  }

  /** What the reader can do, or what it means. */
  private static String hint(LookupChains.Unresolved reason, String memoryOption) {
    return switch (reason) {
      case PREVIOUS_NOT_READ ->
          " (the read began inside the chain: retention deleted its start, or the dump began"
              + " there; or that turn was erased, or is in no file read)";
      case PREVIOUS_UNRESOLVED -> "";
      case PREVIOUS_LET_GO -> " (raise " + memoryOption + ")";
      case PREVIOUS_TOO_SHORT -> " (the records disagree)";
      case NOT_A_TURN ->
          " (a dump of record values has no keys: dump the topic with kcat -J to keep them)";
    };
  }
}
