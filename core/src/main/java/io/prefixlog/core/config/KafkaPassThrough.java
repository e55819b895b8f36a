package io.prefixlog.core.config;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code PREFIXLOG_KAFKA_*} settings passed to the Kafka clients, refused when they would
 * quietly weaken what prefixlog promises: exactly-once processing in the stream app, idempotent
 * {@code acks=all} producers, {@code read_committed} readers. A pass-through is for tuning and
 * security (TLS, SASL), so one that switches a guarantee off is far more likely a copied snippet
 * than a decision; an operator who means it sets {@value #ALLOW} and gets a warning at every start.
 */
public final class KafkaPassThrough {
  /** Lets a pass-through weaken a delivery guarantee (logged at WARN). */
  public static final String ALLOW = "PREFIXLOG_ALLOW_WEAKER_DELIVERY";

  public static final String PREFIX = "PREFIXLOG_KAFKA_";

  private static final Logger LOGGER = LoggerFactory.getLogger(KafkaPassThrough.class);

  /** The client settings whose value must be one of these, as Kafka spells them. */
  private static final Map<String, Set<String>> GUARANTEES =
      Map.of(
          "processing.guarantee", Set.of("exactly_once_v2"),
          "enable.idempotence", Set.of("true"),
          "producer.enable.idempotence", Set.of("true"),
          "acks", Set.of("all", "-1"),
          "producer.acks", Set.of("all", "-1"),
          "isolation.level", Set.of("read_committed"),
          "consumer.isolation.level", Set.of("read_committed"));

  private KafkaPassThrough() {}

  /**
   * The pass-through client settings of {@code settings}.
   *
   * @throws ConfigException naming the variable when one weakens a guarantee and {@value #ALLOW} is
   *     not true
   */
  public static Map<String, String> read(Settings settings) {
    Objects.requireNonNull(settings, "settings");
    Map<String, String> kafka = settings.passThrough(PREFIX);
    boolean allowed = settings.bool(ALLOW, false);
    kafka.forEach(
        (name, value) -> {
          Set<String> safe = GUARANTEES.get(name);
          if (safe == null || safe.contains(value.trim().toLowerCase(Locale.ROOT))) {
            return;
          }
          String variable = PREFIX + name.toUpperCase(Locale.ROOT).replace('.', '_');
          if (!allowed) {
            throw new ConfigException(
                variable
                    + "="
                    + value
                    + ": weakens a delivery guarantee prefixlog relies on ("
                    + name
                    + " must be "
                    + String.join(" or ", safe.stream().sorted().toList())
                    + "); set "
                    + ALLOW
                    + "=true if that is meant");
          }
          LOGGER
              .atWarn()
              .setMessage("a Kafka pass-through weakens a delivery guarantee, as allowed")
              .addKeyValue("setting", variable)
              .addKeyValue("value", value)
              .log();
        });
    return kafka;
  }
}
