package io.prefixlog.core.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Reads settings by their environment-variable name ({@code PREFIXLOG_BOOTSTRAP_SERVERS}). A
 * properties file may give the same settings under the same names; the environment wins over the
 * file, so a deployment can override one value without copying the file.
 */
public final class Settings {
  private final Map<String, String> values;

  private Settings(Map<String, String> values) {
    this.values = Map.copyOf(values);
  }

  /** Settings from exactly these values (tests, tools). */
  public static Settings of(Map<String, String> values) {
    return new Settings(values);
  }

  /**
   * The process environment over the properties file named by {@code fileVariable} (for example
   * {@code PREFIXLOG_CONFIG_FILE}), when that variable is set.
   */
  public static Settings fromEnvironment(Map<String, String> environment, String fileVariable) {
    Map<String, String> merged = new HashMap<>();
    String file = environment.get(fileVariable);
    if (file != null && !file.isBlank()) {
      Properties properties = new Properties();
      try (Reader reader = Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8)) {
        properties.load(reader);
      } catch (IOException e) {
        throw new ConfigException(fileVariable + "=" + file + ": cannot read the file: " + e);
      }
      properties.stringPropertyNames().forEach(k -> merged.put(k, properties.getProperty(k)));
    }
    merged.putAll(environment);
    return new Settings(merged);
  }

  /** This with {@code overrides} taking precedence (command-line options). */
  public Settings with(Map<String, String> overrides) {
    Map<String, String> merged = new HashMap<>(values);
    merged.putAll(overrides);
    return new Settings(merged);
  }

  public String string(String key, String defaultValue) {
    String value = values.get(key);
    return value == null || value.isBlank() ? defaultValue : value.trim();
  }

  public String required(String key, String form) {
    String value = string(key, null);
    if (value == null) {
      throw new ConfigException(key + " is required (" + form + ")");
    }
    return value;
  }

  public int integer(String key, int defaultValue, int min, int max) {
    String value = string(key, null);
    return value == null ? defaultValue : ConfigTypes.integer(min, max).parse(key, value);
  }

  public double decimal(String key, double defaultValue, double min, double max) {
    String value = string(key, null);
    return value == null ? defaultValue : ConfigTypes.decimal(min, max).parse(key, value);
  }

  public boolean bool(String key, boolean defaultValue) {
    String value = string(key, null);
    return value == null ? defaultValue : ConfigTypes.parseBool(key, value);
  }

  /**
   * A duration such as {@code 500ms}, {@code 30s}, {@code 15m}, {@code 24h}, {@code 7d}; plain
   * digits are milliseconds.
   */
  public Duration duration(String key, Duration defaultValue) {
    String value = string(key, null);
    return value == null ? defaultValue : ConfigTypes.parseDuration(key, value);
  }

  /** A size such as {@code 16MiB}, {@code 512KiB} or plain bytes. */
  public long bytes(String key, long defaultValue, long min, long max) {
    String value = string(key, null);
    return value == null ? defaultValue : ConfigTypes.size(min, max).parse(key, value);
  }

  /**
   * Kafka client settings passed through: every {@code <prefix>SECURITY_PROTOCOL}-style key becomes
   * {@code security.protocol}.
   */
  public Map<String, String> passThrough(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    Map<String, String> result = new TreeMap<>();
    values.forEach(
        (key, value) -> {
          if (key.startsWith(prefix) && key.length() > prefix.length()) {
            String name = key.substring(prefix.length()).toLowerCase(Locale.ROOT).replace('_', '.');
            result.put(name, value);
          }
        });
    return result;
  }
}
