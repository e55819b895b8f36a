package io.prefixlog.tools.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A parsed command line: {@code --name value}, {@code --name=value} and {@code --flag}. Every
 * command accepts {@code --help} / {@code -h}. Errors name the bad option and what it expects.
 */
public final class CommandLine {
  private static final Option HELP = Option.flag("help", "Show this help and exit.");

  private final String command;
  private final Map<String, List<String>> values;

  private CommandLine(String command, Map<String, List<String>> values) {
    this.command = command;
    this.values = values;
  }

  /**
   * Parses {@code args} against the command's options.
   *
   * @throws UsageException for an unknown option, a missing value, a repeated option that is not
   *     repeatable, or a positional argument
   */
  public static CommandLine parse(String command, List<Option> options, String... args)
      throws UsageException {
    Map<String, Option> byName = new LinkedHashMap<>();
    for (Option option : options) {
      byName.put(option.name(), option);
    }
    byName.putIfAbsent(HELP.name(), HELP);
    Map<String, List<String>> values = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("-h")) {
        arg = "--help";
      }
      if (!arg.startsWith("--") || arg.length() == 2) {
        throw new UsageException(
            "unexpected argument '"
                + arg
                + "' (options start with --; see "
                + command
                + " --help)");
      }
      String name = arg.substring(2);
      String value = null;
      int equals = name.indexOf('=');
      if (equals >= 0) {
        value = name.substring(equals + 1);
        name = name.substring(0, equals);
      }
      Option option = byName.get(name);
      if (option == null) {
        throw new UsageException(
            "unknown option --"
                + name
                + suggestion(name, byName)
                + " (see "
                + command
                + " --help)");
      }
      if (option.isFlag()) {
        if (value != null) {
          throw new UsageException("--" + name + " is a flag and takes no value");
        }
        value = "";
      } else if (value == null) {
        if (i + 1 >= args.length) {
          throw new UsageException(
              "--" + name + " needs a value: --" + name + " " + option.valueName());
        }
        value = args[++i];
      }
      List<String> list = values.computeIfAbsent(name, n -> new ArrayList<>());
      if (!list.isEmpty() && !option.multiple()) {
        throw new UsageException("--" + name + " is given more than once");
      }
      list.add(value);
    }
    return new CommandLine(command, values);
  }

  public boolean helpRequested() {
    return has(HELP.name());
  }

  public boolean has(String name) {
    return values.containsKey(name);
  }

  public Optional<String> value(String name) {
    List<String> list = values.get(name);
    return list == null ? Optional.empty() : Optional.of(list.get(list.size() - 1));
  }

  public List<String> values(String name) {
    return List.copyOf(values.getOrDefault(name, List.of()));
  }

  public String string(String name, String defaultValue) {
    return value(name).orElse(defaultValue);
  }

  /**
   * A whole number of at least {@code min}.
   *
   * @throws UsageException naming the option when the value is not such a number
   */
  public long longValue(String name, long defaultValue, long min) throws UsageException {
    Optional<String> text = value(name);
    if (text.isEmpty()) {
      return defaultValue;
    }
    long value;
    try {
      value = Long.parseLong(text.get().trim());
    } catch (NumberFormatException e) {
      throw new UsageException("--" + name + " needs a whole number, got '" + text.get() + "'");
    }
    if (value < min) {
      throw new UsageException("--" + name + " must be at least " + min + ", got " + value);
    }
    return value;
  }

  /**
   * A finite number of at least {@code min}.
   *
   * @throws UsageException naming the option when the value is not such a number
   */
  public double doubleValue(String name, double defaultValue, double min) throws UsageException {
    Optional<String> text = value(name);
    if (text.isEmpty()) {
      return defaultValue;
    }
    double value;
    try {
      value = Double.parseDouble(text.get().trim());
    } catch (NumberFormatException e) {
      throw new UsageException("--" + name + " needs a number, got '" + text.get() + "'");
    }
    if (!Double.isFinite(value) || value < min) {
      throw new UsageException(
          "--" + name + " must be a number of at least " + format(min) + ", got " + text.get());
    }
    return value;
  }

  /**
   * A {@code HOST:PORT} address.
   *
   * @throws UsageException naming the option when the value has no port
   */
  public String hostPort(String name, String defaultValue) throws UsageException {
    String value = string(name, defaultValue);
    for (String address : value.split(",", -1)) {
      int colon = address.lastIndexOf(':');
      boolean ok = colon > 0 && colon < address.length() - 1;
      if (ok) {
        try {
          int port = Integer.parseInt(address.substring(colon + 1));
          ok = port > 0 && port < 65536;
        } catch (NumberFormatException e) {
          ok = false;
        }
      }
      if (!ok) {
        throw new UsageException(
            "--" + name + " needs HOST:PORT[,HOST:PORT...], got '" + value + "'");
      }
    }
    return value;
  }

  public String command() {
    return command;
  }

  /**
   * The help text of a command: usage, description, then every option with its default.
   *
   * @param description what the command does (may be several lines)
   */
  public static String help(String command, String description, List<Option> options) {
    Objects.requireNonNull(description, "description");
    StringBuilder s = new StringBuilder();
    s.append("Usage: ").append(command).append(" [options]\n\n");
    s.append(description.strip()).append("\n\nOptions:\n");
    List<Option> all = new ArrayList<>(options);
    if (all.stream().noneMatch(o -> o.name().equals(HELP.name()))) {
      all.add(HELP);
    }
    for (Option option : all) {
      String head = "  --" + option.name() + (option.isFlag() ? "" : " " + option.valueName());
      s.append(head).append('\n');
      StringBuilder text = new StringBuilder(option.help());
      if (option.multiple()) {
        text.append(" May be repeated.");
      }
      if (option.defaultText() != null) {
        text.append(" Default: ").append(option.defaultText()).append('.');
      }
      for (String line : wrap(text.toString(), 72)) {
        s.append("      ").append(line).append('\n');
      }
    }
    return s.toString();
  }

  private static List<String> wrap(String text, int width) {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    for (String word : text.split(" ")) {
      if (line.length() > 0 && line.length() + 1 + word.length() > width) {
        lines.add(line.toString());
        line.setLength(0);
      }
      if (line.length() > 0) {
        line.append(' ');
      }
      line.append(word);
    }
    if (line.length() > 0) {
      lines.add(line.toString());
    }
    return lines;
  }

  private static String suggestion(String name, Map<String, Option> byName) {
    String lower = name.toLowerCase(Locale.ROOT);
    for (String candidate : byName.keySet()) {
      if (candidate.startsWith(lower)
          || lower.startsWith(candidate)
          || distance(lower, candidate) <= 2) {
        return " (did you mean --" + candidate + "?)";
      }
    }
    return "";
  }

  private static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        current[j] =
            Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }

  private static String format(double value) {
    return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
  }
}
