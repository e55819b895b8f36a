package io.prefixlog.tools.reconstruct;

import io.prefixlog.cli.Outcome;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.Units;
import io.prefixlog.core.rebuild.RebuildReport;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Objects;

/**
 * Writes captured traffic as a Mooncake trace or a {@code vllm bench serve} custom dataset: every
 * turn rebuilt from the deltas topic or a dump of it and checked as reconstruct does, its prompt
 * rendered as the chunk hashes see it. The summary goes to the terminal given, as {@code prefixlog
 * export} prints it.
 */
public final class ExportService {
  /**
   * What a run ended with.
   *
   * @param outcome done when the file was written
   * @param written the file written, or {@code null}
   * @param requests the requests written
   */
  public record Result(Outcome outcome, Path written, long requests) {
    static final Result FAILED = new Result(Outcome.FAILED, null, 0);

    public Result {
      Objects.requireNonNull(outcome, "outcome");
    }
  }

  private final Terminal terminal;

  public ExportService(Terminal terminal) {
    this.terminal = Objects.requireNonNull(terminal, "terminal");
  }

  /** Rebuilds the capture the request names and writes it in its format. */
  public Result run(ExportRequest settings) {
    Objects.requireNonNull(settings, "settings");
    TraceExport export =
        new TraceExport(settings.format(), settings.blockBytes(), settings.defaultOutputTokens());
    CaptureInput input =
        settings.file() != null
            ? CaptureInput.dump(settings.file())
            : CaptureInput.topic(settings.bootstrap(), settings.topicPrefix());
    CaptureInput.Rebuilt rebuilt;
    try {
      rebuilt = input.rebuild(export, terminal, settings.progress());
    } catch (CaptureInput.InputException e) {
      return failed(e.getMessage());
    }
    return write(settings, rebuilt.description(), rebuilt.report(), export);
  }

  private Result write(
      ExportRequest settings, String input, RebuildReport report, TraceExport export) {
    PrintStream out = terminal.out();
    if (RebuildSummary.failed(out, "export", input, report.counts(), "not exported")) {
      return Result.FAILED;
    }
    if (export.exported() == 0) {
      out.println("FAILED: no chat or completion request to export");
      out.flush();
      return Result.FAILED;
    }
    long blocks;
    Path target = settings.out();
    try {
      Path parent = target.toAbsolutePath().getParent();
      Files.createDirectories(parent);
      Path temporary = Files.createTempFile(parent, ".export-", ".part");
      try {
        try (OutputStream stream = new BufferedOutputStream(Files.newOutputStream(temporary))) {
          blocks = export.write(stream);
        }
        Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
      } finally {
        Files.deleteIfExists(temporary);
      }
    } catch (IOException e) {
      return failed("cannot write " + target + ": " + e);
    }
    out.printf(
        Locale.ROOT,
        "  wrote %s %s as %s%s%n",
        Units.count(export.exported(), "request"),
        target,
        settings.format().wireName,
        settings.format() == ExportFormat.MOONCAKE
            ? " ("
                + Units.count(blocks, "distinct block")
                + " of "
                + settings.blockBytes()
                + " bytes)"
            : "");
    out.printf(
        Locale.ROOT,
        "  skipped %s (not a chat or completion request); input length estimated (no"
            + " prompt_tokens) for %s; output length defaulted to %d (no completion_tokens) for"
            + " %s%n",
        Units.count(export.notPrompts()),
        Units.count(export.estimatedInputs()),
        settings.defaultOutputTokens(),
        Units.count(export.defaultedOutputs()));
    out.flush();
    return new Result(Outcome.DONE, target, export.exported());
  }

  private Result failed(String message) {
    terminal.err().println("prefixlog export: " + message);
    return Result.FAILED;
  }
}
