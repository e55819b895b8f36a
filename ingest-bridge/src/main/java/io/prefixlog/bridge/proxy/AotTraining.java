package io.prefixlog.bridge.proxy;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The training run of the ingest-bridge image's AOT cache (JDK 25: JEP 483's classes loaded and
 * linked ahead of time, JEP 515's method profiles, written in one step by JEP 514): {@code java
 * -XX:AOTCacheOutput=/app/app.aot -cp '/app/lib/*' io.prefixlog.bridge.proxy.AotTraining [seconds
 * [shape]]} in the image build (deploy/docker/Dockerfile). It starts the real capture proxy as the
 * bridge does, runs its {@link WarmUp} (synthetic exchanges through the real handler against a
 * loopback upstream, encoded and discarded) for {@code seconds} (30), stops it and exits, so that
 * the cache holds what a start and the request path load and profile. The warm-up's traffic is
 * production-shaped ({@code production}, the default: {@link TrainingTraffic}'s conversations of 2
 * to 25 KB bodies, half streamed, an upstream that answers after 20 ms); {@code warm-up} trains on
 * the start-up warm-up's small bodies instead, as the image did first (kept to compare the two in
 * ProxyBenchmark). It needs no broker: the warm-up never publishes, and the producer is created but
 * never sends.
 *
 * <p>Exits 1 when the warm-up ran fewer than {@link WarmUp#MIN_EXCHANGES} exchanges or more than 1
 * % of them failed: a cache trained on a broken request path would be worse than none, so the image
 * build fails instead.
 */
public final class AotTraining {
  private static final Logger LOGGER = LoggerFactory.getLogger(AotTraining.class);

  /** The warm-up's length when not given. */
  static final Duration DEFAULT_WARMUP = Duration.ofSeconds(30);

  private AotTraining() {}

  public static void main(String[] args) {
    System.exit(run(args));
  }

  static int run(String[] args) {
    Duration warmup =
        args.length > 0 ? Duration.ofSeconds(Long.parseLong(args[0])) : DEFAULT_WARMUP;
    WarmUp.Shape shape = args.length > 1 ? shape(args[1]) : WarmUp.Shape.PRODUCTION;
    // A free loopback port for the listener and the metrics endpoint (started as in production,
    // so their classes are in the cache too); nothing listens at the upstream or the broker.
    ProxyConfig config =
        ProxyConfig.defaults(URI.create("http://127.0.0.1:9"), "127.0.0.1:9")
            .withListen("127.0.0.1", 0)
            .with(MetricsConfig.HOST, "127.0.0.1")
            .with(MetricsConfig.PORT, 0)
            .with(WarmUpConfig.DURATION, warmup)
            // The whole length, not until the JIT is quiet: the profiles the cache keeps are the
            // ones of methods that ran long enough to be compiled.
            .with(WarmUpConfig.QUIET, Duration.ZERO);
    AtomicReference<WarmUp.Result> result = new AtomicReference<>();
    try {
      CaptureProxy.start(config, null, () -> true, result::set, shape).close();
    } catch (Exception e) {
      LOGGER.atError().setMessage("AOT training failed").setCause(e).log();
      return 1;
    }
    String problem = problem(result.get());
    if (problem != null) {
      LOGGER.atError().setMessage("AOT training failed").addKeyValue("problem", problem).log();
      return 1;
    }
    LOGGER
        .atInfo()
        .setMessage("AOT training done")
        .addKeyValue("shape", shape)
        .addKeyValue("exchanges", result.get().exchanges())
        .addKeyValue("millis", result.get().took().toMillis())
        .log();
    return 0;
  }

  /** The traffic's shape named on the command line: {@code production} or {@code warm-up}. */
  static WarmUp.Shape shape(String name) {
    return switch (name) {
      case "production" -> WarmUp.Shape.PRODUCTION;
      case "warm-up" -> WarmUp.Shape.WARM_UP;
      default ->
          throw new IllegalArgumentException(
              "unknown training shape '" + name + "' (production or warm-up)");
    };
  }

  /** Why a warm-up does not make a training run, or null when it does. */
  static String problem(WarmUp.Result warmUp) {
    if (warmUp == null) {
      return "the warm-up did not run";
    }
    if (warmUp.exchanges() < WarmUp.MIN_EXCHANGES) {
      return "only " + warmUp.exchanges() + " exchanges (at least " + WarmUp.MIN_EXCHANGES + ")";
    }
    if (warmUp.failures() * 100 > warmUp.exchanges()) {
      return warmUp.failures() + " of " + warmUp.exchanges() + " exchanges failed";
    }
    return null;
  }
}
