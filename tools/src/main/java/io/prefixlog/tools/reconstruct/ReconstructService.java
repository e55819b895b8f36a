package io.prefixlog.tools.reconstruct;

import io.prefixlog.cli.Outcome;
import io.prefixlog.cli.Progress;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.Units;
import io.prefixlog.core.rebuild.Counts;
import io.prefixlog.core.rebuild.Problem;
import io.prefixlog.core.rebuild.RebuildListener;
import io.prefixlog.core.rebuild.RebuildReport;
import io.prefixlog.core.rebuild.Rebuilder;
import io.prefixlog.schemas.Topics;
import io.prefixlog.tools.reconstruct.TopicReader.ReadException;
import io.prefixlog.tools.topic.TopicScan;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Rebuilds request bodies from the session deltas topic, a dump of it or the archive, and checks
 * each against its record's length and SHA-256; writes the verified bodies where asked and prints
 * the summary, as {@code prefixlog reconstruct} does, on the terminal given.
 */
public final class ReconstructService {
  /** Problems listed in the summary; the counts are always complete. */
  static final int PROBLEMS_SHOWN = 20;

  /**
   * What a run ended with, and the counts of the rebuild.
   *
   * @param outcome done only when every turn examined was rebuilt and checked
   * @param counts the rebuild's counts, or {@code null} when the input could not be read
   */
  public record Result(Outcome outcome, Counts counts) {
    static final Result FAILED = new Result(Outcome.FAILED, null);

    public Result {
      Objects.requireNonNull(outcome, "outcome");
    }
  }

  private final Terminal terminal;
  private final Supplier<InputStream> stdin;

  /** A service whose {@code --file -} reads this JVM's standard input. */
  public ReconstructService(Terminal terminal) {
    this(terminal, () -> System.in);
  }

  ReconstructService(Terminal terminal, Supplier<InputStream> stdin) {
    this.terminal = Objects.requireNonNull(terminal, "terminal");
    this.stdin = Objects.requireNonNull(stdin, "stdin");
  }

  /** Rebuilds and checks what the request names; the summary goes to the terminal. */
  public Result run(ReconstructRequest settings) {
    Objects.requireNonNull(settings, "settings");
    PrintStream report = settings.print() ? terminal.err() : terminal.out();
    Rebuilder rebuilder = new Rebuilder(settings.scope());
    String topic = Topics.withPrefix(settings.topicPrefix()).sessionDeltas().name();
    BodyFiles files;
    try {
      files = settings.out() == null ? null : new BodyFiles(settings.out());
    } catch (IOException e) {
      terminal
          .err()
          .println("prefixlog reconstruct: cannot create --out " + settings.out() + ": " + e);
      return Result.FAILED;
    }
    String input;
    String sampling = null;
    DumpReader dump = null;
    Spool spool = null;
    try {
      if (settings.archive() != null) {
        ArchiveSource.Stats s;
        spool = Spool.create();
        try (Progress progress =
            Progress.counting(terminal, settings.progress(), "read", 0, "rows")) {
          s = ArchiveSource.read(settings.archive(), settings.table(), rebuilder, spool, progress);
        }
        input =
            String.format(
                Locale.ROOT,
                "archived table %s (%s, %s): %s, %s of values",
                s.table(),
                settings.archive().catalogUri(),
                settings.archive().warehouse(),
                Units.count(s.rows(), "row"),
                Units.bytes(s.bytes()));
      } else if (settings.file() != null) {
        Path file = Path.of(settings.file());
        String name = settings.file();
        if (settings.file().equals("-")) {
          spool = Spool.create();
          try (InputStream in = stdin.get()) {
            in.transferTo(Channels.newOutputStream(spool.channel()));
          }
          file = spool.file();
          name = "stdin";
        }
        try (Progress progress = Progress.bytes(terminal, settings.progress(), "read", 0)) {
          dump = DumpReader.indexFile(file, name, rebuilder, progress);
        }
        DumpReader.Stats s = dump.stats();
        input = describe(s);
      } else {
        TopicReader.Stats s;
        spool = Spool.create();
        try (Progress progress =
            Progress.counting(terminal, settings.progress(), "read", 0, "records")) {
          s = TopicReader.read(settings.bootstrap(), topic, rebuilder, spool, progress);
        }
        input =
            String.format(
                Locale.ROOT,
                "%s at %s: %s, %s (%s), %s of values",
                topic,
                settings.bootstrap(),
                Units.count(s.partitions(), "partition"),
                Units.count(s.records(), "record"),
                Units.count(s.tombstones(), "tombstone"),
                Units.bytes(s.bytes()));
      }
      sampling = sampling(settings);
      RebuildReport result;
      try (Progress progress =
          Progress.counting(
              terminal, settings.progress(), "check", rebuilder.pendingTurns(), "turns")) {
        Output output = new Output(files, settings.print(), progress);
        result = rebuilder.run(output);
        if (settings.print() && !output.printOnce(terminal.out())) {
          terminal
              .err()
              .println(
                  "prefixlog reconstruct: turn "
                      + settings.scope().seq()
                      + " exists in more than one chain of the session ("
                      + String.join(", ", output.printedChains())
                      + "): pass --chain");
          return Result.FAILED;
        }
      }
      terminal.out().flush();
      return finish(settings, input, sampling, result, report);
    } catch (ReadException e) {
      terminal.err().println("prefixlog reconstruct: " + e.getMessage());
      return Result.FAILED;
    } catch (IOException e) {
      terminal.err().println("prefixlog reconstruct: cannot read " + settings.file() + ": " + e);
      return Result.FAILED;
    } catch (UncheckedIOException e) {
      terminal.err().println("prefixlog reconstruct: " + e.getMessage() + ": " + e.getCause());
      return Result.FAILED;
    } finally {
      closeQuietly(dump);
      closeQuietly(spool);
    }
  }

  private void closeQuietly(AutoCloseable closeable) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (Exception e) {
      terminal
          .err()
          .println("prefixlog reconstruct: warning: cannot close " + closeable + ": " + e);
    }
  }

  /**
   * The sampled-out line: from {@code --metadata-file}, else from the metadata topic when the
   * deltas came from the topic; null when neither. A metadata topic that cannot be read (a stream
   * app from before capture sampling has none) gives a line saying so and fails nothing.
   */
  private String sampling(ReconstructRequest settings) throws IOException {
    SampledOut sampled = new SampledOut(settings.scope().sessionKey());
    if (settings.metadataFile() != null) {
      sampled.addDump(Path.of(settings.metadataFile()));
      return sampled.tally().line();
    }
    if (settings.archive() != null || settings.file() != null) {
      return null;
    }
    String topic = Topics.withPrefix(settings.topicPrefix()).requestsMetadata().name();
    try (Progress progress =
        Progress.counting(terminal, settings.progress(), "read", 0, "metadata records")) {
      sampled.addTopic(settings.bootstrap(), topic, progress);
    } catch (TopicScan.ScanException e) {
      return "sampled out: unknown (" + e.getMessage() + ")\n";
    }
    return sampled.tally().line();
  }

  private Result finish(
      ReconstructRequest settings,
      String input,
      String sampling,
      RebuildReport result,
      PrintStream report) {
    Counts c = result.counts();
    boolean empty = c.turns() == 0 && result.problemCount() == 0;
    boolean passed = result.passed(settings.allowGaps()) && !empty;
    if (!(settings.quiet() && passed)) {
      // --quiet: silent on success, the summary on stderr on failure.
      PrintStream to = settings.quiet() ? terminal.err() : report;
      to.print(summary(input, sampling, result, settings.allowGaps()));
      if (empty) {
        to.println("FAILED: no delta records in the input");
      }
      to.flush();
    }
    return new Result(passed ? Outcome.DONE : Outcome.FAILED, c);
  }

  private static String describe(DumpReader.Stats s) {
    StringBuilder d =
        new StringBuilder()
            .append(s.name())
            .append(": ")
            .append(Units.count(s.lines(), "line"))
            .append(", ")
            .append(Units.count(s.records(), "record"))
            .append(", ")
            .append(Units.count(s.tombstones(), "tombstone"))
            .append(", ")
            .append(Units.bytes(s.bytes()));
    if (s.blankLines() > 0) {
      d.append("\n  note: ")
          .append(Units.count(s.blankLines()))
          .append(
              " empty or null lines: tombstones, whose keys a value-only dump does not keep (dump"
                  + " with kcat -J to keep them)");
    }
    return d.toString();
  }

  /**
   * The summary: what was read, counts per outcome, the sampled-out line ({@link
   * SampledOut.Tally#line}) when there is one, the first problems, the verdict.
   */
  static String summary(String input, String sampling, RebuildReport result, boolean allowGaps) {
    Counts c = result.counts();
    StringBuilder s = new StringBuilder();
    s.append("reconstruct: ").append(input).append('\n');
    row(
        s,
        "sessions",
        result.sessions(),
        Units.count(result.sessionsWithProblems()) + " with problems");
    row(s, "turns", c.turns(), null);
    row(s, "rebuilt ok", c.rebuiltOk(), Units.bytes(c.bytesRebuilt()));
    row(s, "checksum mismatches", c.checksumMismatches(), null);
    row(s, "broken chains", c.brokenChains(), null);
    row(s, "malformed", c.malformed(), null);
    row(
        s,
        "missing turns (gaps)",
        c.missingTurns(),
        allowGaps && c.missingTurns() > 0 ? "allowed" : null);
    row(s, "not found", c.notFound(), null);
    row(s, "erased (tombstones)", c.erased(), null);
    row(s, "superseded", result.superseded(), null);
    if (sampling != null) {
      s.append(sampling);
    }
    List<Problem> problems = result.problems();
    if (result.problemCount() > 0) {
      int shown = Math.min(problems.size(), PROBLEMS_SHOWN);
      s.append(
          String.format(
              Locale.ROOT,
              "first problems (%d of %s):%n",
              shown,
              Units.count(result.problemCount())));
      for (Problem problem : problems.subList(0, shown)) {
        s.append("  ").append(problem).append('\n');
      }
    }
    long failures = c.failures(allowGaps);
    if (failures == 0) {
      if (c.turns() > 0) {
        s.append("OK: every turn was rebuilt and matched body_len and body_sha256\n");
      }
    } else {
      s.append("FAILED: ")
          .append(Units.count(failures))
          .append(failures == 1 ? " failure" : " failures")
          .append(" (mismatches, broken chains, malformed records, ")
          .append(allowGaps ? "" : "missing turns, ")
          .append("turns not found)\n");
    }
    return s.toString();
  }

  private static void row(StringBuilder s, String label, long value, String note) {
    s.append(String.format(Locale.ROOT, "  %-21s %12s", label, Units.count(value)));
    if (note != null) {
      s.append("  (").append(note).append(')');
    }
    s.append('\n');
  }

  /**
   * Writes verified bodies where asked and advances the progress bar. The body to print is held
   * until the rebuild is done: without {@code --chain}, a session with several chains can have the
   * asked seq more than once, and two bodies concatenated on stdout would be neither.
   */
  private static final class Output implements RebuildListener {
    private final BodyFiles files;
    private final boolean print;
    private final Progress progress;
    private final Map<String, byte[]> toPrint = new LinkedHashMap<>();

    Output(BodyFiles files, boolean print, Progress progress) {
      this.files = files;
      this.print = print;
      this.progress = progress;
    }

    /** Prints the one body asked for; false (nothing printed) when several chains had the turn. */
    boolean printOnce(PrintStream out) {
      if (toPrint.size() > 1) {
        return false;
      }
      for (byte[] body : toPrint.values()) {
        out.write(body, 0, body.length);
        out.flush();
      }
      return true;
    }

    List<String> printedChains() {
      return List.copyOf(toPrint.keySet());
    }

    @Override
    public void onVerifiedBody(String sessionKey, long seq, byte[] body) {
      if (files != null) {
        try {
          files.write(sessionKey, seq, body);
        } catch (IOException e) {
          throw new UncheckedIOException("cannot write the body of " + sessionKey + "/" + seq, e);
        }
      }
      if (print) {
        toPrint.put(sessionKey, body);
      }
    }

    @Override
    public void onTurnChecked(String sessionKey, long seq, boolean ok) {
      progress.advance(1);
    }
  }
}
