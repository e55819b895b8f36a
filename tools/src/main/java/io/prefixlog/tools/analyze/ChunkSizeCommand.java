package io.prefixlog.tools.analyze;

import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.UsageException;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.archive.ArchiveOptions;
import io.prefixlog.tools.reconstruct.CaptureInput;
import io.prefixlog.tools.reconstruct.RebuildSummary;
import io.prefixlog.tools.topic.TopicOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * {@code analyze --chunk-sizes}: its options, and the run that rebuilds the capture ({@link
 * CaptureInput}, as {@code export} does), re-chunks it ({@link ChunkSizeWhatIf}) and writes the
 * report, {@code chunk-sizes.csv} and {@code chunk-sizes.png}.
 */
final class ChunkSizeCommand {
  /** Options that only the lookup-record analysis reads. */
  private static final List<String> LOOKUP_ONLY =
      List.of(
          "file",
          "model",
          "capacity",
          "bytes-per-chunk",
          "window",
          "window-requests",
          "sample",
          "replicas");

  private static final List<String> WHAT_IF_ONLY =
      List.of("tokenizer", "kv-bytes-per-token", "deltas-file", "archive", "table");

  /** A size beyond this is no chunk any engine or cache uses, and a rendering rarely fills it. */
  static final int MAX_CHUNK_SIZE = 1 << 24;

  private ChunkSizeCommand() {}

  static void settings(CommandLine line, Map<String, String> env, AnalyzeRequest.Builder s)
      throws UsageException {
    if (!line.has("chunk-sizes")) {
      for (String option : WHAT_IF_ONLY) {
        if (line.has(option)) {
          throw new UsageException("--" + option + " needs --chunk-sizes");
        }
      }
      return;
    }
    for (String option : LOOKUP_ONLY) {
      if (line.has(option)) {
        throw new UsageException(
            "--"
                + option
                + " reads lookup records; --chunk-sizes rebuilds the capture instead (from the"
                + " deltas topic, --deltas-file or --archive)");
      }
    }
    TreeSet<Integer> sizes = new TreeSet<>();
    for (String part : line.value("chunk-sizes").orElseThrow().split(",")) {
      String text = part.strip();
      if (text.isEmpty()) {
        continue;
      }
      int size;
      try {
        size = Integer.parseInt(text);
      } catch (NumberFormatException e) {
        throw new UsageException("--chunk-sizes: not a whole number: '" + text + "'");
      }
      if (size < 1 || size > MAX_CHUNK_SIZE) {
        throw new UsageException(
            "--chunk-sizes: a size is 1 to " + MAX_CHUNK_SIZE + " units, got " + size);
      }
      sizes.add(size);
    }
    if (sizes.isEmpty()) {
      throw new UsageException("--chunk-sizes needs sizes, e.g. 64,256,1024");
    }
    s.chunkSizes = sizes.stream().mapToInt(Integer::intValue).toArray();
    s.tokenizer = line.value("tokenizer").map(Path::of).orElse(null);
    if (s.tokenizer != null && !Files.isRegularFile(s.tokenizer)) {
      throw new UsageException("--tokenizer " + s.tokenizer + ": no such file");
    }
    if (line.has("kv-bytes-per-token")) {
      try {
        s.kvBytesPerToken = Quantities.bytes(line.value("kv-bytes-per-token").orElseThrow());
      } catch (IllegalArgumentException e) {
        throw new UsageException("--kv-bytes-per-token: " + e.getMessage());
      }
      if (s.kvBytesPerToken < 1) {
        throw new UsageException("--kv-bytes-per-token must be at least 1 byte");
      }
    }
    s.deltasFile = line.value("deltas-file").map(Path::of).orElse(null);
    if (s.deltasFile != null && !Files.isRegularFile(s.deltasFile)) {
      throw new UsageException("--deltas-file " + s.deltasFile + ": no such file");
    }
    if (s.deltasFile != null && line.has("archive")) {
      throw new UsageException("--deltas-file and --archive are two different inputs: pick one");
    }
    if ((s.deltasFile != null || line.has("archive")) && TopicOptions.given(line)) {
      throw new UsageException(
          "--bootstrap and --topic-prefix read the deltas topic; --deltas-file and --archive are"
              + " other inputs: give one");
    }
    s.archive = ArchiveOptions.settings(line, env, List.of("table"));
    if (s.archive != null) {
      s.table = line.string("table", ArchivedTopic.NAMESPACE + ".session_deltas");
      if (!s.table.contains(".")) {
        throw new UsageException("--table must be namespace.name, e.g. prefixlog.session_deltas");
      }
    }
  }

  static int run(Terminal terminal, AnalyzeRequest s, List<Path> written) {
    CaptureInput input =
        s.deltasFile() != null
            ? CaptureInput.dump(s.deltasFile())
            : s.archive() != null
                ? CaptureInput.archive(s.archive(), s.table())
                : CaptureInput.topic(s.bootstrap(), s.topicPrefix());
    ChunkSizeWhatIf.Plan plan =
        new ChunkSizeWhatIf.Plan(s.chunkSizes(), s.tokenizer() != null, s.kvBytesPerToken());
    PromptTokenizer tokenizer = null;
    try {
      if (s.tokenizer() != null) {
        try {
          tokenizer = PromptTokenizer.load(s.tokenizer());
        } catch (IOException e) {
          return failed(terminal, "--tokenizer " + e.getMessage());
        }
      }
      ChunkSizeWhatIf whatIf = new ChunkSizeWhatIf(plan, tokenizer);
      CaptureInput.Rebuilt rebuilt;
      try {
        rebuilt = input.rebuild(whatIf, terminal, s.progress());
      } catch (CaptureInput.InputException e) {
        return failed(terminal, e.getMessage());
      }
      return report(terminal, s, whatIf, rebuilt, written);
    } finally {
      if (tokenizer != null) {
        tokenizer.close();
      }
    }
  }

  private static int report(
      Terminal terminal,
      AnalyzeRequest s,
      ChunkSizeWhatIf whatIf,
      CaptureInput.Rebuilt rebuilt,
      List<Path> written) {
    PrintStream out = terminal.out();
    if (RebuildSummary.failed(
        out, "analyze", rebuilt.description(), rebuilt.report().counts(), "left out")) {
      return Command.FAILED;
    }
    if (whatIf.turns() == 0) {
      out.println("FAILED: no request to re-chunk");
      out.flush();
      return Command.FAILED;
    }
    List<ChunkSizeWhatIf.SizeResult> results = whatIf.analyze();
    out.print(whatIf.summary(results));
    out.flush();
    try {
      if (s.csv() != null) {
        written.add(whatIf.writeCsv(s.csv(), results, s.points()));
      }
      if (s.png() != null) {
        written.add(ChunkSizeChart.write(s.png(), whatIf, results));
      }
    } catch (IOException e) {
      return failed(terminal, "cannot write the output: " + e);
    }
    Report.written(out, written);
    return Command.OK;
  }

  private static int failed(Terminal terminal, String message) {
    terminal.err().println("prefixlog analyze: " + message);
    return Command.FAILED;
  }
}
