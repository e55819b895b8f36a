package io.prefixlog.archive;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Creates the archive's namespace and tables (with {@link ArchiveCatalog}) before the sink
 * connectors are registered, for deployments other than the embedded one (docker-compose runs it
 * from the plugin directory's jars):
 *
 * <pre>
 * java -cp 'iceberg-sink/lib/*:slf4j-api.jar:kafka-clients.jar' io.prefixlog.archive.PrepareCatalog \
 *   --s3-endpoint http://minio:9000 --warehouse s3://prefixlog/warehouse \
 *   --catalog-uri jdbc:postgresql://postgres:5432/iceberg [--topic-prefix prefixlog.]
 * </pre>
 *
 * S3 keys and region from {@code PREFIXLOG_S3_ACCESS_KEY}, {@code PREFIXLOG_S3_SECRET_KEY}, {@code
 * PREFIXLOG_S3_REGION} (default {@code us-east-1}); the catalog's database user and password from
 * {@code PREFIXLOG_CATALOG_USER} and {@code PREFIXLOG_CATALOG_PASSWORD}. Exit status 0 when the
 * tables exist afterwards, 1 on failure, 2 for a bad command line.
 */
public final class PrepareCatalog {
  private PrepareCatalog() {}

  public static void main(String[] args) {
    System.exit(run(args, System.getenv(), System.out, System.err));
  }

  static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    Map<String, String> options = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      String name = args[i];
      if (!List.of("--s3-endpoint", "--warehouse", "--catalog-uri", "--topic-prefix").contains(name)
          || i + 1 >= args.length) {
        err.println(
            "usage: PrepareCatalog --s3-endpoint URL --warehouse s3://BUCKET/PATH"
                + " --catalog-uri JDBC-URL [--topic-prefix PREFIX]");
        return 2;
      }
      options.put(name, args[++i]);
    }
    for (String required : List.of("--s3-endpoint", "--warehouse", "--catalog-uri")) {
      if (!options.containsKey(required)) {
        err.println("PrepareCatalog: " + required + " is required");
        return 2;
      }
    }
    try {
      ArchiveSettings settings =
          new ArchiveSettings(
              options.get("--s3-endpoint"),
              env.getOrDefault("PREFIXLOG_S3_REGION", "us-east-1"),
              required(env, "PREFIXLOG_S3_ACCESS_KEY"),
              required(env, "PREFIXLOG_S3_SECRET_KEY"),
              true,
              options.get("--warehouse"),
              options.get("--catalog-uri"),
              env.getOrDefault("PREFIXLOG_CATALOG_USER", ""),
              env.getOrDefault("PREFIXLOG_CATALOG_PASSWORD", ""),
              Duration.ofSeconds(10));
      List<ArchivedTopic> topics =
          ArchivedTopic.all(options.getOrDefault("--topic-prefix", "prefixlog."));
      ArchiveCatalog.Prepared prepared = ArchiveCatalog.prepare(settings, topics);
      List<String> created = prepared.created();
      out.println(
          "PrepareCatalog: "
              + settings.catalogUri()
              + ": created "
              + (created.isEmpty() ? "nothing (all tables existed)" : String.join(", ", created)));
      prepared
          .columnsAdded()
          .forEach(
              (table, columns) ->
                  out.println(
                      "PrepareCatalog: "
                          + table
                          + ": added columns "
                          + String.join(", ", columns)));
      return 0;
    } catch (IllegalArgumentException e) {
      err.println("PrepareCatalog: " + e.getMessage());
      return 2;
    } catch (IOException | RuntimeException e) {
      err.println("PrepareCatalog: cannot prepare the catalog: " + e);
      return 1;
    }
  }

  private static String required(Map<String, String> env, String name) {
    String value = env.get(name);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(name + " must be set (the S3 credentials)");
    }
    return value;
  }
}
