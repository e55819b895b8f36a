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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads settings by their environment-variable name ({@code PREFIXLOG_BOOTSTRAP_SERVERS}). A
 * properties file may give the same settings under the same names; the environment wins over the
 * file, so a deployment can override one value without copying the file.
 */
public final class Settings {
  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)?");
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(b|kib|mib|gib|k|m|g)?");

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
    if (value == null) {
      return defaultValue;
    }
    try {
      int parsed = Integer.parseInt(value);
      if (parsed < min || parsed > max) {
        throw new ConfigException(
            key + "=" + value + ": expected an integer from " + min + " to " + max);
      }
      return parsed;
    } catch (NumberFormatException e) {
      throw new ConfigException(
          key + "=" + value + ": expected an integer from " + min + " to " + max);
    }
  }

  public double decimal(String key, double defaultValue, double min, double max) {
    String value = string(key, null);
    if (value == null) {
      return defaultValue;
    }
    try {
      double parsed = Double.parseDouble(value);
      if (!(parsed >= min && parsed <= max)) {
        throw new ConfigException(
            key + "=" + value + ": expected a number from " + min + " to " + max);
      }
      return parsed;
    } catch (NumberFormatException e) {
      throw new ConfigException(
          key + "=" + value + ": expected a number from " + min + " to " + max);
    }
  }

  public boolean bool(String key, boolean defaultValue) {
    String value = string(key, null);
    if (value == null) {
      return defaultValue;
    }
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "true", "yes", "1", "on" -> true;
      case "false", "no", "0", "off" -> false;
      default -> throw new ConfigException(key + "=" + value + ": expected true or false");
    };
  }

  /**
   * A duration such as {@code 500ms}, {@code 30s}, {@code 15m}, {@code 24h}, {@code 7d}; plain
   * digits are milliseconds.
   */
  public Duration duration(String key, Duration defaultValue) {
    String value = string(key, null);
    if (value == null) {
      return defaultValue;
    }
    Matcher m = DURATION.matcher(value.toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new ConfigException(
          key + "=" + value + ": expected a duration such as 500ms, 30s, 15m, 24h or 7d");
    }
    String unit = m.group(2) == null ? "ms" : m.group(2);
    try {
      long n = Long.parseLong(m.group(1));
      Duration parsed =
          switch (unit) {
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            case "d" -> Duration.ofDays(n);
            default -> Duration.ofMillis(n);
          };
      parsed.toMillis(); // every reader takes milliseconds: refuse what they cannot hold
      return parsed;
    } catch (NumberFormatException | ArithmeticException e) {
      throw new ConfigException(
          key + "=" + value + ": the duration is too large (at most about 292 million years)");
    }
  }

  /** A size such as {@code 16MiB}, {@code 512KiB} or plain bytes. */
  public long bytes(String key, long defaultValue, long min, long max) {
    String value = string(key, null);
    if (value == null) {
      return defaultValue;
    }
    Matcher m = SIZE.matcher(value.toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new ConfigException(
          key + "=" + value + ": expected a size such as 16MiB, 512KiB or 1048576");
    }
    String unit = m.group(2) == null ? "b" : m.group(2);
    long parsed;
    try {
      long n = Long.parseLong(m.group(1));
      // Exact arithmetic: a shift silently wrapped 17179869200g around to 16 GiB.
      parsed =
          switch (unit) {
            case "k", "kib" -> Math.multiplyExact(n, 1L << 10);
            case "m", "mib" -> Math.multiplyExact(n, 1L << 20);
            case "g", "gib" -> Math.multiplyExact(n, 1L << 30);
            default -> n;
          };
    } catch (NumberFormatException | ArithmeticException e) {
      throw new ConfigException(
          key + "=" + value + ": expected a size from " + min + " to " + max + " bytes");
    }
    if (parsed < min || parsed > max) {
      throw new ConfigException(
          key + "=" + value + ": expected a size from " + min + " to " + max + " bytes");
    }
    return parsed;
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
