package io.prefixlog.bridge.proxy;

import io.prefixlog.core.config.CommonKeys;
import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.config.ConfigKey;
import io.prefixlog.core.config.ConfigTypes;
import io.prefixlog.core.config.ConfigValues;
import io.prefixlog.core.http.HostCheck;

/**
 * The proxy's {@code /metrics} and {@code /health} endpoint, whether its histograms record, and the
 * names the bridge's own endpoints (these and the ingest endpoint) answer to.
 */
public record MetricsConfig(String host, int port, boolean histograms, HostCheck hosts) {
  public static final int DEFAULT_PORT = 9465;

  public static final ConfigKey<String> HOST = CommonKeys.METRICS_HOST;

  public static final ConfigKey<Integer> PORT = CommonKeys.metricsPort(DEFAULT_PORT);

  public static final ConfigKey<Boolean> HISTOGRAMS =
      ConfigKey.of("PREFIXLOG_METRICS_HISTOGRAMS", ConfigTypes.bool())
          .defaultValue(true)
          .doc(
              "`false`: the proxy's latency histograms record nothing (counters, gauges and the"
                  + " Kafka meters stay); what they cost is in the proxy benchmark");

  public static final ConfigKey<HostCheck> ALLOWED_HOSTS = HostCheck.SETTING;

  public MetricsConfig {
    ConfigException.requireNotBlank(HOST, host);
  }

  static MetricsConfig from(ConfigValues values) {
    return new MetricsConfig(
        values.get(HOST), values.get(PORT), values.get(HISTOGRAMS), values.get(ALLOWED_HOSTS));
  }

  /** False: {@code PREFIXLOG_METRICS_PORT=-1}, no endpoint. */
  boolean enabled() {
    return port >= 0;
  }
}
