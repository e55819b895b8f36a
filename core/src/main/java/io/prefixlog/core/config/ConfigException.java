package io.prefixlog.core.config;

/** A setting is missing or malformed; the message names the key and the expected form. */
public final class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(message);
  }
}
