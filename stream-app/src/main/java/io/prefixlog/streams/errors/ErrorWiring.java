package io.prefixlog.streams.errors;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.Objects;

/**
 * What the Kafka Streams error handlers need from the app: Kafka instantiates them by class name,
 * so the app passes this object through the Streams settings under {@link #CONFIG}.
 *
 * @param metrics where the handlers count
 * @param deadLetterTopic the topic their dead letters go to
 */
public record ErrorWiring(MeterRegistry metrics, String deadLetterTopic) {
  public static final String CONFIG = "prefixlog.error.wiring";

  public ErrorWiring {
    Objects.requireNonNull(metrics, "metrics");
    Objects.requireNonNull(deadLetterTopic, "deadLetterTopic");
  }

  static ErrorWiring from(Map<String, ?> configs) {
    Object wiring = configs.get(CONFIG);
    if (!(wiring instanceof ErrorWiring errorWiring)) {
      throw new IllegalStateException(
          CONFIG
              + " must hold an ErrorWiring (StreamApp.streamsProperties sets it) but was "
              + wiring);
    }
    return errorWiring;
  }
}
