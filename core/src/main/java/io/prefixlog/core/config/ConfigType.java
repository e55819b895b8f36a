package io.prefixlog.core.config;

/**
 * How one kind of setting is read, checked, written back and described: the type half of a {@link
 * ConfigKey}. {@link ConfigTypes} has the kinds prefixlog uses (integers, sizes, durations, …, each
 * with its range); a service with a setting of its own form (an upstream URL, a list of
 * data-parallel ranks) implements this next to its config.
 *
 * @param <T> the parsed value
 */
public interface ConfigType<T> {
  /**
   * The value that {@code raw} (never blank) stands for.
   *
   * @throws ConfigException {@code KEY=raw: expected …}, naming the form and the range
   */
  T parse(String key, String raw);

  /**
   * Checks a value that did not come from text (a default, a {@code with…} in a test) against the
   * same range as {@link #parse}; returns it.
   */
  default T check(String key, T value) {
    return value;
  }

  /** The value written as a user would set it: {@code 30s}, {@code 16MiB}, {@code a,b}. */
  String format(T value);

  /** What is accepted, for the docs: {@code integer 1–256}, {@code duration > 0}. */
  String describe();
}
