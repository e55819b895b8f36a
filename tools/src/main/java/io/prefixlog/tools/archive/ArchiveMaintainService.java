package io.prefixlog.tools.archive;

import io.prefixlog.archive.maintain.ArchiveMaintainer;
import io.prefixlog.archive.maintain.MaintenanceFailure;
import io.prefixlog.archive.maintain.TableMaintenance;
import io.prefixlog.cli.Causes;
import io.prefixlog.cli.Outcome;
import io.prefixlog.cli.Terminal;
import io.prefixlog.tools.Command;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Keeps the Iceberg archive's file count bounded while the sink commits every minute ({@link
 * ArchiveMaintainer}: expire snapshots, compact small files sorted by session, merge manifests,
 * remove orphans), once or every {@link MaintainRequest#every()}. Progress on the terminal's err,
 * one summary line per table on its out, as {@code prefixlog archive maintain} prints them.
 */
public final class ArchiveMaintainService {
  /** The prefix of every line it prints: the command that runs it. */
  static final String MAINTAIN = "prefixlog archive maintain";

  /** Waits between scheduled runs; tests stop the loop by throwing. */
  @FunctionalInterface
  interface Sleeper {
    void sleep(Duration duration) throws InterruptedException;
  }

  /**
   * What the last run ended with.
   *
   * @param outcome done when every table was maintained
   * @param maintained what the last run did to each table it maintained, in order
   */
  public record Result(Outcome outcome, List<TableMaintenance> maintained) {
    public Result {
      Objects.requireNonNull(outcome, "outcome");
      maintained = List.copyOf(maintained);
    }
  }

  private final Terminal terminal;
  private final Sleeper sleeper;
  private final Clock clock;

  public ArchiveMaintainService(Terminal terminal) {
    this(terminal, d -> Thread.sleep(d.toMillis()), Clock.systemUTC());
  }

  ArchiveMaintainService(Terminal terminal, Sleeper sleeper, Clock clock) {
    this.terminal = Objects.requireNonNull(terminal, "terminal");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Runs once, or, with {@link MaintainRequest#every()}, until the thread is interrupted; returns
   * the last run's result.
   */
  public Result run(MaintainRequest options) {
    Objects.requireNonNull(options, "options");
    List<TableMaintenance> maintained = new ArrayList<>();
    int code = maintain(options, maintained);
    return new Result(Outcome.ofExitCode(code), maintained);
  }

  private int maintain(MaintainRequest options, List<TableMaintenance> maintained) {
    if (options.every() == null) {
      return runOnce(options, 1, maintained);
    }
    int code = Command.OK;
    for (int run = 1; ; run++) {
      code = runOnce(options, run, maintained);
      Instant next = clock.instant().plus(options.every());
      say("next run at " + next);
      try {
        sleeper.sleep(options.every());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        say("stopped");
        return code;
      }
    }
  }

  /** One run over every table; a table that fails does not stop the others. */
  private int runOnce(MaintainRequest options, int run, List<TableMaintenance> maintained) {
    long started = System.nanoTime();
    say(
        "run "
            + run
            + " at "
            + clock.instant()
            + (options.policy().dryRun() ? " (dry run)" : "")
            + ": "
            + options.tables().size()
            + " tables of "
            + options.archive().catalogUri());
    int failed = 0;
    maintained.clear();
    ArchiveMaintainer maintainer;
    try {
      maintainer = ArchiveMaintainer.open(options.archive());
    } catch (RuntimeException e) {
      say(
          "run "
              + run
              + " FAILED: cannot open the catalog "
              + options.archive().catalogUri()
              + ": "
              + Causes.describe(e));
      return Command.FAILED;
    }
    try (maintainer) {
      for (String table : options.tables()) {
        try {
          TableMaintenance done = maintainer.maintain(table, options.policy(), this::say);
          terminal.out().println(done.summary());
          maintained.add(done);
        } catch (MaintenanceFailure e) {
          failed++;
          say("FAILED " + Causes.describe(e));
        }
      }
    } catch (IOException e) {
      say("closing the catalog: " + Causes.describe(e));
    }
    terminal.out().flush();
    say(
        String.format(
            Locale.ROOT,
            "run %d done in %.1f s: %d of %d tables maintained%s",
            run,
            (System.nanoTime() - started) / 1e9,
            options.tables().size() - failed,
            options.tables().size(),
            failed == 0 ? "" : ", " + failed + " FAILED"));
    return failed == 0 ? Command.OK : Command.FAILED;
  }

  /** A line on stderr, prefixed with the command's name as every line this service writes there. */
  private void say(String line) {
    terminal.err().println(MAINTAIN + ": " + line);
  }
}
