package io.prefixlog.streams;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.processor.TimestampExtractor;

/**
 * How the stream app reads its inputs: as raw records, string keys and byte values that their
 * processors parse (a value that does not parse becomes a dead letter, not a deserialization
 * failure), repartitioned by key into the state partitions that fix which task holds a session's or
 * a source's state.
 */
public final class RawRecords {
  private RawRecords() {}

  /**
   * Reads raw records under source node {@code name}, their record time from {@code timestamps}.
   */
  public static Consumed<String, byte[]> consumed(String name, TimestampExtractor timestamps) {
    return Consumed.with(Serdes.String(), Serdes.ByteArray())
        .withName(name)
        .withTimestampExtractor(timestamps);
  }

  /** Repartitions raw records by key through repartition topic {@code name}. */
  public static Repartitioned<String, byte[]> byKey(String name, int partitions) {
    return Repartitioned.<String, byte[]>as(name)
        .withKeySerde(Serdes.String())
        .withValueSerde(Serdes.ByteArray())
        .withNumberOfPartitions(partitions);
  }
}
