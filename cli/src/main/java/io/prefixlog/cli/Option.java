package io.prefixlog.cli;

import java.util.Objects;

/**
 * One {@code --name} option of a command, with what its help says.
 *
 * @param name without the leading dashes
 * @param valueName what the value is ({@code HOST:PORT}), or null for a flag
 * @param defaultText the default as the help shows it, or null when there is none
 * @param help one or two sentences
 * @param multiple whether it may be given more than once
 */
public record Option(
    String name, String valueName, String defaultText, String help, boolean multiple) {
  public Option {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(help, "help");
    if (name.isEmpty() || name.startsWith("-")) {
      throw new IllegalArgumentException("option name without dashes expected, got " + name);
    }
  }

  /** A flag: present or not. */
  public static Option flag(String name, String help) {
    return new Option(name, null, null, help, false);
  }

  /** An option with a value. */
  public static Option value(String name, String valueName, String defaultText, String help) {
    Objects.requireNonNull(valueName, "valueName");
    return new Option(name, valueName, defaultText, help, false);
  }

  /** The same option, allowed more than once. */
  public Option repeatable() {
    return new Option(name, valueName, defaultText, help, true);
  }

  public boolean isFlag() {
    return valueName == null;
  }
}
