package io.prefixlog.tools.topic;

import io.prefixlog.core.config.KafkaPassThrough;
import io.prefixlog.core.config.Settings;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The settings every Kafka client of the tools starts from: the bootstrap servers, and the client
 * settings the environment passes through as {@code PREFIXLOG_KAFKA_*}, read as the bridge and the
 * stream app read them ({@link KafkaPassThrough}: {@code PREFIXLOG_KAFKA_SECURITY_PROTOCOL} becomes
 * {@code security.protocol}). So {@code erase}, {@code reconstruct}, {@code replay}, {@code ui} and
 * the rest reach a broker that wants TLS or SASL with the same variables as the services.
 *
 * <p>A tool's own settings are put after these and win: they are what its reads rely on (committed
 * records only, no group, no offset commits, its fetch sizes), and a pass-through is for how to
 * connect, not what to read. Credentials come from the environment only, never the command line,
 * where {@code ps} would show them.
 *
 * <p>Not for {@code prefixlog up}: its broker is the embedded one it starts, on loopback.
 */
public final class KafkaClients {
  /** Where the pass-through is read: the process environment, unless {@link #useVariables}. */
  private static volatile Map<String, String> variables = System.getenv();

  private KafkaClients() {}

  /**
   * Makes this process's clients read their pass-through from {@code variables} instead of the
   * environment: for {@code prefixlog compose-smoke}, which runs the commands in-process as an
   * operator whose shell holds the deployment's credentials would, and cannot change its own
   * environment.
   */
  public static void useVariables(Map<String, String> variables) {
    KafkaClients.variables = Map.copyOf(variables);
  }

  /**
   * The bootstrap servers over the process environment's pass-through settings: a new, mutable
   * copy, to which a tool adds its own.
   *
   * @throws io.prefixlog.core.config.ConfigException when a pass-through weakens a delivery
   *     guarantee without {@value KafkaPassThrough#ALLOW}
   */
  public static Properties properties(String bootstrap) {
    return properties(bootstrap, variables);
  }

  /**
   * {@link #properties(String)} for a consumer that reads committed records only, since what a tool
   * counts or rebuilds is what a transaction has made visible, and commits no offsets, since it
   * assigns itself the partitions it reads and belongs to no group. The caller adds its
   * deserializers and fetch sizes.
   */
  public static Properties committedReader(String bootstrap, String clientId) {
    Properties p = properties(bootstrap);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    return p;
  }

  /**
   * {@link #properties(String)} for a producer whose every record is acknowledged by all in-sync
   * replicas and written once however often it is retried ({@code acks=all}, idempotence), as the
   * pipeline's own writers do. The caller adds its serializers and sizes.
   */
  public static Properties idempotentWriter(String bootstrap, String clientId) {
    Properties p = properties(bootstrap);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    return p;
  }

  /** {@link #properties(String)} from the variables {@code environment}. */
  public static Properties properties(String bootstrap, Map<String, String> environment) {
    Properties p = new Properties();
    p.putAll(KafkaPassThrough.read(Settings.of(environment)));
    p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    return p;
  }
}
