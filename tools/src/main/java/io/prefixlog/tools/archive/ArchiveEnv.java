package io.prefixlog.tools.archive;

import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.core.config.Settings;
import io.prefixlog.core.config.UnsafeDefaults;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The archive's settings from {@code PREFIXLOG_*} environment variables, shared by {@code up
 * --archive} and {@code reconstruct --archive}; every one has a development default for the
 * embedded path, refused for an S3 endpoint beyond loopback ({@link UnsafeDefaults}).
 */
public final class ArchiveEnv {
  public static final String BUCKET = "PREFIXLOG_S3_BUCKET";
  public static final String ACCESS_KEY = "PREFIXLOG_S3_ACCESS_KEY";
  public static final String SECRET_KEY = "PREFIXLOG_S3_SECRET_KEY";
  public static final String REGION = "PREFIXLOG_S3_REGION";

  /** The JDBC catalog's user and password (PostgreSQL); never in the URL. */
  public static final String CATALOG_USER = "PREFIXLOG_CATALOG_USER";

  public static final String CATALOG_PASSWORD = "PREFIXLOG_CATALOG_PASSWORD";
  public static final String COMMIT_INTERVAL = "PREFIXLOG_ARCHIVE_COMMIT_INTERVAL";

  public static final String DEFAULT_BUCKET = "prefixlog";
  public static final String DEFAULT_ACCESS_KEY = "prefixlog";
  public static final String DEFAULT_SECRET_KEY = "prefixlog-dev-secret";
  public static final String DEFAULT_REGION = "us-east-1";
  public static final Duration DEFAULT_COMMIT_INTERVAL = Duration.ofSeconds(10);

  private ArchiveEnv() {}

  /** The bucket name ({@value #BUCKET}, default {@value #DEFAULT_BUCKET}). */
  public static String bucket(Map<String, String> env) {
    return Settings.of(env).string(BUCKET, DEFAULT_BUCKET);
  }

  /** The warehouse location in the bucket: {@code s3://<bucket>/warehouse}. */
  public static String warehouse(Map<String, String> env) {
    return "s3://" + bucket(env) + "/warehouse";
  }

  /** The SQLite catalog file of the embedded path. */
  public static String sqliteUri(Path file) {
    return "jdbc:sqlite:" + file.toAbsolutePath();
  }

  /**
   * Settings for an S3 endpoint and a catalog URI, the rest from the environment.
   *
   * @throws io.prefixlog.core.config.ConfigException naming a bad variable
   */
  public static ArchiveSettings settings(
      Map<String, String> env, String s3Endpoint, String warehouse, String catalogUri) {
    Settings s = Settings.of(env);
    Duration commit = s.duration(COMMIT_INTERVAL, DEFAULT_COMMIT_INTERVAL);
    if (commit.toMillis() < 100) {
      throw new io.prefixlog.core.config.ConfigException(
          COMMIT_INTERVAL + "=" + commit.toMillis() + "ms: must be at least 100ms");
    }
    ArchiveSettings settings =
        new ArchiveSettings(
            s3Endpoint,
            s.string(REGION, DEFAULT_REGION),
            s.string(ACCESS_KEY, DEFAULT_ACCESS_KEY),
            s.string(SECRET_KEY, DEFAULT_SECRET_KEY),
            true,
            warehouse,
            catalogUri,
            s.string(CATALOG_USER, ""),
            s.string(CATALOG_PASSWORD, ""),
            commit);
    // The development keys open the embedded s3proxy on loopback; an object store other machines
    // reach with them would hold every archived prompt behind a published password.
    UnsafeDefaults.refuseBeyondLoopback(
        SECRET_KEY,
        settings.s3SecretKey(),
        UnsafeDefaults.hostOf(s3Endpoint),
        "the S3 endpoint " + s3Endpoint,
        "Set " + ACCESS_KEY + " and " + SECRET_KEY + " to the object store's credentials.");
    return settings;
  }
}
