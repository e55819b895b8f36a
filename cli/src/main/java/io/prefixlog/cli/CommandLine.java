package io.prefixlog.cli;

import io.prefixlog.core.config.ConfigException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * A parsed command line: {@code --name value}, {@code --name=value} and {@code --flag}, parsed by
 * picocli against a command's {@link Option}s. Every command accepts {@code --help} / {@code -h}.
 * Errors name the bad option and what it expects, in prefixlog's words (the tests pin them), and
 * the same specs give {@code prefixlog completion} its script.
 */
public final class CommandLine {
  private static final Option HELP = Option.flag("help", "Show this help and exit.");

  private final String command;
  private final ParseResult result;

  private CommandLine(String command, ParseResult result) {
    this.command = command;
    this.result = result;
  }

  /** What reading a command line came to: the value to run with, or the exit code to return. */
  public record Invocation<T>(T value, int exitCode) {
    /** True when the command should run with {@link #value}. */
    public boolean proceed() {
      return value != null;
    }
  }

  /** Turns the parsed options into what a command runs with; a bad value is a usage error. */
  @FunctionalInterface
  public interface Reader<T> {
    T read(CommandLine line) throws UsageException;
  }

  /**
   * Parses {@code args} and reads them with {@code reader}: the one way every command and benchmark
   * starts. {@code --help} prints the help on {@code out} (exit 0); a usage error (an unknown
   * option, a bad value: {@link UsageException}, or a {@link ConfigException} or {@link
   * IllegalArgumentException} from reading a value) prints {@code command: message} on {@code err}
   * (exit 2, {@code Command.USAGE}).
   */
  public static <T> Invocation<T> invoke(
      String command,
      String description,
      List<Option> options,
      String[] args,
      PrintStream out,
      PrintStream err,
      Reader<T> reader) {
    try {
      CommandLine line = parse(command, options, args);
      if (line.helpRequested()) {
        out.print(help(command, description, options));
        return new Invocation<>(null, 0);
      }
      return new Invocation<>(Objects.requireNonNull(reader.read(line), "read options"), 0);
    } catch (UsageException | ConfigException | IllegalArgumentException e) {
      err.println(command + ": " + e.getMessage());
      return new Invocation<>(null, 2);
    }
  }

  /**
   * Parses {@code args} against the command's options.
   *
   * @throws UsageException for an unknown option, a missing value, a repeated option that is not
   *     repeatable, or a positional argument
   */
  public static CommandLine parse(String command, List<Option> options, String... args)
      throws UsageException {
    CommandSpec spec = spec(command, options);
    for (String arg : args) {
      // picocli reads "--flag=x" as a flag and a stray value; say what is wrong with it.
      int equals = arg.indexOf('=');
      if (arg.startsWith("--") && equals > 2) {
        OptionSpec option = spec.findOption(arg.substring(0, equals));
        if (option != null && option.arity().max() == 0) {
          throw new UsageException(arg.substring(0, equals) + " is a flag and takes no value");
        }
      }
    }
    try {
      picocli.CommandLine parser = new picocli.CommandLine(spec);
      parser.setExpandAtFiles(false); // an argument starting with @ is a value, not a file to read
      return new CommandLine(command, parser.parseArgs(args));
    } catch (picocli.CommandLine.MissingParameterException e) {
      OptionSpec option = (OptionSpec) e.getMissing().get(0);
      throw new UsageException(
          option.longestName()
              + " needs a value: "
              + option.longestName()
              + " "
              + option.paramLabel());
    } catch (picocli.CommandLine.OverwrittenOptionException e) {
      throw new UsageException(
          ((OptionSpec) e.getOverwritten()).longestName() + " is given more than once");
    } catch (picocli.CommandLine.UnmatchedArgumentException e) {
      String arg = e.getUnmatched().get(0);
      if (arg.startsWith("--") && arg.length() > 2) {
        String name = arg.substring(2).split("=", 2)[0];
        throw new UsageException(
            "unknown option --"
                + name
                + suggestion(name, options)
                + " (see "
                + command
                + " --help)");
      }
      throw new UsageException(
          "unexpected argument '" + arg + "' (options start with --; see " + command + " --help)");
    } catch (picocli.CommandLine.ParameterException e) {
      throw new UsageException(e.getMessage() + " (see " + command + " --help)");
    }
  }

  /**
   * The picocli spec of a command's options (with {@code --help}/{@code -h}): what {@link #parse}
   * parses against and what the completion script is generated from.
   */
  public static CommandSpec spec(String command, List<Option> options) {
    CommandSpec spec = CommandSpec.create().name(command);
    List<Option> all = new ArrayList<>(options);
    if (all.stream().noneMatch(o -> o.name().equals(HELP.name()))) {
      all.add(HELP);
    }
    for (Option option : all) {
      String longName = "--" + option.name();
      OptionSpec.Builder b =
          option.name().equals(HELP.name())
              ? OptionSpec.builder(longName, "-h").usageHelp(true)
              : OptionSpec.builder(longName);
      b.description(option.help());
      if (option.isFlag()) {
        b.arity("0").type(boolean.class);
      } else {
        b.arity("1").paramLabel(option.valueName());
        b.type(option.multiple() ? String[].class : String.class);
      }
      spec.addOption(b.build());
    }
    return spec;
  }

  public boolean helpRequested() {
    return result.isUsageHelpRequested();
  }

  public boolean has(String name) {
    return result.hasMatchedOption("--" + name);
  }

  public Optional<String> value(String name) {
    List<String> list = values(name);
    return list.isEmpty() ? Optional.empty() : Optional.of(list.get(list.size() - 1));
  }

  public List<String> values(String name) {
    OptionSpec option = result.matchedOption("--" + name);
    return option == null ? List.of() : List.copyOf(option.stringValues());
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

  private static String suggestion(String name, List<Option> options) {
    String lower = name.toLowerCase(Locale.ROOT);
    for (String candidate : options.stream().map(Option::name).toList()) {
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
