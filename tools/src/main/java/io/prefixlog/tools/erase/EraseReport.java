package io.prefixlog.tools.erase;

import io.prefixlog.schemas.control.ErasureAck;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What an erasure did, where, and what is still pending, printed once at the end. It names session
 * keys, topics and counts, never content.
 */
final class EraseReport {
  private final String eraseId;
  private final Selection selection;
  private final Map<String, Long> tombstones = new LinkedHashMap<>();
  private final List<String> done = new ArrayList<>();
  private final List<String> pending = new ArrayList<>();
  private final List<String> failed = new ArrayList<>();
  private Map<String, Map<String, Boolean>> chains = Map.of();
  private final long startNanos = System.nanoTime();

  EraseReport(String eraseId, Selection selection) {
    this.eraseId = eraseId;
    this.selection = selection;
  }

  void chains(Map<String, Map<String, Boolean>> chains) {
    this.chains = chains;
  }

  void tombstoned(String topic, long count) {
    tombstones.put(topic, count);
  }

  /** Tombstones the command wrote, all topics. */
  long tombstones() {
    return tombstones.values().stream().mapToLong(Long::longValue).sum();
  }

  void acks(List<ErasureAck> acks, int expected, Duration timeout) {
    for (ErasureAck ack : acks) {
      if (ErasureAck.SCOPE_SESSION.equals(ack.scope())) {
        done.add(
            String.format(
                "stream app: session %s %s%s: %d turn keys tombstoned, %d bases and %d dedup"
                    + " entries removed, state files %s",
                ack.sessionKey(),
                ack.outcome(),
                ack.chain() == null ? "" : " (chain " + ack.chain() + ")",
                nz(ack.turnsTombstoned()),
                nz(ack.basesRemoved()),
                nz(ack.requestIdsRemoved()),
                Boolean.TRUE.equals(ack.stateCompacted())
                    ? "compacted"
                    : "not compacted (RocksDB drops the bytes at its next compaction)"));
      } else {
        done.add(
            String.format(
                "KV index: source %s %s: %d blocks' session id cleared, %d sessions dropped from"
                    + " its statistics",
                ack.source(),
                ack.outcome(),
                nz(ack.blocksScrubbed()),
                nz(ack.statsSessionsRemoved())));
      }
    }
    if (acks.size() < expected) {
      failed.add(
          String.format(
              "the stream app acknowledged %d of %d orders within %d s: is it running? The orders"
                  + " stay on the input topics and are obeyed when it runs; run erase again to"
                  + " check (it is idempotent)",
              acks.size(), expected, timeout.toSeconds()));
    }
  }

  void truncated(List<ProcessedInputs.Truncated> truncated) {
    for (ProcessedInputs.Truncated t : truncated) {
      done.add(
          String.format(
              "%s: %d processed records deleted in %d partitions (up to what every reader"
                  + " of it has committed)",
              t.topic(), t.records(), t.partitions()));
    }
  }

  void compactionDue(List<CompactionDeadline> deadlines) {
    for (CompactionDeadline d : deadlines) {
      if (d.by() != null) {
        pending.add(
            String.format(
                "%s: the old values go when the broker compacts them, by %s (max.compaction.lag.ms"
                    + " %s)",
                d.topic(), d.by().truncatedTo(java.time.temporal.ChronoUnit.SECONDS), d.maxLag()));
      } else {
        pending.add(
            d.topic()
                + ": the old values go at the broker's next compaction of their segments, which"
                + " has no deadline; bound it: kafka-configs.sh --alter --entity-type topics"
                + " --entity-name "
                + d.topic()
                + " --add-config max.compaction.lag.ms=86400000");
      }
    }
  }

  void done(String line) {
    done.add(line);
  }

  void pending(String line) {
    pending.add(line);
  }

  void failed(String line) {
    failed.add(line);
  }

  void print(PrintStream out, String checkCommand) {
    out.println("prefixlog erase " + eraseId + " at " + Instant.now());
    out.println("sessions:");
    for (Map.Entry<String, String> s : selection.sessions().entrySet()) {
      Map<String, Boolean> sessionChains = chains.getOrDefault(s.getKey(), Map.of());
      long erased = sessionChains.values().stream().filter(b -> b).count();
      out.printf(
          "  %s  (%s): %d chain(s) found on the topic, %d to erase%s%n",
          s.getKey(),
          s.getValue(),
          sessionChains.size(),
          erased,
          selection.before() == null ? "" : ", before " + Instant.ofEpochMilli(selection.before()));
    }
    out.println("removed:");
    for (Map.Entry<String, Long> t : tombstones.entrySet()) {
      out.printf("  %s: %d tombstones written%n", t.getKey(), t.getValue());
    }
    done.forEach(line -> out.println("  " + line));
    if (!pending.isEmpty()) {
      out.println("pending:");
      pending.forEach(line -> out.println("  " + line));
      out.println("  check what still names these sessions: " + checkCommand);
    }
    if (!failed.isEmpty()) {
      out.println("failed:");
      failed.forEach(line -> out.println("  " + line));
    }
    out.printf("took %.1f s%n", (System.nanoTime() - startNanos) / 1e9);
  }

  static void printCheck(
      PrintStream out,
      Selection selection,
      Map<String, Long> left,
      Long archivedRows,
      List<String> sinkBehind) {
    out.println("prefixlog erase --check: " + selection.keys().size() + " session(s)");
    if (left.isEmpty()) {
      out.println("  no record on the broker names them");
    } else {
      left.forEach(
          (topic, n) ->
              out.printf("  %s: %d record(s) still name them (awaiting compaction?)%n", topic, n));
    }
    if (archivedRows != null) {
      out.println(
          archivedRows == 0
              ? "  archive: no row of theirs"
                  + (sinkBehind.isEmpty() ? "" : " yet, but the sink has not caught up")
              : "  archive: " + archivedRows + " row(s) of theirs");
      for (String line : sinkBehind) {
        out.println("  archive: pending: " + line);
      }
    }
  }

  private static long nz(Long n) {
    return n == null ? 0 : n;
  }
}
