package io.prefixlog.tools.archive;

import io.prefixlog.archive.maintain.MaintenancePolicy;
import io.prefixlog.archive.maintain.MaintenancePolicy.Step;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.UsageException;
import io.prefixlog.core.config.ConfigTypes;
import io.prefixlog.core.config.Settings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** The options of {@code prefixlog archive maintain}, and the command line read into a request. */
final class MaintainOptions {
  /** The shortest wait between scheduled runs: each run lists every table's files. */
  static final Duration MIN_EVERY = Duration.ofMinutes(1);

  private MaintainOptions() {}

  /** The archive's tables, as {@code PrepareCatalog} creates them. */
  static List<String> defaultTables() {
    return MaintainRequest.defaultTables();
  }

  static MaintainRequest from(CommandLine line, Map<String, String> env) throws UsageException {
    MaintenancePolicy defaults = MaintenancePolicy.defaults();
    Set<Step> steps = EnumSet.allOf(Step.class);
    for (String skipped : line.values("skip")) {
      steps.remove(step(skipped));
    }
    if (steps.isEmpty()) {
      throw new UsageException("--skip leaves no step to run");
    }
    long target = size(line, "target-file-size", defaults.targetFileBytes());
    long small =
        size(
            line,
            "small-file-size",
            line.has("target-file-size") ? target * 3 / 4 : defaults.smallFileBytes());
    if (small > target) {
      throw new UsageException(
          "--small-file-size "
              + ConfigTypes.formatSize(small)
              + " is larger than --target-file-size "
              + ConfigTypes.formatSize(target)
              + ": compacted files would be small again");
    }
    Duration orphanMinAge = duration(line, "orphan-min-age", defaults.orphanMinAge());
    if (orphanMinAge.compareTo(MaintenancePolicy.MIN_ORPHAN_MIN_AGE) < 0) {
      throw new UsageException(
          "--orphan-min-age "
              + ConfigTypes.formatDuration(orphanMinAge)
              + " is shorter than "
              + ConfigTypes.formatDuration(MaintenancePolicy.MIN_ORPHAN_MIN_AGE)
              + ": a younger file may be one the sink has written and not committed yet");
    }
    MaintenancePolicy policy =
        new MaintenancePolicy(
            steps,
            target,
            small,
            (int) line.longValue("min-files", defaults.minInputFiles(), 2),
            size(line, "sort-buffer", defaults.sortBufferBytes()),
            duration(line, "snapshot-retention", defaults.snapshotRetention()),
            (int) line.longValue("retain-last", defaults.retainLast(), 1),
            orphanMinAge,
            line.has("dry-run"));
    Duration every = null;
    if (line.has("every")) {
      every = duration(line, "every", null);
      if (every.compareTo(MIN_EVERY) < 0) {
        throw new UsageException(
            "--every " + ConfigTypes.formatDuration(every) + " is shorter than 1m");
      }
    }
    List<String> tables = line.values("table").isEmpty() ? defaultTables() : line.values("table");
    for (String table : tables) {
      if (!table.matches("[a-z0-9_]+\\.[a-z0-9_]+")) {
        throw new UsageException(
            "--table " + table + ": expected namespace.name, e.g. prefixlog.session_deltas");
      }
    }
    return new MaintainRequest(
        ArchiveOptions.locate(line, env), List.copyOf(new LinkedHashSet<>(tables)), policy, every);
  }

  private static Step step(String name) throws UsageException {
    for (Step step : Step.values()) {
      if (step.id().equals(name.trim().toLowerCase(Locale.ROOT))) {
        return step;
      }
    }
    throw new UsageException("--skip " + name + ": expected one of " + stepNames());
  }

  private static String stepNames() {
    return Arrays.stream(Step.values()).map(Step::id).collect(Collectors.joining(", "));
  }

  private static long size(CommandLine line, String name, long defaultValue) {
    return Settings.of(line.value(name).map(v -> Map.of("--" + name, v)).orElse(Map.of()))
        .bytes("--" + name, defaultValue, MaintenancePolicy.MIB, 1L << 40);
  }

  private static Duration duration(CommandLine line, String name, Duration defaultValue) {
    return Settings.of(line.value(name).map(v -> Map.of("--" + name, v)).orElse(Map.of()))
        .duration("--" + name, defaultValue);
  }

  /** The options, in the order the help lists them. */
  static List<Option> all() {
    MaintenancePolicy d = MaintenancePolicy.defaults();
    List<Option> all = new ArrayList<>(ArchiveOptions.locationOptions());
    all.add(
        Option.value(
                "table",
                "NAMESPACE.NAME",
                String.join(", ", defaultTables()),
                "A table to maintain.")
            .repeatable());
    all.add(
        Option.value(
                "skip",
                "STEP",
                null,
                "Leave out a step: "
                    + stepNames()
                    + ". The steps run in that order, each committed on its own.")
            .repeatable());
    all.add(
        Option.value(
            "snapshot-retention",
            "DURATION",
            ConfigTypes.formatDuration(d.snapshotRetention()),
            "Expire snapshots older than this, with the files only they use (the small files an"
                + " earlier run compacted away, old manifests). Time travel reaches back this far;"
                + " each sink commit rewrites the table metadata, which lists every snapshot kept."));
    all.add(
        Option.value(
            "retain-last",
            "N",
            Integer.toString(d.retainLast()),
            "Keep at least the newest N snapshots, however old."));
    all.add(
        Option.value(
            "target-file-size",
            "SIZE",
            ConfigTypes.formatSize(d.targetFileBytes()),
            "Compacted files are rolled over at about this size (e.g. 64MiB)."));
    all.add(
        Option.value(
            "small-file-size",
            "SIZE",
            ConfigTypes.formatSize(d.smallFileBytes()) + " (3/4 of --target-file-size)",
            "Data files smaller than this are compacted; larger ones are left alone."));
    all.add(
        Option.value(
            "min-files",
            "N",
            Integer.toString(d.minInputFiles()),
            "Compact a partition (a day) only when it has at least N small files."));
    all.add(
        Option.value(
            "sort-buffer",
            "SIZE",
            ConfigTypes.formatSize(d.sortBufferBytes()),
            "At most this much input Parquet is read and sorted in memory at once; a day with"
                + " more is sorted in session-key ranges, one pass over its files each. Rows"
                + " take several times their Parquet size on the heap."));
    all.add(
        Option.value(
            "orphan-min-age",
            "DURATION",
            ConfigTypes.formatDuration(d.orphanMinAge()),
            "Remove a file no snapshot references only when it is older than this, counted from"
                + " now and from the table's last append (a stopped sink may still commit files it"
                + " wrote when it resumes). At least "
                + ConfigTypes.formatDuration(MaintenancePolicy.MIN_ORPHAN_MIN_AGE)
                + ": younger files may be a running writer's."));
    all.add(
        Option.flag(
            "dry-run", "Plan every step and report what it would do; commit and delete nothing."));
    all.add(
        Option.value(
            "every",
            "DURATION",
            "run once",
            "Run again this long after each run ends, until stopped (at least 1m); a failed run"
                + " is reported and the next one still runs. docker-compose runs it this way."));
    return List.copyOf(all);
  }
}
