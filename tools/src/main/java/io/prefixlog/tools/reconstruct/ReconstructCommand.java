package io.prefixlog.tools.reconstruct;

import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.UsageException;
import io.prefixlog.core.delta.ChainIds;
import io.prefixlog.core.rebuild.RebuildScope;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.archive.ArchiveOptions;
import io.prefixlog.tools.topic.TopicOptions;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code prefixlog reconstruct}: rebuilds request bodies from the session deltas topic (or a dump
 * of it) and checks each against its record's length and SHA-256. Exit code 0 only when every turn
 * examined was rebuilt and checked.
 */
public final class ReconstructCommand implements Command {

  static final List<Option> OPTIONS =
      concat(
          List.of(
              TopicOptions.BOOTSTRAP,
              TopicOptions.TOPIC_PREFIX,
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
    return runService(
        args,
        terminal,
        Settings::from,
        request -> new ReconstructService(terminal, stdin).run(request).outcome());
  }

  /** The command line read into a request. */
  static final class Settings {
    private Settings() {}

    static ReconstructRequest from(CommandLine line, Map<String, String> env)
        throws UsageException {
      ReconstructRequest.Builder s = ReconstructRequest.builder();
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
      s.bootstrap = TopicOptions.bootstrap(line);
      s.topicPrefix = TopicOptions.topicPrefix(line);
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
      return s.build();
    }
  }
}
