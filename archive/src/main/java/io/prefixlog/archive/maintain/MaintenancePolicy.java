package io.prefixlog.archive.maintain;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * What one maintenance run of a table does, and its limits.
 *
 * @param steps the steps to run, always in {@link Step}'s order
 * @param targetFileBytes compacted files are rolled over at about this size
 * @param smallFileBytes data files smaller than this are compacted; larger ones are left as they
 *     are
 * @param minInputFiles a partition is compacted only when it holds at least this many small files
 *     (one small file is already as compact as it gets)
 * @param sortBufferBytes at most this many bytes of input Parquet are held and sorted at once; a
 *     partition with more small-file bytes is sorted in key ranges, each one a pass over its files
 * @param snapshotRetention snapshots older than this are expired (with the files only they use)
 * @param retainLast this many of the newest snapshots are kept, however old
 * @param orphanMinAge files no snapshot references are removed only when they are older than this;
 *     data files also only when they are that much older than the table's last append: a sink
 *     writes its files before it commits them, and a sink that stopped may still commit what it
 *     wrote when it resumes
 * @param dryRun plan and report every step, commit and delete nothing
 */
public record MaintenancePolicy(
    Set<Step> steps,
    long targetFileBytes,
    long smallFileBytes,
    int minInputFiles,
    long sortBufferBytes,
    Duration snapshotRetention,
    int retainLast,
    Duration orphanMinAge,
    boolean dryRun) {

  /** The steps of a run, in the order they run. */
  public enum Step {
    /**
     * Expire old snapshots first: what a neglected table accumulates (a commit a minute) is mostly
     * snapshots, and every commit of the later steps rewrites the table metadata that lists them.
     */
    EXPIRE,
    /** Rewrite each partition's small data files into files sorted by session. */
    COMPACT,
    /** Merge the small manifests (the sink adds one per commit) into manifests of target size. */
    MANIFESTS,
    /** Remove files under the table's location that no snapshot or metadata file references. */
    ORPHANS;

    /** The step's name on a command line. */
    public String id() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  public static final long MIB = 1L << 20;
  public static final long DEFAULT_TARGET_FILE_BYTES = 128 * MIB;
  public static final long DEFAULT_SMALL_FILE_BYTES = 96 * MIB;
  public static final int DEFAULT_MIN_INPUT_FILES = 2;
  public static final long DEFAULT_SORT_BUFFER_BYTES = 32 * MIB;

  /**
   * One day: the sink commits every minute, and each commit rewrites the table's metadata file,
   * which lists every retained snapshot (1,440 a day, about a megabyte); time travel further back
   * than a day is not something prefixlog's readers do.
   */
  public static final Duration DEFAULT_SNAPSHOT_RETENTION = Duration.ofDays(1);

  public static final int DEFAULT_RETAIN_LAST = 1;

  /** Iceberg's own default for orphan removal; far beyond the sink's commit interval. */
  public static final Duration DEFAULT_ORPHAN_MIN_AGE = Duration.ofDays(3);

  /**
   * Below this an orphan may be a file a running writer has not committed yet: the sink's files
   * wait a commit interval (and its retries), a compaction's files the whole rewrite.
   */
  public static final Duration MIN_ORPHAN_MIN_AGE = Duration.ofHours(1);

  public MaintenancePolicy {
    Objects.requireNonNull(steps, "steps");
    steps = Set.copyOf(steps);
    Objects.requireNonNull(snapshotRetention, "snapshotRetention");
    Objects.requireNonNull(orphanMinAge, "orphanMinAge");
    if (targetFileBytes < MIB) {
      throw new IllegalArgumentException(
          "targetFileBytes must be at least 1 MiB but was " + targetFileBytes);
    }
    if (smallFileBytes < 1 || smallFileBytes > targetFileBytes) {
      throw new IllegalArgumentException(
          "smallFileBytes must be from 1 to targetFileBytes ("
              + targetFileBytes
              + ") but was "
              + smallFileBytes);
    }
    if (minInputFiles < 2) {
      throw new IllegalArgumentException(
          "minInputFiles must be at least 2 but was " + minInputFiles);
    }
    if (sortBufferBytes < MIB) {
      throw new IllegalArgumentException(
          "sortBufferBytes must be at least 1 MiB but was " + sortBufferBytes);
    }
    if (snapshotRetention.isNegative()) {
      throw new IllegalArgumentException(
          "snapshotRetention must not be negative but was " + snapshotRetention);
    }
    if (retainLast < 1) {
      throw new IllegalArgumentException("retainLast must be at least 1 but was " + retainLast);
    }
    if (orphanMinAge.compareTo(MIN_ORPHAN_MIN_AGE) < 0) {
      throw new IllegalArgumentException(
          "orphanMinAge must be at least "
              + MIN_ORPHAN_MIN_AGE.toHours()
              + "h (younger files may be a running writer's, not yet committed) but was "
              + orphanMinAge);
    }
  }

  /** Every step, with the defaults above. */
  public static MaintenancePolicy defaults() {
    return new MaintenancePolicy(
        EnumSet.allOf(Step.class),
        DEFAULT_TARGET_FILE_BYTES,
        DEFAULT_SMALL_FILE_BYTES,
        DEFAULT_MIN_INPUT_FILES,
        DEFAULT_SORT_BUFFER_BYTES,
        DEFAULT_SNAPSHOT_RETENTION,
        DEFAULT_RETAIN_LAST,
        DEFAULT_ORPHAN_MIN_AGE,
        false);
  }

  /** This policy with only {@code steps}. */
  public MaintenancePolicy withSteps(Set<Step> steps) {
    return with(steps, sortBufferBytes, dryRun);
  }

  /** This policy sorting at most {@code bytes} of input at once. */
  public MaintenancePolicy withSortBufferBytes(long bytes) {
    return with(steps, bytes, dryRun);
  }

  /** This policy, changing nothing when {@code dryRun}. */
  public MaintenancePolicy withDryRun(boolean dryRun) {
    return with(steps, sortBufferBytes, dryRun);
  }

  /** This policy with the settings a run may change, the others as they are. */
  private MaintenancePolicy with(Set<Step> steps, long sortBufferBytes, boolean dryRun) {
    return new MaintenancePolicy(
        steps,
        targetFileBytes,
        smallFileBytes,
        minInputFiles,
        sortBufferBytes,
        snapshotRetention,
        retainLast,
        orphanMinAge,
        dryRun);
  }

  /** Whether the run includes {@code step}. */
  public boolean runs(Step step) {
    return steps.contains(step);
  }
}
