package io.prefixlog.tools.settings;

import io.prefixlog.bridge.kv.KvBridgeConfig;
import io.prefixlog.bridge.proxy.ProxyConfig;
import io.prefixlog.core.config.ConfigDef;
import io.prefixlog.streams.StreamAppConfig;
import java.util.Locale;

/**
 * The services whose settings prefixlog documents, each with its descriptor table. The name is what
 * {@code prefixlog settings --service} takes and what a README's generated block is marked with
 * ({@code <!-- settings:proxy -->}).
 */
public enum ServiceSettings {
  STREAM_APP("stream-app", StreamAppConfig.DEFINITION),
  PROXY("proxy", ProxyConfig.DEFINITION),
  KV("kv", KvBridgeConfig.DEFINITION);

  private final String id;
  private final ConfigDef definition;

  ServiceSettings(String id, ConfigDef definition) {
    this.id = id;
    this.definition = definition;
  }

  public String id() {
    return id;
  }

  public ConfigDef definition() {
    return definition;
  }

  /** The service called {@code id}, or an error that lists the names. */
  public static ServiceSettings named(String id) {
    for (ServiceSettings service : values()) {
      if (service.id.equals(id.toLowerCase(Locale.ROOT))) {
        return service;
      }
    }
    throw new IllegalArgumentException(
        "unknown service '" + id + "': expected stream-app, proxy or kv");
  }
}
