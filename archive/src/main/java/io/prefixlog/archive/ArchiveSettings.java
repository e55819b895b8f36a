package io.prefixlog.archive;

import java.time.Duration;
import java.util.Objects;

/**
 * Where the archive lives: the S3-compatible endpoint and its credentials, the warehouse location
 * in it, and the JDBC catalog that names the tables' current metadata. Both the sink connectors and
 * the archive reader are configured from one of these.
 *
 * @param s3Endpoint e.g. {@code http://127.0.0.1:9000}
 * @param s3Region any region name; the AWS SDK requires one even for a local server
 * @param pathStyleAccess {@code bucket} in the path, not in the host name (s3proxy, MinIO)
 * @param warehouse e.g. {@code s3://prefixlog/warehouse}
 * @param catalogUri e.g. {@code jdbc:sqlite:/data/catalog.db} or {@code
 *     jdbc:postgresql://postgres:5432/iceberg}
 * @param catalogUser empty for SQLite
 * @param commitInterval how often the sink commits a snapshot (and the data becomes visible)
 */
public record ArchiveSettings(
    String s3Endpoint,
    String s3Region,
    String s3AccessKey,
    String s3SecretKey,
    boolean pathStyleAccess,
    String warehouse,
    String catalogUri,
    String catalogUser,
    String catalogPassword,
    Duration commitInterval) {
  /** The sink's default JDBC catalog name; a reader must use the same one to find the tables. */
  public static final String CATALOG_NAME = "iceberg";

  public ArchiveSettings {
    requireText("s3Endpoint", s3Endpoint);
    requireText("s3Region", s3Region);
    requireText("s3AccessKey", s3AccessKey);
    requireText("s3SecretKey", s3SecretKey);
    requireText("warehouse", warehouse);
    requireText("catalogUri", catalogUri);
    Objects.requireNonNull(catalogUser, "catalogUser");
    Objects.requireNonNull(catalogPassword, "catalogPassword");
    Objects.requireNonNull(commitInterval, "commitInterval");
    if (!s3Endpoint.startsWith("http://") && !s3Endpoint.startsWith("https://")) {
      throw new IllegalArgumentException(
          "s3Endpoint must be an http:// or https:// URL but was '" + s3Endpoint + "'");
    }
    if (!warehouse.startsWith("s3://")) {
      throw new IllegalArgumentException(
          "warehouse must be an s3://bucket/path location but was '" + warehouse + "'");
    }
    if (!catalogUri.startsWith("jdbc:")) {
      throw new IllegalArgumentException(
          "catalogUri must be a jdbc: URL but was '" + catalogUri + "'");
    }
    if (commitInterval.toMillis() < 100) {
      throw new IllegalArgumentException(
          "commitInterval must be at least 100 ms but was " + commitInterval);
    }
  }

  /** The bucket of the warehouse location. */
  public String bucket() {
    String rest = warehouse.substring("s3://".length());
    int slash = rest.indexOf('/');
    return slash < 0 ? rest : rest.substring(0, slash);
  }

  @Override
  public String toString() {
    // Never the secret key or the catalog password.
    return "ArchiveSettings[s3Endpoint="
        + s3Endpoint
        + ", warehouse="
        + warehouse
        + ", catalogUri="
        + catalogUri
        + ", commitInterval="
        + commitInterval
        + "]";
  }

  private static void requireText(String name, String value) {
    Objects.requireNonNull(value, name);
    if (value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
  }
}
