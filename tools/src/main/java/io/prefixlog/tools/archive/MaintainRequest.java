package io.prefixlog.tools.archive;

import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.archive.maintain.MaintenancePolicy;
import io.prefixlog.schemas.Topics;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What {@link ArchiveMaintainService} maintains and how: {@code prefixlog archive maintain}'s
 * options, typed.
 *
 * @param archive where the archive is
 * @param tables the tables to maintain, {@code namespace.name}
 * @param policy what a run does
 * @param every how long to wait after a run before the next; null: run once
 */
public record MaintainRequest(
    ArchiveSettings archive, List<String> tables, MaintenancePolicy policy, Duration every) {
  public MaintainRequest {
    Objects.requireNonNull(archive, "archive");
    tables = List.copyOf(tables);
    Objects.requireNonNull(policy, "policy");
  }

  /** One run over every table of the archive with the default policy, as the command's default. */
  public static MaintainRequest once(ArchiveSettings archive) {
    return new MaintainRequest(archive, defaultTables(), MaintenancePolicy.defaults(), null);
  }

  /** The archive's tables, as {@code PrepareCatalog} creates them. */
  static List<String> defaultTables() {
    return ArchivedTopic.all(Topics.DEFAULT_PREFIX).stream().map(ArchivedTopic::table).toList();
  }
}
