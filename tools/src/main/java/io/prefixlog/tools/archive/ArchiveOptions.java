package io.prefixlog.tools.archive;

import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.ProjectHome;
import io.prefixlog.cli.UsageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The command-line options that open the Iceberg archive ({@code --archive}, {@code --s3-endpoint},
 * {@code --catalog-uri}, {@code --warehouse}), shared by {@code reconstruct}, {@code erase} and
 * {@code archive maintain}; credentials come from the environment ({@link ArchiveEnv}), never the
 * command line.
 */
public final class ArchiveOptions {
  public static final String DEFAULT_S3_ENDPOINT = "http://127.0.0.1:9000";

  private ArchiveOptions() {}

  /** The options, {@code --archive}'s help saying what it does for this command. */
  public static List<Option> options(String archiveHelp) {
    List<Option> options = new ArrayList<>();
    options.add(
        Option.flag(
            "archive",
            archiveHelp
                + " S3 credentials and region from PREFIXLOG_S3_ACCESS_KEY,"
                + " PREFIXLOG_S3_SECRET_KEY, PREFIXLOG_S3_REGION."));
    options.addAll(locationOptions("With --archive: "));
    return List.copyOf(options);
  }

  /**
   * Where the archive is, for a command that works on nothing else ({@code archive maintain}): the
   * same options without {@code --archive}.
   */
  public static List<Option> locationOptions() {
    return locationOptions("");
  }

  private static List<Option> locationOptions(String prefix) {
    return List.of(
        Option.value(
            "s3-endpoint",
            "URL",
            DEFAULT_S3_ENDPOINT,
            capitalized(prefix, "the S3-compatible endpoint (path-style access).")),
        Option.value(
            "catalog-uri",
            "JDBC-URL",
            "jdbc:sqlite:<project>/var/up/archive/catalog.db",
            capitalized(
                prefix,
                "the Iceberg JDBC catalog (jdbc:sqlite:… or"
                    + " jdbc:postgresql://host:port/db; its user and password from"
                    + " PREFIXLOG_CATALOG_USER and PREFIXLOG_CATALOG_PASSWORD).")),
        Option.value(
            "warehouse",
            "S3-URL",
            "s3://$PREFIXLOG_S3_BUCKET/warehouse",
            capitalized(prefix, "the warehouse location.")));
  }

  private static String capitalized(String prefix, String help) {
    return prefix.isEmpty()
        ? Character.toUpperCase(help.charAt(0)) + help.substring(1)
        : prefix + help;
  }

  /**
   * The archive's settings when {@code --archive} is given, else null (and then none of its options
   * may be).
   *
   * @param also more options that need {@code --archive}
   */
  public static ArchiveSettings settings(
      CommandLine line, Map<String, String> env, List<String> also) throws UsageException {
    if (!line.has("archive")) {
      for (String option :
          java.util.stream.Stream.concat(
                  List.of("s3-endpoint", "catalog-uri", "warehouse").stream(), also.stream())
              .toList()) {
        if (line.has(option)) {
          throw new UsageException("--" + option + " needs --archive");
        }
      }
      return null;
    }
    return locate(line, env);
  }

  /**
   * The archive's settings from {@link #locationOptions()} and the environment.
   *
   * @throws UsageException for a catalog URI with a password or a SQLite file that is not there
   */
  public static ArchiveSettings locate(CommandLine line, Map<String, String> env)
      throws UsageException {
    String catalog =
        line.value("catalog-uri")
            .orElseGet(
                () ->
                    ArchiveEnv.sqliteUri(
                        ProjectHome.find()
                            .orElse(Path.of("").toAbsolutePath())
                            .resolve("var/up/archive/catalog.db")));
    if (catalog.toLowerCase(java.util.Locale.ROOT).matches(".*[?&;]password=.*")) {
      // Iceberg's and the driver's errors quote the URL, and a command line shows in ps.
      throw new UsageException(
          "--catalog-uri carries a password: give the catalog's user and password as "
              + ArchiveEnv.CATALOG_USER
              + " and "
              + ArchiveEnv.CATALOG_PASSWORD
              + " instead");
    }
    if (catalog.startsWith("jdbc:sqlite:")
        && !Files.isRegularFile(Path.of(catalog.substring("jdbc:sqlite:".length())))) {
      // Opening it would create an empty catalog; up --archive writes
      // <data-dir>/archive/catalog.db.
      throw new UsageException(
          "--catalog-uri "
              + catalog
              + ": no such SQLite file (up --archive writes <data-dir>/archive/catalog.db)");
    }
    return ArchiveEnv.settings(
        env,
        line.string("s3-endpoint", DEFAULT_S3_ENDPOINT),
        line.string("warehouse", ArchiveEnv.warehouse(env)),
        catalog);
  }
}
