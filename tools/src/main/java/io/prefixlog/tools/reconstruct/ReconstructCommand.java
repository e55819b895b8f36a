package io.prefixlog.tools.reconstruct;

import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.core.config.CommonKeys;
import io.prefixlog.core.delta.ChainIds;
import io.prefixlog.core.rebuild.Counts;
import io.prefixlog.core.rebuild.Problem;
import io.prefixlog.core.rebuild.RebuildListener;
import io.prefixlog.core.rebuild.RebuildReport;
import io.prefixlog.core.rebuild.RebuildScope;
import io.prefixlog.core.rebuild.Rebuilder;
import io.prefixlog.schemas.Topics;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.archive.ArchiveOptions;
import io.prefixlog.tools.cli.CommandLine;
import io.prefixlog.tools.cli.Option;
import io.prefixlog.tools.cli.Progress;
import io.prefixlog.tools.cli.Terminal;
import io.prefixlog.tools.cli.TopicScan;
import io.prefixlog.tools.cli.Units;
import io.prefixlog.tools.cli.UsageException;
import io.prefixlog.tools.reconstruct.TopicReader.ReadException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code prefixlog reconstruct}: rebuilds request bodies from the session deltas topic (or a dump
 * of it) and checks each against its record's length and SHA-256. Exit code 0 only when every turn
 * examined was rebuilt and checked.
 */
public final class ReconstructCommand implements Command {
  static final String DEFAULT_BOOTSTRAP = CommonKeys.DEFAULT_BOOTSTRAP;

  /** Problems listed in the summary; the counts are always complete. */
  static final int PROBLEMS_SHOWN = 20;

  static final List<Option> OPTIONS =
      concat(
          List.of(
              Option.value("bootstrap", "HOST:PORT", DEFAULT_BOOTSTRAP, "Kafka bootstrap servers."),
              Option.value(
                  "topic-prefix",
                  "PREFIX",
                  "\"" + Topics.DEFAULT_PREFIX + "\"",
                  "Prefix of every topic name."),
              Option.value(
                  "file",
                  "PATH",
                  "none (read the topic)",
                  "Read a JSONL dump instead of the topic ('-' for stdin): one record value per line"
                      + " (kcat -C -e -t <topic> -f '%s\\n'), or kcat -J envelopes, whose null"
                      + " payloads are tombstones."),
              Option.value(
                  "metadata-file",
                  "PATH",
                  "none (with --file and --archive); the topic otherwise",
                  "A dump of <prefix>requests.metadata in the same line forms, to report the"
                      + " requests capture sampling kept no body of. Without it, reading the"
                      + " topics also reads <prefix>requests.metadata.")),
          ArchiveOptions.options(
              "Read the archived delta table (Iceberg in S3, via its JDBC catalog) instead of"
                  + " the topic: no Kafka needed."),
          List.of(
              Option.value(
                  "table",
                  "NS.NAME",
                  ArchivedTopic.NAMESPACE + ".session_deltas",
                  "With --archive: the archived delta table."),
              Option.value("session", "KEY", "all sessions", "Rebuild only this session_key."),
              Option.value(
                  "chain",
                  "ID",
                  "all chains",
                  "With --session: only this chain of the session (the 8 hex digits between session"
                      + " and seq in a key session_key/chain/seq)."),
              Option.value(
                  "seq",
                  "N",
                  "all turns",
                  "With --session: rebuild only this turn, reading only the chain of bases it needs."),
              Option.value(
                  "out",
                  "DIR",
                  "none",
                  "Write each verified body to DIR/<session>/<seq>.body, where <session> is"
                      + " session_key%2Fchain for version 3 records (every name made safe)."),
              Option.flag(
                  "print",
                  "With --session and --seq: write the verified body's exact bytes to stdout (the"
                      + " summary then goes to stderr)."),
              Option.flag(
                  "allow-gaps",
                  "Report missing turns but do not fail on them (compaction drops the tombstones of"
                      + " erased turns after delete.retention.ms, and retention drops old turns)."),
              Option.flag(
                  "quiet",
                  "Print nothing when every turn checks out; problems still go to stderr."),
              Option.flag("progress", "Show progress bars even when stderr is not a terminal.")));

  private static List<Option> concat(List<Option> a, List<Option> b, List<Option> c) {
    List<Option> all = new java.util.ArrayList<>(a);
    all.addAll(b);
    all.addAll(c);
    return List.copyOf(all);
  }

  private static final String DESCRIPTION =
      """
      Rebuilds request bodies from the session deltas topic (<prefix>session.deltas), or from a
      JSONL dump of it, and checks every one: a keyframe's body is decoded, a delta's ops are
      applied to its base turn as rebuilt (after checking base_sha256), and every result must
      match body_len and body_sha256. Reading the topic takes every partition from the beginning
      to the end offsets at start (read_committed), then stops. Requests whose bodies capture
      sampling left out have no turn: they are counted from <prefix>requests.metadata (or
      --metadata-file) and reported as sampled out, never as missing. Reports per kind: checksum
      mismatches, broken chains (base missing, erased or broken; ops out of range), malformed
      records and gaps (missing turns), listing the first problems with session_key and seq.
      Exit code 0 only when every turn examined was rebuilt and checked; 1 otherwise (also when
      the input is empty or unreadable); 2 for a bad command line.
      """;

  private final Terminal terminal;
  private final Supplier<InputStream> stdin;

  public ReconstructCommand(Terminal terminal) {
    this(terminal, () -> System.in);
  }

  ReconstructCommand(Terminal terminal, Supplier<InputStream> stdin) {
    this.terminal = terminal;
    this.stdin = stdin;
  }

  @Override
  public Spec spec() {
    return new Spec(
        "reconstruct",
        "Rebuild and verify request bodies from the deltas topic or a dump of it.",
        DESCRIPTION,
        OPTIONS);
  }

  @Override
  public int run(String[] args) {
    CommandLine.Invocation<Settings> invocation =
        invoke(args, terminal, line -> Settings.from(line, terminal.env()));
    if (!invocation.proceed()) {
      return invocation.exitCode();
    }
    Settings settings = invocation.value();
    PrintStream report = settings.print ? terminal.err() : terminal.out();
    Rebuilder rebuilder = new Rebuilder(settings.scope);
    String topic = Topics.withPrefix(settings.topicPrefix).sessionDeltas().name();
    BodyFiles files;
    try {
      files = settings.out == null ? null : new BodyFiles(settings.out);
    } catch (IOException e) {
      terminal
          .err()
          .println("prefixlog reconstruct: cannot create --out " + settings.out + ": " + e);
      return FAILED;
    }
    String input;
    String sampling = null;
    DumpReader dump = null;
    Spool spool = null;
    try {
      if (settings.archive != null) {
        ArchiveSource.Stats s;
        spool = Spool.create();
        try (Progress progress =
            Progress.counting(terminal, settings.progress, "read", 0, "rows")) {
          s = ArchiveSource.read(settings.archive, settings.table, rebuilder, spool, progress);
        }
        input =
            String.format(
                Locale.ROOT,
                "archived table %s (%s, %s): %s, %s of values",
                s.table(),
                settings.archive.catalogUri(),
                settings.archive.warehouse(),
                Units.count(s.rows(), "row"),
                Units.bytes(s.bytes()));
      } else if (settings.file != null) {
        Path file = Path.of(settings.file);
        String name = settings.file;
        if (settings.file.equals("-")) {
          spool = Spool.create();
          try (InputStream in = stdin.get()) {
            in.transferTo(Channels.newOutputStream(spool.channel()));
          }
          file = spool.file();
          name = "stdin";
        }
        try (Progress progress = Progress.bytes(terminal, settings.progress, "read", 0)) {
          dump = DumpReader.indexFile(file, name, rebuilder, progress);
        }
        DumpReader.Stats s = dump.stats();
        input = describe(s);
      } else {
        TopicReader.Stats s;
        spool = Spool.create();
        try (Progress progress =
            Progress.counting(terminal, settings.progress, "read", 0, "records")) {
          s = TopicReader.read(settings.bootstrap, topic, rebuilder, spool, progress);
        }
        input =
            String.format(
                Locale.ROOT,
                "%s at %s: %s, %s (%s), %s of values",
                topic,
                settings.bootstrap,
                Units.count(s.partitions(), "partition"),
                Units.count(s.records(), "record"),
                Units.count(s.tombstones(), "tombstone"),
                Units.bytes(s.bytes()));
      }
      sampling = sampling(settings);
      RebuildReport result;
      try (Progress progress =
          Progress.counting(
              terminal, settings.progress, "check", rebuilder.pendingTurns(), "turns")) {
        Output output = new Output(files, settings.print, progress);
        result = rebuilder.run(output);
        if (settings.print && !output.printOnce(terminal.out())) {
          terminal
              .err()
              .println(
                  "prefixlog reconstruct: turn "
                      + settings.scope.seq()
                      + " exists in more than one chain of the session ("
                      + String.join(", ", output.printedChains())
                      + "): pass --chain");
          return FAILED;
        }
      }
      terminal.out().flush();
      return finish(settings, input, sampling, result, report);
    } catch (ReadException e) {
      terminal.err().println("prefixlog reconstruct: " + e.getMessage());
      return FAILED;
    } catch (IOException e) {
      terminal.err().println("prefixlog reconstruct: cannot read " + settings.file + ": " + e);
      return FAILED;
    } catch (UncheckedIOException e) {
      terminal.err().println("prefixlog reconstruct: " + e.getMessage() + ": " + e.getCause());
      return FAILED;
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
  private String sampling(Settings settings) throws IOException {
    SampledOut sampled = new SampledOut(settings.scope.sessionKey());
    if (settings.metadataFile != null) {
      sampled.addDump(Path.of(settings.metadataFile));
      return sampled.tally().line();
    }
    if (settings.archive != null || settings.file != null) {
      return null;
    }
    String topic = Topics.withPrefix(settings.topicPrefix).requestsMetadata().name();
    try (Progress progress =
        Progress.counting(terminal, settings.progress, "read", 0, "metadata records")) {
      sampled.addTopic(settings.bootstrap, topic, progress);
    } catch (TopicScan.ScanException e) {
      return "sampled out: unknown (" + e.getMessage() + ")\n";
    }
    return sampled.tally().line();
  }

  private int finish(
      Settings settings, String input, String sampling, RebuildReport result, PrintStream report) {
    Counts c = result.counts();
    boolean empty = c.turns() == 0 && result.problemCount() == 0;
    boolean passed = result.passed(settings.allowGaps) && !empty;
    if (!(settings.quiet && passed)) {
      // --quiet: silent on success, the summary on stderr on failure.
      PrintStream to = settings.quiet ? terminal.err() : report;
      to.print(summary(input, sampling, result, settings.allowGaps));
      if (empty) {
        to.println("FAILED: no delta records in the input");
      }
      to.flush();
    }
    return passed ? OK : FAILED;
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

  /** The validated command line. */
  static final class Settings {
    String bootstrap;
    String topicPrefix;
    String file;
    String metadataFile;
    ArchiveSettings archive;
    String table;
    RebuildScope scope;
    Path out;
    boolean print;
    boolean allowGaps;
    boolean quiet;
    boolean progress;

    static Settings from(CommandLine line, Map<String, String> env) throws UsageException {
      Settings s = new Settings();
      if (line.has("archive") && line.has("file")) {
        throw new UsageException("--archive and --file are two different inputs: pick one");
      }
      s.archive = ArchiveOptions.settings(line, env, List.of("table"));
      if (s.archive != null) {
        s.table = line.string("table", ArchivedTopic.NAMESPACE + ".session_deltas");
        if (!s.table.contains(".")) {
          throw new UsageException("--table must be namespace.name, e.g. prefixlog.session_deltas");
        }
      }
      s.bootstrap = line.hostPort("bootstrap", DEFAULT_BOOTSTRAP);
      s.topicPrefix = line.string("topic-prefix", Topics.DEFAULT_PREFIX);
      s.file = line.value("file").orElse(null);
      if (s.file != null && s.file.isEmpty()) {
        throw new UsageException("--file needs a path, or - for stdin");
      }
      if (s.file != null && !s.file.equals("-") && !Files.isRegularFile(Path.of(s.file))) {
        throw new UsageException("--file " + s.file + ": no such file");
      }
      s.metadataFile = line.value("metadata-file").orElse(null);
      if (s.metadataFile != null && s.archive != null) {
        throw new UsageException(
            "--metadata-file goes with --file or the topics: the archive's requests_metadata"
                + " table is not read yet");
      }
      if (s.metadataFile != null && !Files.isRegularFile(Path.of(s.metadataFile))) {
        throw new UsageException("--metadata-file " + s.metadataFile + ": no such file");
      }
      String session = line.value("session").orElse(null);
      if (session != null && session.isEmpty()) {
        throw new UsageException("--session needs a session_key");
      }
      Long seq = line.has("seq") ? line.longValue("seq", 1, 1) : null;
      if (seq != null && session == null) {
        throw new UsageException("--seq needs --session: a seq is only unique within a session");
      }
      String chain = line.value("chain").orElse(null);
      if (chain != null && session == null) {
        throw new UsageException(
            "--chain needs --session: a chain is only unique within a session");
      }
      if (chain != null && !ChainIds.isValid(chain)) {
        throw new UsageException("--chain " + chain + ": expected 8 lower-case hex digits");
      }
      s.scope = new RebuildScope(session, chain, seq);
      s.out = line.value("out").map(Path::of).orElse(null);
      s.print = line.has("print");
      if (s.print && seq == null) {
        throw new UsageException("--print needs --session and --seq: it writes one body");
      }
      s.allowGaps = line.has("allow-gaps");
      s.quiet = line.has("quiet");
      s.progress = line.has("progress");
      if (s.quiet && s.progress) {
        throw new UsageException("--quiet and --progress contradict each other");
      }
      return s;
    }
  }
}
