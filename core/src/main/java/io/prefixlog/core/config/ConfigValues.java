package io.prefixlog.core.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;

/**
 * The values of one {@link ConfigDef}, each read and checked by its key, looked up by the key's
 * name (a service may re-document a shared key, such as the topic prefix, and both copies name the
 * same setting). Immutable; {@link #with} returns a copy with one value changed and checked.
 */
public final class ConfigValues {
  private final ConfigDef definition;
  private final Map<String, Object> values;

  ConfigValues(ConfigDef definition, Map<String, Object> values) {
    this.definition = definition;
    this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
  }

  /**
   * The value of {@code key}: null only for a key without a default that was not set.
   *
   * @throws IllegalArgumentException when the definition does not declare {@code key}
   */
  @SuppressWarnings("unchecked") // every value was put by its own key, so it has the key's type
  public <T> T get(ConfigKey<T> key) {
    requireDeclared(key);
    return (T) values.get(key.name());
  }

  /** These values with {@code key} set to {@code value}, checked against the key's range. */
  @SuppressWarnings("unchecked") // the declared key of that name has the same type as key
  public <T> ConfigValues with(ConfigKey<T> key, T value) {
    requireDeclared(key);
    ConfigKey<T> declared = (ConfigKey<T>) definition.key(key.name());
    Map<String, Object> copy = new LinkedHashMap<>(values);
    copy.put(key.name(), declared.check(value));
    return new ConfigValues(definition, copy);
  }

  public ConfigDef definition() {
    return definition;
  }

  private void requireDeclared(ConfigKey<?> key) {
    Objects.requireNonNull(key, "key");
    if (!values.containsKey(key.name())) {
      throw new IllegalArgumentException(
          key.name() + " is not a setting of " + definition.service());
    }
  }

  /** Every value as the user would write it; secrets hidden. */
  @Override
  public String toString() {
    StringJoiner joiner = new StringJoiner(", ", definition.service() + "[", "]");
    for (ConfigKey<?> key : definition.keys()) {
      joiner.add(key.name() + "=" + show(key));
    }
    return joiner.toString();
  }

  private <T> String show(ConfigKey<T> key) {
    return key.show(get(key));
  }
}
