package io.prefixlog.core.config;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * One setting, declared once: its environment-variable name, type (with its range), default and
 * documentation. Reading ({@link #read}), checking a value set in code ({@link #check}), the error
 * messages and the rows of the README and {@code --help} tables ({@link ConfigDef}) all come from
 * here. Immutable: each {@code with…} method returns a new key.
 *
 * @param <T> the value's type
 */
public final class ConfigKey<T> {
  /** What a key is made of, mutable only while a {@code with…} method makes a copy. */
  private static final class Parts<T> {
    String name;
    ConfigType<T> type;
    T defaultValue;
    String requiredForm;
    String documentedDefault;
    String doc = "";
    boolean secret;

    Parts<T> copy() {
      Parts<T> c = new Parts<>();
      c.name = name;
      c.type = type;
      c.defaultValue = defaultValue;
      c.requiredForm = requiredForm;
      c.documentedDefault = documentedDefault;
      c.doc = doc;
      c.secret = secret;
      return c;
    }
  }

  private final Parts<T> parts;

  private ConfigKey(Parts<T> parts) {
    this.parts = parts;
  }

  /** A setting with no default (null when unset) and no documentation yet. */
  public static <T> ConfigKey<T> of(String name, ConfigType<T> type) {
    Objects.requireNonNull(name, "name");
    if (!name.matches("[A-Z][A-Z0-9_]*")) {
      throw new IllegalArgumentException("not an environment-variable name: " + name);
    }
    Parts<T> parts = new Parts<>();
    parts.name = name;
    parts.type = Objects.requireNonNull(type, "type");
    return new ConfigKey<>(parts);
  }

  /** This key with a default value, checked against the type's range. */
  public ConfigKey<T> defaultValue(T value) {
    T checked = parts.type.check(parts.name, value);
    return with(p -> p.defaultValue = checked);
  }

  /**
   * This key as required: unset is an error that says {@code form} ({@code the engine's base URL,
   * such as http://127.0.0.1:8000}).
   */
  public ConfigKey<T> required(String form) {
    Objects.requireNonNull(form, "form");
    return with(p -> p.requiredForm = form);
  }

  /**
   * The default as the docs say it, where the value itself would mislead: one that depends on the
   * machine ({@code the number of cores}) or on another setting, or none ({@code none (drop)}).
   */
  public ConfigKey<T> documentedDefault(String text) {
    Objects.requireNonNull(text, "text");
    return with(p -> p.documentedDefault = text);
  }

  /** What the setting does, in one Markdown paragraph (the table's last column). */
  public ConfigKey<T> doc(String text) {
    Objects.requireNonNull(text, "text");
    return with(p -> p.doc = text);
  }

  /** Marks a credential: its value is never shown, in the docs or in {@link ConfigValues}. */
  public ConfigKey<T> secret() {
    return with(p -> p.secret = true);
  }

  private ConfigKey<T> with(Consumer<Parts<T>> change) {
    Parts<T> copy = parts.copy();
    change.accept(copy);
    return new ConfigKey<>(copy);
  }

  /**
   * The value {@code settings} gives this key: parsed and checked when set, else the default.
   *
   * @throws ConfigException naming the key, when the value is malformed or out of range, or when a
   *     required key is unset
   */
  public T read(Settings settings) {
    String raw = settings.string(parts.name, null);
    if (raw == null) {
      if (parts.requiredForm != null) {
        throw new ConfigException(parts.name + " is required (" + parts.requiredForm + ")");
      }
      return parts.defaultValue;
    }
    return parts.type.parse(parts.name, raw);
  }

  /** {@code value} if it is in range (null only where the key has no default). */
  public T check(T value) {
    if (value == null) {
      if (parts.requiredForm != null) {
        throw new ConfigException(parts.name + " is required (" + parts.requiredForm + ")");
      }
      return null;
    }
    return parts.type.check(parts.name, value);
  }

  public String name() {
    return parts.name;
  }

  public ConfigType<T> type() {
    return parts.type;
  }

  /** The default, or null for a required key or one that is off when unset. */
  public T defaultValue() {
    return parts.requiredForm == null ? parts.defaultValue : null;
  }

  public boolean isRequired() {
    return parts.requiredForm != null;
  }

  public boolean isSecret() {
    return parts.secret;
  }

  public String doc() {
    return parts.doc;
  }

  /** The default as the docs show it. */
  public String documentedDefault() {
    if (parts.documentedDefault != null) {
      return parts.documentedDefault;
    }
    if (parts.requiredForm != null) {
      return "required";
    }
    if (parts.defaultValue == null) {
      return "none";
    }
    String shown = parts.type.format(parts.defaultValue);
    return shown.isEmpty() ? "empty" : "`" + shown + "`";
  }

  /** The value as a user would write it, or {@code [hidden]} for a secret. */
  public String show(T value) {
    if (value == null) {
      return "none";
    }
    return parts.secret ? "[hidden]" : parts.type.format(value);
  }

  @Override
  public String toString() {
    return parts.name;
  }
}
