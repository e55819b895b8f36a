package io.prefixlog.core.config;

/** A setting is missing or malformed; the message names the key and the expected form. */
public final class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(message);
  }

  /**
   * Refuses a blank {@code value} of {@code key}: a host or server list given as blank would only
   * fail later, at the first bind or connect, without naming the setting.
   */
  public static void requireNotBlank(ConfigKey<String> key, String value) {
    if (value.isBlank()) {
      throw new ConfigException(key.name() + " must not be empty");
    }
  }
}
