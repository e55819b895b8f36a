package io.prefixlog.bridge.proxy;

import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.config.ConfigKey;
import io.prefixlog.core.config.ConfigTypes;
import io.prefixlog.core.config.ConfigValues;
import java.time.Duration;

/**
 * Where the proxy listens and how its listener runs: the address, the event loops (each with a
 * listener instance on the one port) and how long a shutdown waits for the exchanges in flight.
 */
public record ListenConfig(String host, int port, int eventLoops, Duration drainTimeout) {
  public static final int DEFAULT_PORT = 8088;

  public static final ConfigKey<String> HOST =
      ConfigKey.of("PREFIXLOG_PROXY_HOST", ConfigTypes.text())
          .defaultValue("127.0.0.1")
          .doc("address the proxy listens on");

  public static final ConfigKey<Integer> PORT =
      ConfigKey.of("PREFIXLOG_PROXY_PORT", ConfigTypes.integer(0, 65535))
          .defaultValue(DEFAULT_PORT)
          .doc("port the proxy listens on (0: any free port)");

  /**
   * One event loop per core by default: with one loop, an exchange's event waits behind whatever
   * the loop is doing for another connection; with one per core, another loop takes it (at 10
   * clients on 2 cores, 2 loops took the added p50 from +0.43–0.61 ms to about +0.3 ms in
   * ProxyBenchmark).
   */
  public static final ConfigKey<Integer> EVENT_LOOPS =
      ConfigKey.of("PREFIXLOG_PROXY_EVENT_LOOPS", ConfigTypes.integer(1, 256))
          .defaultValue(Math.max(1, Math.min(256, Runtime.getRuntime().availableProcessors())))
          .documentedDefault("the number of cores")
          .doc(
              "event loops, each with its own listener instance on the one shared port"
                  + " (connections are handed out in turn) and its own upstream pool. With one"
                  + " loop, an exchange's event waits behind whatever the loop does for another"
                  + " connection; one per core lets another loop take it (ProxyBenchmark, 2 cores:"
                  + " 2 loops against 1 took the added p50 from ~+0.5 ms to ~+0.3 ms). A loop"
                  + " spends ~150 µs per 20 KB exchange");

  public static final ConfigKey<Duration> DRAIN_TIMEOUT =
      ConfigKey.of("PREFIXLOG_PROXY_DRAIN_TIMEOUT", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofSeconds(10))
          .doc("how long shutdown waits for exchanges in flight");

  public ListenConfig {
    ConfigException.requireNotBlank(HOST, host);
  }

  static ListenConfig from(ConfigValues values) {
    return new ListenConfig(
        values.get(HOST), values.get(PORT), values.get(EVENT_LOOPS), values.get(DRAIN_TIMEOUT));
  }
}
