package io.prefixlog.bridge.kv;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.core.kv.DecodedBatch;
import io.prefixlog.core.kv.KvBatchDecoder;
import io.prefixlog.core.kv.KvSource;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.kv.KvEventBatch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * Decoded KV events per second: prefixlog's decoder, and the subscriber's whole per-message work
 * (frame checks, sequence, decode, the {@code kv.events} JSON), next to msgpack-core reading the
 * same payloads without interpreting them, in the same run.
 *
 * <p>Workload: vLLM-like batches of 1–4 events each; a BlockStored covers 1–64 blocks of 16 tokens
 * (token ids below 150,000, as msgpack uint8/16/32), uint64 block hashes (half above 2^63), parent
 * hash, medium, group, kind, {@code extra_keys} of {@code [null…]}; one batch in three also removes
 * a block. Encoded as maps (vLLM ≥ 0.26) and as legacy tagged arrays. Every variant runs in turn,
 * rounds interleaved, and the median round is reported.
 *
 * <pre>{@code
 * mvn -B -o -q -pl ingest-bridge test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=test
 * java -cp ingest-bridge/target/test-classes:ingest-bridge/target/classes:$(cat \
 *     ingest-bridge/target/classpath.txt) io.prefixlog.bridge.kv.KvDecodeBenchmark [--seconds 2]
 *     [--rounds 5] [--batches 2000]
 * }</pre>
 */
public final class KvDecodeBenchmark {
  private static final KvSource SOURCE = KvSource.of("tcp://127.0.0.1:5557", 0, "kv");
  private static final JsonSerde<KvEventBatch> JSON = JsonSerde.of(KvEventBatch.class);

  private KvDecodeBenchmark() {}

  /** One workload: payloads and how many events they hold. */
  private record Workload(String name, List<byte[]> payloads, long events, long bytes) {}

  /** One way of reading a payload; returns something derived from it so that it is not elided. */
  private record Reader(String name, ToLongFunction<byte[]> read) {}

  public static void main(String[] args) {
    double seconds = 2;
    int rounds = 5;
    int batches = 2000;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--seconds" -> seconds = Double.parseDouble(args[i + 1]);
        case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
        case "--batches" -> batches = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    List<Workload> workloads =
        List.of(workload("map events", batches, true), workload("legacy arrays", batches, false));
    List<Reader> readers =
        List.of(
            new Reader("msgpack-core skipValue (scan only)", KvDecodeBenchmark::skip),
            new Reader("msgpack-core typed walk (every value read)", KvDecodeBenchmark::walk),
            new Reader("prefixlog KvBatchDecoder.decode", KvDecodeBenchmark::decode),
            new Reader("subscriber per message (seq + decode + JSON)", subscriber()));

    System.out.printf(
        Locale.ROOT,
        "KvDecodeBenchmark: %d cores, %s %s, %d rounds of %.1f s per cell%n",
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.vm.name"),
        System.getProperty("java.version"),
        rounds,
        seconds);
    for (Workload w : workloads) {
      System.out.printf(
          Locale.ROOT,
          "workload %-14s %d batches, %d events (%.1f per batch), %.1f KiB per batch%n",
          w.name(),
          w.payloads().size(),
          w.events(),
          (double) w.events() / w.payloads().size(),
          w.bytes() / 1024.0 / w.payloads().size());
    }
    // rounds interleaved: every cell sees the same machine conditions
    double[][][] perRound = new double[workloads.size()][readers.size()][rounds];
    for (Workload w : workloads) {
      for (Reader r : readers) {
        run(w, r, Math.min(1.0, seconds)); // warm-up
      }
    }
    for (int round = 0; round < rounds; round++) {
      for (int wi = 0; wi < workloads.size(); wi++) {
        for (int ri = 0; ri < readers.size(); ri++) {
          perRound[wi][ri][round] = run(workloads.get(wi), readers.get(ri), seconds);
        }
      }
    }
    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "%-16s %-46s %14s %12s %10s %10s%n",
        "workload",
        "reader",
        "events/s",
        "batches/s",
        "MB/s",
        "ns/event");
    for (int wi = 0; wi < workloads.size(); wi++) {
      Workload w = workloads.get(wi);
      for (int ri = 0; ri < readers.size(); ri++) {
        double passesPerSecond = median(perRound[wi][ri]);
        double eventsPerSecond = passesPerSecond * w.events();
        System.out.printf(
            Locale.ROOT,
            "%-16s %-46s %,14.0f %,12.0f %10.1f %10.1f%n",
            w.name(),
            readers.get(ri).name(),
            eventsPerSecond,
            passesPerSecond * w.payloads().size(),
            passesPerSecond * w.bytes() / 1e6,
            1e9 / eventsPerSecond);
      }
    }
  }

  /** Passes over the whole workload per second, for at least {@code seconds}. */
  private static double run(Workload w, Reader r, double seconds) {
    long sink = 0;
    long passes = 0;
    long start = System.nanoTime();
    long end = start + (long) (seconds * 1e9);
    long now;
    do {
      for (byte[] payload : w.payloads()) {
        sink += r.read().applyAsLong(payload);
      }
      passes++;
      now = System.nanoTime();
    } while (now < end);
    if (sink == 42) {
      System.out.print(""); // keeps the result alive
    }
    return passes / ((now - start) / 1e9);
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  // ---------------------------------------------------------------------------------------------
  // Readers

  private static long skip(byte[] payload) {
    try (MessageUnpacker unpacker = MessagePack.newDefaultUnpacker(payload)) {
      unpacker.skipValue();
      return unpacker.getTotalReadBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long walk(byte[] payload) {
    try (MessageUnpacker unpacker = MessagePack.newDefaultUnpacker(payload)) {
      return walkValue(unpacker);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads one value with msgpack-core's typed calls (strings and bins materialised). */
  private static long walkValue(MessageUnpacker u) throws IOException {
    MessageFormat format = u.getNextFormat();
    ValueType type = format.getValueType();
    switch (type) {
      case NIL:
        u.unpackNil();
        return 1;
      case BOOLEAN:
        return u.unpackBoolean() ? 1 : 0;
      case INTEGER:
        return format == MessageFormat.UINT64 ? u.unpackBigInteger().longValue() : u.unpackLong();
      case FLOAT:
        return (long) u.unpackDouble();
      case STRING:
        return u.unpackString().length();
      case BINARY:
        return u.readPayload(u.unpackBinaryHeader()).length;
      case ARRAY:
        {
          long sum = 0;
          for (int n = u.unpackArrayHeader(); n > 0; n--) {
            sum += walkValue(u);
          }
          return sum;
        }
      case MAP:
        {
          long sum = 0;
          for (int n = u.unpackMapHeader(); n > 0; n--) {
            sum += walkValue(u) + walkValue(u);
          }
          return sum;
        }
      default:
        u.skipValue();
        return 0;
    }
  }

  private static long decode(byte[] payload) {
    if (KvBatchDecoder.decode(payload, SOURCE, 7, 1L) instanceof DecodedBatch decoded) {
      return decoded.batch().events().size();
    }
    throw new IllegalStateException("the benchmark payload did not decode");
  }

  /**
   * The subscriber thread's work for one message, without the socket and without Kafka: frame
   * checks, sequence tracking, decoding, and serialising the record (as the hand-off does).
   */
  private static ToLongFunction<byte[]> subscriber() {
    long[] bytesOut = {0};
    KvSink sink =
        new KvSink() {
          @Override
          public boolean offer(KvEventBatch record, Consumer<KvEventBatch> onLost) {
            bytesOut[0] += JSON.toBytes(record).length;
            return true;
          }

          @Override
          public boolean offerDeadLetter(byte[] key, DeadLetter letter) {
            throw new IllegalStateException("the benchmark payload was dead-lettered");
          }
        };
    SourceSequencer sequencer =
        new SourceSequencer(
            SOURCE, null, sink, new KvBridgeMetrics(new SimpleMeterRegistry()), () -> 1L);
    byte[] topic = {'k', 'v'};
    long[] seq = {0};
    return payload -> {
      sequencer.onMessage(List.of(topic, ZmqReplayClient.bigEndian(seq[0]++), payload));
      return bytesOut[0];
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Workload

  private static Workload workload(String name, int batches, boolean maps) {
    Random random = new Random(20261121L);
    List<byte[]> payloads = new ArrayList<>(batches);
    long events = 0;
    long bytes = 0;
    for (int b = 0; b < batches; b++) {
      try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
        int stores = 1 + random.nextInt(4);
        boolean remove = b % 3 == 2;
        p.packArrayHeader(3);
        p.packDouble(1_750_000_000.0 + b * 0.01);
        p.packArrayHeader(stores + (remove ? 1 : 0));
        for (int e = 0; e < stores; e++) {
          stored(p, random, 1 + random.nextInt(64), maps);
        }
        if (remove) {
          removed(p, random, maps);
        }
        p.packInt(0);
        byte[] payload = p.toByteArray();
        payloads.add(payload);
        events += stores + (remove ? 1 : 0);
        bytes += payload.length;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return new Workload(name, payloads, events, bytes);
  }

  private static void stored(MessageBufferPacker p, Random random, int blocks, boolean maps)
      throws IOException {
    if (maps) {
      p.packMapHeader(11);
      p.packString("type");
      p.packString("BlockStored");
      p.packString("block_hashes");
    } else {
      p.packArrayHeader(13);
      p.packString("BlockStored");
    }
    p.packArrayHeader(blocks);
    for (int i = 0; i < blocks; i++) {
      p.packBigInteger(new BigInteger(64, random));
    }
    key(p, maps, "parent_block_hash");
    p.packBigInteger(new BigInteger(64, random));
    key(p, maps, "token_ids");
    p.packArrayHeader(blocks * 16);
    for (int i = 0; i < blocks * 16; i++) {
      p.packInt(random.nextInt(150_000));
    }
    key(p, maps, "block_size");
    p.packInt(16);
    key(p, maps, "lora_id");
    p.packNil();
    key(p, maps, "medium");
    p.packString("GPU");
    key(p, maps, "lora_name");
    p.packNil();
    key(p, maps, "extra_keys");
    p.packArrayHeader(blocks);
    for (int i = 0; i < blocks; i++) {
      p.packNil();
    }
    key(p, maps, "group_idx");
    p.packInt(0);
    key(p, maps, "kv_cache_spec_kind");
    p.packString("full_attention");
    if (!maps) {
      p.packNil(); // kv_cache_spec_sliding_window
      p.packNil(); // locality
    }
  }

  private static void removed(MessageBufferPacker p, Random random, boolean maps)
      throws IOException {
    if (maps) {
      p.packMapHeader(4);
      p.packString("type");
      p.packString("BlockRemoved");
      p.packString("block_hashes");
    } else {
      p.packArrayHeader(5);
      p.packString("BlockRemoved");
    }
    p.packArrayHeader(1);
    p.packBigInteger(new BigInteger(64, random));
    key(p, maps, "medium");
    p.packString("GPU");
    key(p, maps, "group_idx");
    p.packInt(0);
    if (!maps) {
      p.packNil(); // locality
    }
  }

  private static void key(MessageBufferPacker p, boolean maps, String name) throws IOException {
    if (maps) {
      p.packString(name);
    }
  }
}
