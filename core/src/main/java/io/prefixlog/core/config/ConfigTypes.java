package io.prefixlog.core.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The setting types prefixlog's services share. Sizes take {@code KiB}/{@code MiB}/{@code GiB} (or
 * {@code k}/{@code m}/{@code g}) and plain bytes; durations take {@code ms}/{@code s}/{@code
 * m}/{@code h}/{@code d}, plain digits being milliseconds. Every error names the key, the value as
 * given and the expected form.
 */
public final class ConfigTypes {
  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)?");
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(b|kib|mib|gib|k|m|g)?");

  private ConfigTypes() {}

  /** Free text, trimmed. */
  public static ConfigType<String> text() {
    return Text.INSTANCE;
  }

  /** An integer from {@code min} to {@code max}, both included. */
  public static ConfigType<Integer> integer(int min, int max) {
    String expected = "an integer from " + min + " to " + max;
    return new Bounded<>(
        (key, raw) -> parseInt(key, raw, expected),
        String::valueOf,
        min,
        max,
        expected,
        max == Integer.MAX_VALUE ? "integer ≥ " + min : "integer " + min + "–" + max);
  }

  /** A number from {@code min} to {@code max}, both included. */
  public static ConfigType<Double> decimal(double min, double max) {
    String expected = "a number from " + min + " to " + max;
    return new Bounded<>(
        (key, raw) -> parseDecimal(key, raw, expected),
        String::valueOf,
        min,
        max,
        expected,
        "number " + min + "–" + max);
  }

  /** {@code true}/{@code false} (also yes/no, on/off, 1/0). */
  public static ConfigType<Boolean> bool() {
    return Bool.INSTANCE;
  }

  /** A size in bytes from {@code min} to {@code max}. */
  public static ConfigType<Long> size(long min, long max) {
    String expected = "a size from " + min + " to " + max + " bytes";
    return new Bounded<>(
        (key, raw) -> parseSize(key, raw, expected),
        ConfigTypes::formatSize,
        min,
        max,
        expected,
        "size " + formatSize(min) + "–" + formatSize(max));
  }

  /** A duration above zero. */
  public static ConfigType<Duration> positiveDuration() {
    return duration(Duration.ofMillis(1), null, "above zero, such as 100ms", "duration > 0");
  }

  /** A duration of zero or more; {@code zeroMeans} says what 0 does (shown in the docs). */
  public static ConfigType<Duration> duration(String zeroMeans) {
    return duration(
        Duration.ZERO, null, "of 0 (" + zeroMeans + ") or more, such as 5s", "duration ≥ 0");
  }

  /**
   * A duration from {@code min} to {@code max}; {@code expected} completes "expected a duration".
   */
  public static ConfigType<Duration> duration(Duration min, Duration max, String expected) {
    return duration(
        min, max, expected, "duration " + formatDuration(min) + "–" + formatDuration(max));
  }

  private static ConfigType<Duration> duration(
      Duration min, Duration max, String expected, String description) {
    return new Bounded<>(
        ConfigTypes::parseDuration,
        ConfigTypes::formatDuration,
        min,
        max,
        "a duration " + expected,
        description);
  }

  /** A file-system path. */
  public static ConfigType<Path> path() {
    return PathType.INSTANCE;
  }

  /** One of an enum's constants, written in lower case. */
  public static <E extends Enum<E>> ConfigType<E> oneOf(Class<E> type) {
    return new OneOf<>(type);
  }

  /**
   * A value built from a comma-separated list ({@link #items}) by {@code of}, which throws {@link
   * IllegalArgumentException} for an item it does not take; written back by its {@code toString}.
   *
   * @param description what is accepted, for the docs
   */
  public static <T> ConfigType<T> listOf(Function<List<String>, T> of, String description) {
    return new ListOf<>(of, description);
  }

  /**
   * Comma-separated strings ({@link #items}) that {@code check} then normalises or refuses with a
   * {@link ConfigException} naming the key; a default goes through the same check. Written back
   * joined by commas.
   *
   * @param description what is accepted, for the docs
   */
  public static ConfigType<List<String>> strings(
      BiFunction<String, List<String>, List<String>> check, String description) {
    return new Strings(check, description);
  }

  /** The items of a comma-separated value, trimmed, blank ones dropped. */
  public static List<String> items(String value) {
    List<String> items = new ArrayList<>();
    for (String item : value.split(",")) {
      if (!item.isBlank()) {
        items.add(item.trim());
      }
    }
    return List.copyOf(items);
  }

  /** A duration as a user writes it, in the largest unit that holds it exactly. */
  public static String formatDuration(Duration value) {
    long ms = value.toMillis();
    if (ms == 0) {
      return "0";
    }
    long[] units = {86_400_000L, 3_600_000L, 60_000L, 1_000L};
    String[] names = {"d", "h", "m", "s"};
    for (int i = 0; i < units.length; i++) {
      if (ms % units[i] == 0) {
        return ms / units[i] + names[i];
      }
    }
    return ms + "ms";
  }

  /** A size as a user writes it, in the largest binary unit that holds it exactly. */
  public static String formatSize(long bytes) {
    if (bytes != 0) {
      if (bytes % (1L << 30) == 0) {
        return (bytes >> 30) + "GiB";
      }
      if (bytes % (1L << 20) == 0) {
        return (bytes >> 20) + "MiB";
      }
      if (bytes % (1L << 10) == 0) {
        return (bytes >> 10) + "KiB";
      }
    }
    return Long.toString(bytes);
  }

  static Duration parseDuration(String key, String raw) {
    Matcher m = DURATION.matcher(raw.toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new ConfigException(
          key + "=" + raw + ": expected a duration such as 500ms, 30s, 15m, 24h or 7d");
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
          key + "=" + raw + ": the duration is too large (at most about 292 million years)");
    }
  }

  static long parseSize(String key, String raw, String expected) {
    Matcher m = SIZE.matcher(raw.toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new ConfigException(
          key + "=" + raw + ": expected a size such as 16MiB, 512KiB or 1048576");
    }
    String unit = m.group(2) == null ? "b" : m.group(2);
    try {
      long n = Long.parseLong(m.group(1));
      // Exact arithmetic: a shift silently wrapped 17179869200g around to 16 GiB.
      return switch (unit) {
        case "k", "kib" -> Math.multiplyExact(n, 1L << 10);
        case "m", "mib" -> Math.multiplyExact(n, 1L << 20);
        case "g", "gib" -> Math.multiplyExact(n, 1L << 30);
        default -> n;
      };
    } catch (NumberFormatException | ArithmeticException e) {
      throw new ConfigException(key + "=" + raw + ": expected " + expected);
    }
  }

  private static int parseInt(String key, String raw, String expected) {
    try {
      return Integer.parseInt(raw);
    } catch (NumberFormatException e) {
      throw new ConfigException(key + "=" + raw + ": expected " + expected);
    }
  }

  private static double parseDecimal(String key, String raw, String expected) {
    try {
      double value = Double.parseDouble(raw);
      if (!Double.isNaN(value)) {
        return value;
      }
    } catch (NumberFormatException e) {
      // the error below says what is expected
    }
    throw new ConfigException(key + "=" + raw + ": expected " + expected);
  }

  static boolean parseBool(String key, String raw) {
    return switch (raw.toLowerCase(Locale.ROOT)) {
      case "true", "yes", "1", "on" -> true;
      case "false", "no", "0", "off" -> false;
      default -> throw new ConfigException(key + "=" + raw + ": expected true or false");
    };
  }

  private enum Text implements ConfigType<String> {
    INSTANCE;

    @Override
    public String parse(String key, String raw) {
      return raw.trim();
    }

    @Override
    public String format(String value) {
      return value;
    }

    @Override
    public String describe() {
      return "text";
    }
  }

  private record ListOf<T>(Function<List<String>, T> of, String description)
      implements ConfigType<T> {
    @Override
    public T parse(String key, String raw) {
      try {
        return of.apply(items(raw));
      } catch (IllegalArgumentException e) {
        throw new ConfigException(key + ": " + e.getMessage());
      }
    }

    @Override
    public String format(T value) {
      return value.toString();
    }

    @Override
    public String describe() {
      return description;
    }
  }

  private record Strings(BiFunction<String, List<String>, List<String>> checker, String description)
      implements ConfigType<List<String>> {
    @Override
    public List<String> parse(String key, String raw) {
      return check(key, items(raw));
    }

    @Override
    public List<String> check(String key, List<String> value) {
      return checker.apply(key, value);
    }

    @Override
    public String format(List<String> value) {
      return String.join(",", value);
    }

    @Override
    public String describe() {
      return description;
    }
  }

  private enum Bool implements ConfigType<Boolean> {
    INSTANCE;

    @Override
    public Boolean parse(String key, String raw) {
      return parseBool(key, raw);
    }

    @Override
    public String format(Boolean value) {
      return value.toString();
    }

    @Override
    public String describe() {
      return "true or false";
    }
  }

  private enum PathType implements ConfigType<Path> {
    INSTANCE;

    @Override
    public Path parse(String key, String raw) {
      try {
        return Path.of(raw.trim());
      } catch (java.nio.file.InvalidPathException e) {
        throw new ConfigException(key + "=" + raw + ": not a path (" + e.getReason() + ")");
      }
    }

    @Override
    public String format(Path value) {
      return value.toString();
    }

    @Override
    public String describe() {
      return "path";
    }
  }

  /** Reads the text of a value, or throws the error that names the expected form. */
  @FunctionalInterface
  private interface Reader<T> {
    T read(String key, String raw);
  }

  /**
   * A value of an ordered kind (integer, number, size, duration) within [{@code min}, {@code max}]
   * ({@code max} null: no upper bound). {@code expected} completes the range error, {@code
   * KEY=value: expected …}; {@code description} is the docs' values column.
   */
  private record Bounded<T extends Comparable<T>>(
      Reader<T> reader,
      Function<T, String> formatter,
      T min,
      T max,
      String expected,
      String description)
      implements ConfigType<T> {
    @Override
    public T parse(String key, String raw) {
      return check(key, reader.read(key, raw.trim()), raw);
    }

    @Override
    public T check(String key, T value) {
      return check(key, value, formatter.apply(value));
    }

    private T check(String key, T value, String shown) {
      Objects.requireNonNull(value, key);
      if (value.compareTo(min) < 0 || (max != null && value.compareTo(max) > 0)) {
        throw new ConfigException(key + "=" + shown + ": expected " + expected);
      }
      return value;
    }

    @Override
    public String format(T value) {
      return formatter.apply(value);
    }

    @Override
    public String describe() {
      return description;
    }
  }

  private record OneOf<E extends Enum<E>>(Class<E> type) implements ConfigType<E> {
    @Override
    public E parse(String key, String raw) {
      for (E constant : type.getEnumConstants()) {
        if (constant.name().equalsIgnoreCase(raw.trim())) {
          return constant;
        }
      }
      throw new ConfigException(key + "=" + raw + ": expected " + describe());
    }

    @Override
    public String format(E value) {
      return value.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public String describe() {
      List<String> names =
          Arrays.stream(type.getEnumConstants()).map(this::format).collect(Collectors.toList());
      String last = names.remove(names.size() - 1);
      return names.isEmpty() ? last : String.join(", ", names) + " or " + last;
    }
  }
}
