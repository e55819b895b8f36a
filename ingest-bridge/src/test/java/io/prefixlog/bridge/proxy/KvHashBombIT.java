package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.demo.DemoUpstream;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.Ports;
import io.prefixlog.embedded.junit.KafkaExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * A ZMQ publisher sends the KV subscriber a hash bomb: one BlockStored of {@value #BOMB_HASHES}
 * one-byte hashes, a 4 MiB frame well within {@code PREFIXLOG_KV_MAX_MESSAGE_BYTES}, which decoded
 * whole would take some 240 MiB of heap. The subscriber shares the proxy's JVM ({@value #HEAP_MIB}
 * MiB, {@code -XX:+ExitOnOutOfMemoryError} as the image runs it): decoding it whole killed the
 * proxy with it. Refused at the array's header, the bomb is a dead letter, the next batch is
 * published, and the proxy goes on answering.
 */
@ExtendWith(KafkaExtension.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class KvHashBombIT {
  private static final int BOMB_HASHES = 4 << 20;
  private static final int HEAP_MIB = 128;

  @TempDir Path dir;

  @Test
  void shouldDeadLetterAHashBombWithTheProxyStillServing(KafkaCluster kafka) throws Exception {
    // Given: the proxy and the KV subscriber in one JVM of 128 MiB, subscribed to a ZMQ PUB
    for (String topic : new String[] {"bomb.requests.raw", "bomb.kv.events", "bomb.dlq"}) {
      TopicReader.createTopic(kafka.bootstrapServers(), topic);
    }
    int pubPort = Ports.free("127.0.0.1", 1)[0];
    try (ZContext zmq = new ZContext();
        DemoUpstream engine = DemoUpstream.start(DemoUpstream.Options.defaults());
        BridgeChild bridge =
            BridgeChild.start(
                dir,
                kafka,
                engine.baseUrl(),
                "bomb.",
                HEAP_MIB,
                Map.of(
                    "PREFIXLOG_KV_ENDPOINTS",
                    "tcp://127.0.0.1:" + pubPort,
                    "PREFIXLOG_KV_RESUME_TIMEOUT",
                    "0"))) {
      ZMQ.Socket pub = zmq.createSocket(SocketType.PUB);
      pub.bind("tcp://127.0.0.1:" + pubPort);
      bridge.awaitHealthy();
      byte[] bomb = storedBatch(BOMB_HASHES);
      byte[] good = storedBatch(1);

      // When: the bomb, sent again until the subscriber has it (it joins when it joins)
      long seq = 0;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      String bombed = "prefixlog_dead_letters_total{reason=\"too_many_hashes\"}";
      while (bridge.metric(bombed) < 1 && System.nanoTime() < deadline) {
        bridge.assertAlive();
        BridgeChild.publishBatch(pub, seq++, bomb);
        Thread.sleep(300);
      }
      bridge.assertAlive();
      assertThat(bridge.metric(bombed)).as("bombs dead-lettered").isPositive();
      // and then a real batch
      String published = "prefixlog_kv_batches_total";
      while (bridge.metric(published) < 1 && System.nanoTime() < deadline) {
        bridge.assertAlive();
        BridgeChild.publishBatch(pub, seq++, good);
        Thread.sleep(100);
      }

      // Then: the subscriber went on, and the proxy still serves
      assertThat(bridge.metric(published)).as("batches").isPositive();
      HttpResponse<String> response = bridge.chat();
      assertThat(response.statusCode()).isEqualTo(200);
      bridge.assertAlive();
      System.out.printf(
          "KvHashBombIT: %d bombs of %d MiB sent, %.0f dead-lettered, -Xmx%dm, proxy answered %d%n",
          seq, bomb.length >> 20, bridge.metric(bombed), HEAP_MIB, response.statusCode());
    }
  }

  /**
   * {@code [ts, [{type: BlockStored, block_hashes: [1 × n], token_ids: [16 ids], block_size:
   * 16}]]}, each hash the one-byte integer 1.
   */
  private static byte[] storedBatch(int hashes) {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packArrayHeader(2);
      p.packDouble(1_749_633_401.5);
      p.packArrayHeader(1);
      p.packMapHeader(4);
      p.packString("type");
      p.packString("BlockStored");
      p.packString("block_hashes");
      p.packArrayHeader(hashes);
      byte[] ones = new byte[hashes];
      Arrays.fill(ones, (byte) 1);
      p.writePayload(ones);
      p.packString("token_ids");
      p.packArrayHeader(16);
      for (int i = 0; i < 16; i++) {
        p.packInt(1000 + i);
      }
      p.packString("block_size");
      p.packInt(16);
      return p.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
