package io.prefixlog.tools.smoke;

import io.prefixlog.tools.topic.KafkaClients;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Kafka's users and ACLs in the compose deployment, probed as a component that oversteps would: on
 * the host's listener, each with the user and password its container has, the bridge reads the
 * deltas, the UI and Connect write the capture topic (where erase orders travel too), the stream
 * app writes the KV events it only reads; and a container with no user of its own (the model
 * server) tries a name of its choosing. Each must be refused by the broker, not time out: a probe
 * that sees records, a written offset or only silence fails the smoke test.
 */
final class KafkaAclProbes {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final byte[] PROBE =
      "prefixlog-acl-probe".getBytes(java.nio.charset.StandardCharsets.UTF_8);

  private final SmokeEnvironment env;
  private final String bootstrap;
  private final String prefix;

  KafkaAclProbes(SmokeEnvironment env, String bootstrap, String prefix) {
    this.env = env;
    this.bootstrap = bootstrap;
    this.prefix = prefix;
  }

  /** Runs every probe; a one-line summary, or {@link SmokeFailure} naming the one let through. */
  String run() {
    readDenied("bridge", "KAFKA_BRIDGE_PASSWORD", "session.deltas");
    writeDenied("ui", "KAFKA_UI_PASSWORD", "requests.raw");
    writeDenied("connect", "KAFKA_CONNECT_PASSWORD", "requests.raw");
    writeDenied("streams", "KAFKA_STREAMS_PASSWORD", "kv.events");
    unknownUserRefused();
    return "Kafka ACLs: bridge cannot read the deltas, ui and connect cannot write the capture"
        + " topic, streams cannot write KV events, a user of no component cannot connect";
  }

  private void readDenied(String user, String passwordVariable, String topic) {
    Properties p = client(user, env.get(passwordVariable));
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(WAIT.toMillis()));
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.assign(List.of(new TopicPartition(prefix + topic, 0)));
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (System.nanoTime() < deadline) {
        int records = consumer.poll(Duration.ofMillis(500)).count();
        if (records > 0) {
          throw new SmokeFailure(user + " read " + records + " records of " + prefix + topic);
        }
      }
      throw new SmokeFailure(
          user + "'s read of " + prefix + topic + " was neither refused nor answered in " + WAIT);
    } catch (AuthorizationException e) {
      return;
    } catch (KafkaException e) {
      throw new SmokeFailure(user + "'s read of " + prefix + topic + " failed otherwise: " + e);
    }
  }

  private void writeDenied(String user, String passwordVariable, String topic) {
    Properties p = client(user, env.get(passwordVariable));
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(WAIT.toMillis()));
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(WAIT.toMillis()));
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(WAIT.toMillis() / 2));
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      var written =
          producer
              .send(new ProducerRecord<>(prefix + topic, PROBE, PROBE))
              .get(WAIT.toMillis() + 5_000, TimeUnit.MILLISECONDS);
      throw new SmokeFailure(user + " wrote to " + written);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof AuthorizationException)) {
        throw new SmokeFailure(user + "'s write to " + prefix + topic + " failed otherwise: " + e);
      }
    } catch (AuthorizationException e) {
      return;
    } catch (java.util.concurrent.TimeoutException e) {
      throw new SmokeFailure(user + "'s write to " + prefix + topic + " hung for " + WAIT);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SmokeFailure("interrupted while probing " + user + "'s write");
    }
  }

  private void unknownUserRefused() {
    Properties p = client("vllm", "a-password-of-its-own");
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(WAIT.toMillis()));
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.partitionsFor(prefix + "session.deltas", WAIT);
      throw new SmokeFailure("a user of no component reached " + prefix + "session.deltas");
    } catch (AuthenticationException e) {
      return;
    } catch (KafkaException e) {
      throw new SmokeFailure("a user of no component was not refused by name: " + e);
    }
  }

  /** A client of {@code user} on the host's listener, SASL/PLAIN as the containers connect. */
  private Properties client(String user, String password) {
    Properties p =
        KafkaClients.properties(
            bootstrap,
            Map.of(
                "PREFIXLOG_KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT",
                "PREFIXLOG_KAFKA_SASL_MECHANISM", "PLAIN",
                "PREFIXLOG_KAFKA_SASL_JAAS_CONFIG", KafkaAclProbes.jaas(user, password)));
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "prefixlog-acl-probe-" + user);
    return p;
  }

  /** The client JAAS line of a PLAIN user. */
  static String jaas(String user, String password) {
    return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
        + user
        + "\" password=\""
        + password
        + "\";";
  }
}
