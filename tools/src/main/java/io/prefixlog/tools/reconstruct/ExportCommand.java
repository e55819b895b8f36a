package io.prefixlog.tools.reconstruct;

import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.UsageException;
import io.prefixlog.schemas.Topics;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.analyze.LookupExport;
import io.prefixlog.tools.topic.TopicOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code prefixlog export}: the captured requests, rebuilt from the session deltas topic (or a kcat
 * {@code -J} dump of it) as {@code reconstruct} rebuilds them, written as a Mooncake trace or a
 * {@code vllm bench serve} custom dataset ({@link TraceExport}). Lives beside {@code reconstruct}
 * because it is a reader of the same rebuild. With {@code --lmcache-lookups DIR} it writes the
 * chunk lookups instead, as LMCache's lookup-hash log ({@link LookupExport}).
 */
public final class ExportCommand implements Command {
  static final int DEFAULT_BLOCK_BYTES = 2048;
  static final long DEFAULT_OUTPUT_TOKENS = 256;

  static final List<Option> OPTIONS =
      List.of(
          Option.value(
              "format",
              "FORMAT",
              "none (required, but with --lmcache-lookups)",
              "mooncake: Mooncake's trace JSONL (timestamp, input_length, output_length, hash_ids),"
                  + " for Dynamo's simulators; vllm-custom: vllm bench serve's custom dataset"
                  + " (prompt, output_tokens)."),
          Option.value(
              "out",
              "FILE",
              "none (required, but with --lmcache-lookups)",
              "The file to write (replaced whole, via a temporary file); vllm-custom needs a"
                  + " .jsonl name, as vLLM reads no other."),
          TopicOptions.BOOTSTRAP,
          TopicOptions.topicPrefix(
              "Prefix of every topic name: the turns are read from <prefix>session.deltas (with"
                  + " --lmcache-lookups, the lookups from <prefix>chunk.lookups)."),
          Option.value(
                  "file",
                  "PATH",
                  "none (read the topic)",
                  "Read a kcat -J dump of the deltas topic instead (keys kept, so erased turns are"
                      + " known); a value-only dump with tombstones is refused. With"
                      + " --lmcache-lookups: dumps of the lookups topic (kcat -J envelopes, or record"
                      + " values one per line, which have no keys to resolve version 2 records by), a"
                      + " file or a directory of *.jsonl (.gz read through gzip); repeatable.")
              .repeatable(),
          Option.value(
              "block-bytes",
              "N",
              Integer.toString(DEFAULT_BLOCK_BYTES),
              "mooncake: bytes of the rendered prompt per hash_ids block (2048 bytes is about"
                  + " Mooncake's 512 tokens at 4 bytes a token)."),
          Option.value(
              "default-output-tokens",
              "N",
              Long.toString(DEFAULT_OUTPUT_TOKENS),
              "Output length of a turn whose response usage (completion_tokens) was not"
                  + " captured."),
          Option.value(
              "lmcache-lookups",
              "DIR",
              "none (export requests)",
              "Write the chunk lookups instead of requests: LMCache's lookup-hash log"
                  + " (DIR/lookup_hashes_<UTC>_000000.jsonl), one version 1 record per line in"
                  + " timestamp order, whatever version the topic holds. DIR is created if need be"
                  + " and must hold no *.jsonl file."),
          Option.value(
              "chain-memory",
              "SIZE",
              "256MiB",
              "With --lmcache-lookups: heap for resolving version 2 records, the newest turn's"
                  + " hashes of each chain (about 60 bytes a hash)."),
          Option.flag(
              "allow-unresolved",
              "With --lmcache-lookups: exit 0 even when some version 2 records could not be"
                  + " resolved (they are counted, said why, and left out of the file)."),
          Option.flag("progress", "Show progress bars even when stderr is not a terminal."));

  private static final String DESCRIPTION =
      """
      Writes the captured requests as a trace another tool replays. The bodies are rebuilt from
      the session deltas topic (<prefix>session.deltas, read_committed, from the beginning to the
      end offsets at start) or a kcat -J dump of it, and each is checked against its body_sha256
      as reconstruct does; only checked turns are written, in arrival order. Erased turns (a
      tombstone newer than the record) are never rebuilt, so nothing of an erased session is
      written. A prompt is the body rendered as prefixlog chunks it (roles, contents, tool
      definitions; a completion's prompt); a body that is neither a chat nor a completion request
      is skipped and counted. Lengths come from the captured usage (prompt_tokens,
      completion_tokens); where absent, the input length is estimated at 4 bytes a token and the
      output length is --default-output-tokens, and the summary counts both. Exit code 0 when
      the file was written; 1 when the input could not be read, a turn failed its check or
      nothing was exported; 2 for a bad command line.

      With --lmcache-lookups DIR: the chunk lookups (<prefix>chunk.lookups, read_committed, from
      the beginning to the end offsets at start, or --file dumps of it) as LMCache's lookup-hash
      log, for LMCache's tools and anyone who reads that format: each lookup as a version 1
      record, the whole hash list in chunk_hashes. Version 2 records (a turn's hashes after those
      it shares with the previous turn of its chain) are resolved in the order of their partition
      and written byte for byte as version 1 wrote them; version 1 records as the topic holds
      them. The latest record of a key wins and a tombstone removes it, so nothing erased is
      written. A record whose chain's previous turn was not read (the read began inside the
      chain: retention deleted its start) cannot be resolved: it is counted, with why, and left
      out, and its chain resolves again from its next whole record (at most 64 turns on). Exit
      code 0 when the file was written and every record resolved (or --allow-unresolved); 1
      otherwise.
      """;

  private final Terminal terminal;

  public ExportCommand(Terminal terminal) {
    this.terminal = terminal;
  }

  @Override
  public Spec spec() {
    return new Spec(
        "export",
        "Write captured traffic as a Mooncake trace or a vllm bench serve custom dataset, or the"
            + " chunk lookups as LMCache's lookup-hash log.",
        DESCRIPTION,
        OPTIONS);
  }

  @Override
  public int run(String[] args) {
    return invoke(args, terminal, Settings::from, this::export);
  }

  private int export(Settings settings) {
    if (settings.lookups() != null) {
      return LookupExport.run(terminal, settings.lookups());
    }
    return new ExportService(terminal).run(settings.traces()).outcome().exitCode();
  }

  /**
   * The command line read: a trace export, or, with {@code --lmcache-lookups}, the lookups (one of
   * the two is null).
   */
  record Settings(ExportRequest traces, LookupExport.Settings lookups) {
    static Settings from(CommandLine line) throws UsageException {
      if (line.has("lmcache-lookups")) {
        return new Settings(null, lookups(line));
      }
      for (String option : List.of("chain-memory", "allow-unresolved")) {
        if (line.has(option)) {
          throw new UsageException("--" + option + " needs --lmcache-lookups");
        }
      }
      if (line.values("file").size() > 1) {
        throw new UsageException("--file: one dump of the deltas topic");
      }
      String format =
          line.value("format")
              .orElseThrow(
                  () -> new UsageException("--format is required: mooncake or vllm-custom"));
      ExportFormat parsed;
      try {
        parsed = ExportFormat.of(format);
      } catch (IllegalArgumentException e) {
        throw new UsageException("--format: " + e.getMessage());
      }
      String out =
          line.value("out").orElseThrow(() -> new UsageException("--out FILE is required"));
      if (out.isEmpty()) {
        throw new UsageException("--out needs a file name");
      }
      if (parsed == ExportFormat.VLLM_CUSTOM && !out.endsWith(".jsonl")) {
        throw new UsageException(
            "--out " + out + ": vllm bench serve reads a custom dataset only from a .jsonl file");
      }
      String file = line.value("file").orElse(null);
      if (file != null && TopicOptions.given(line)) {
        throw new UsageException(
            "--file reads a dump, --bootstrap and --topic-prefix the topic: give one or the other");
      }
      if (file != null && !Files.isRegularFile(Path.of(file))) {
        throw new UsageException("--file " + file + ": no such file");
      }
      return new Settings(
          new ExportRequest(
              parsed,
              Path.of(out),
              TopicOptions.bootstrap(line),
              TopicOptions.topicPrefix(line),
              file == null ? null : Path.of(file),
              (int)
                  Math.min(
                      Integer.MAX_VALUE, line.longValue("block-bytes", DEFAULT_BLOCK_BYTES, 1)),
              line.longValue("default-output-tokens", DEFAULT_OUTPUT_TOKENS, 1),
              line.has("progress")),
          null);
    }

    /** The settings of {@code --lmcache-lookups}, which writes lookups, not requests. */
    private static LookupExport.Settings lookups(CommandLine line) throws UsageException {
      for (String option : List.of("format", "out", "block-bytes", "default-output-tokens")) {
        if (line.has(option)) {
          throw new UsageException(
              "--" + option + " is for requests; --lmcache-lookups writes the lookups");
        }
      }
      String directory = line.value("lmcache-lookups").orElseThrow();
      if (directory.isEmpty()) {
        throw new UsageException("--lmcache-lookups needs a directory");
      }
      List<String> files = line.values("file");
      for (String file : files) {
        if (file.isEmpty()) {
          throw new UsageException("--file needs a path");
        }
      }
      if (!files.isEmpty() && TopicOptions.given(line)) {
        throw new UsageException(
            "--file reads dumps, --bootstrap and --topic-prefix the topic: give one or the other");
      }
      String bootstrap = TopicOptions.bootstrap(line);
      String topic = Topics.withPrefix(TopicOptions.topicPrefix(line)).chunkLookups().name();
      return new LookupExport.Settings(
          new LookupExport.Input(bootstrap, topic, files),
          Path.of(directory),
          LookupExport.chainMemory(line),
          line.has("allow-unresolved"),
          line.has("progress"));
    }
  }
}
