package io.prefixlog.archive;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The connector and worker configuration templates of {@code archive/src/main/connect/}, rendered
 * by replacing {@code ${NAME}} placeholders (envsubst syntax, so a deployment can render the same
 * files from its environment).
 */
public final class ConnectTemplates {
  /** The sink connector template: one topic into one table. */
  public static final String SINK = "iceberg-sink.properties";

  /** The standalone worker template. */
  public static final String WORKER = "worker-standalone.properties";

  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Z0-9_]+)\\}");

  private ConnectTemplates() {}

  /** The sink connector's properties for one archived topic. */
  public static String sink(
      ArchivedTopic topic, ArchiveSettings settings, String bootstrapServers, int tasksMax) {
    Map<String, String> values = new HashMap<>();
    values.put("CONNECTOR_NAME", topic.connector());
    values.put("TOPIC", topic.topic());
    values.put("TABLE", topic.table());
    values.put("CONTROL_TOPIC", topic.controlTopic());
    values.put("TASKS_MAX", Integer.toString(tasksMax));
    values.put("BOOTSTRAP_SERVERS", bootstrapServers);
    values.put("COMMIT_INTERVAL_MS", Long.toString(settings.commitInterval().toMillis()));
    values.put("CATALOG_URI", settings.catalogUri());
    values.put("CATALOG_USER", settings.catalogUser());
    values.put("CATALOG_PASSWORD", settings.catalogPassword());
    values.put("WAREHOUSE", settings.warehouse());
    values.put("S3_ENDPOINT", settings.s3Endpoint());
    values.put("S3_PATH_STYLE_ACCESS", Boolean.toString(settings.pathStyleAccess()));
    values.put("S3_ACCESS_KEY", settings.s3AccessKey());
    values.put("S3_SECRET_KEY", settings.s3SecretKey());
    values.put("S3_REGION", settings.s3Region());
    return render(SINK, values);
  }

  /** Replaces every placeholder of the named template; all must have a value. */
  public static String render(String template, Map<String, String> values) {
    Objects.requireNonNull(values, "values");
    String text = read(template);
    Set<String> missing = new TreeSet<>(placeholders(text));
    missing.removeAll(values.keySet());
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException(
          "template " + template + " needs values for " + String.join(", ", missing));
    }
    Matcher m = PLACEHOLDER.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String value = values.get(m.group(1));
      if (value.contains("\n") || value.contains("\r")) {
        throw new IllegalArgumentException(
            "template value " + m.group(1) + " must be one line but has a line break");
      }
      m.appendReplacement(out, Matcher.quoteReplacement(escape(value)));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** The placeholders a template uses, in order of first use. */
  public static List<String> placeholders(String text) {
    Matcher m = PLACEHOLDER.matcher(text);
    List<String> names = new ArrayList<>();
    while (m.find()) {
      if (!names.contains(m.group(1))) {
        names.add(m.group(1));
      }
    }
    return List.copyOf(names);
  }

  /** The template's text as shipped. */
  public static String read(String template) {
    String resource = "connect/" + Objects.requireNonNull(template, "template");
    try (InputStream in = ConnectTemplates.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalArgumentException("no connect template " + template);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read connect template " + template, e);
    }
  }

  /** Escapes what java.util.Properties would otherwise interpret in a value. */
  private static String escape(String value) {
    return value.replace("\\", "\\\\");
  }
}
