package io.prefixlog.bridge.proxy;

import io.prefixlog.core.config.ConfigKey;
import io.prefixlog.core.config.ConfigTypes;
import io.prefixlog.core.config.ConfigValues;
import java.time.Duration;

/** The warm-up before the listener opens ({@link WarmUp}): its maximum and its quiet window. */
public record WarmUpConfig(Duration duration, Duration quiet) {
  /**
   * The warm-up's maximum. 2 s by default: ProxyBenchmark --cold-start, a 20 s maximum against 2 s
   * on JDK 17 in the same rounds: C2 does not go quiet within 20 s, the listener opens ~18 s later,
   * and the first minute's added p99 is no better (+43 against +27 ms, -0.7 against +0.1 ms). Worth
   * raising where the JIT does go quiet (C1 only: 5-7 s).
   */
  public static final ConfigKey<Duration> DURATION =
      ConfigKey.of(
              "PREFIXLOG_PROXY_WARMUP",
              ConfigTypes.duration(Duration.ZERO, Duration.ofSeconds(60), "from 0 (none) to 60s"))
          .defaultValue(Duration.ofSeconds(2))
          .doc(
              "before the listener opens, synthetic exchanges run through the proxy's own handler"
                  + " against a loopback upstream until the JIT is quiet"
                  + " (`PREFIXLOG_PROXY_WARMUP_QUIET`), for at most this long, so that the first"
                  + " clients after a start meet compiled code; they are captured and discarded"
                  + " (never published, never counted in the metrics); /health answers 503"
                  + " `warming_up` meanwhile; 0: none");

  public static final ConfigKey<Duration> QUIET =
      ConfigKey.of(
              "PREFIXLOG_PROXY_WARMUP_QUIET",
              ConfigTypes.duration(
                  Duration.ZERO, Duration.ofSeconds(10), "from 0 (the whole maximum) to 10s"))
          .defaultValue(Duration.ofSeconds(2))
          .doc(
              "the warm-up ends early once the JIT compiled for at most 5 % of this long (after at"
                  + " least 1,000 exchanges), never before this long; 0: it runs for the whole"
                  + " `PREFIXLOG_PROXY_WARMUP`");

  static WarmUpConfig from(ConfigValues values) {
    return new WarmUpConfig(values.get(DURATION), values.get(QUIET));
  }

  /** False: {@code PREFIXLOG_PROXY_WARMUP=0}, the listener opens at once. */
  boolean enabled() {
    return !duration.isZero();
  }
}
