package io.prefixlog.core.config;

import java.util.Objects;

/**
 * One setting, declared once: its environment-variable name, type (with its range), default and
 * documentation. Reading ({@link #read}), checking a value set in code ({@link #check}), the error
 * messages and the rows of the README and {@code --help} tables ({@link ConfigDef}) all come from
 * here. Immutable: each {@code with…} method returns a new key.
 *
 * @param <T> the value's type
 */
public final class ConfigKey<T> {
  private final String name;
  private final ConfigType<T> type;
  private final T defaultValue;
  private final String requiredForm;
  private final String documentedDefault;
  private final String doc;
  private final boolean secret;

  private ConfigKey(
      String name,
      ConfigType<T> type,
      T defaultValue,
      String requiredForm,
      String documentedDefault,
      String doc,
      boolean secret) {
    this.name = name;
    this.type = type;
    this.defaultValue = defaultValue;
    this.requiredForm = requiredForm;
    this.documentedDefault = documentedDefault;
    this.doc = doc;
    this.secret = secret;
  }

  /** A setting with no default (null when unset) and no documentation yet. */
  public static <T> ConfigKey<T> of(String name, ConfigType<T> type) {
    Objects.requireNonNull(name, "name");
    if (!name.matches("[A-Z][A-Z0-9_]*")) {
      throw new IllegalArgumentException("not an environment-variable name: " + name);
    }
    return new ConfigKey<>(name, Objects.requireNonNull(type, "type"), null, null, null, "", false);
  }

  /** This key with a default value, checked against the type's range. */
  public ConfigKey<T> defaultValue(T value) {
    return new ConfigKey<>(
        name, type, type.check(name, value), null, documentedDefault, doc, secret);
  }

  /**
   * This key as required: unset is an error that says {@code form} ({@code the engine's base URL,
   * such as http://127.0.0.1:8000}).
   */
  public ConfigKey<T> required(String form) {
    return new ConfigKey<>(
        name, type, null, Objects.requireNonNull(form, "form"), documentedDefault, doc, secret);
  }

  /**
   * The default as the docs say it, where the value itself would mislead: one that depends on the
   * machine ({@code the number of cores}) or on another setting, or none ({@code none (drop)}).
   */
  public ConfigKey<T> documentedDefault(String text) {
    return new ConfigKey<>(
        name, type, defaultValue, requiredForm, Objects.requireNonNull(text, "text"), doc, secret);
  }

  /** What the setting does, in one Markdown paragraph (the table's last column). */
  public ConfigKey<T> doc(String text) {
    return new ConfigKey<>(
        name,
        type,
        defaultValue,
        requiredForm,
        documentedDefault,
        Objects.requireNonNull(text, "text"),
        secret);
  }

  /** Marks a credential: its value is never shown, in the docs or in {@link ConfigValues}. */
  public ConfigKey<T> secret() {
    return new ConfigKey<>(name, type, defaultValue, requiredForm, documentedDefault, doc, true);
  }

  /**
   * The value {@code settings} gives this key: parsed and checked when set, else the default.
   *
   * @throws ConfigException naming the key, when the value is malformed or out of range, or when a
   *     required key is unset
   */
  public T read(Settings settings) {
    String raw = settings.string(name, null);
    if (raw == null) {
      if (requiredForm != null) {
        throw new ConfigException(name + " is required (" + requiredForm + ")");
      }
      return defaultValue;
    }
    return type.parse(name, raw);
  }

  /** {@code value} if it is in range (null only where the key has no default). */
  public T check(T value) {
    if (value == null) {
      if (requiredForm != null) {
        throw new ConfigException(name + " is required (" + requiredForm + ")");
      }
      return null;
    }
    return type.check(name, value);
  }

  public String name() {
    return name;
  }

  public ConfigType<T> type() {
    return type;
  }

  /** The default, or null for a required key or one that is off when unset. */
  public T defaultValue() {
    return defaultValue;
  }

  public boolean isRequired() {
    return requiredForm != null;
  }

  public boolean isSecret() {
    return secret;
  }

  public String doc() {
    return doc;
  }

  /** The default as the docs show it. */
  public String documentedDefault() {
    if (documentedDefault != null) {
      return documentedDefault;
    }
    if (requiredForm != null) {
      return "required";
    }
    if (defaultValue == null) {
      return "none";
    }
    String shown = type.format(defaultValue);
    return shown.isEmpty() ? "empty" : "`" + shown + "`";
  }

  /** The value as a user would write it, or {@code [hidden]} for a secret. */
  public String show(T value) {
    if (value == null) {
      return "none";
    }
    return secret ? "[hidden]" : type.format(value);
  }

  @Override
  public String toString() {
    return name;
  }
}
