package io.prefixlog.tools.erase;

import io.prefixlog.tools.topic.KafkaClients;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** The consumer settings erase reads its topics with. */
final class CommittedReads {
  private CommittedReads() {}

  /**
   * String keys and raw values; committed records only, since what erase waits for or counts is
   * what a transaction has made visible; no offset commits, since it assigns itself the partitions
   * it reads and belongs to no group.
   */
  static Properties config(String bootstrap, String clientId) {
    Properties p = KafkaClients.committedReader(bootstrap, clientId);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return p;
  }
}
