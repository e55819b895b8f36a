package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.demo.DemoUpstream;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.Ports;
import io.prefixlog.embedded.junit.KafkaExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoublePredicate;
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
 * A ZMQ publisher floods the KV subscriber with {@value #FLOOD} frames of nearly {@code
 * PREFIXLOG_KV_MAX_MESSAGE_BYTES} (1 MiB here; twice the {@value #HEAP_MIB} MiB heap in all) while
 * the subscriber waits for its catch-up replay, which the engine's ROUTER holds back. ZMQ bounds
 * its receive queue by messages only ({@code PREFIXLOG_KV_RECEIVE_HWM}, 100,000 before): with the
 * subscriber's one thread in the replay it took the whole flood onto the heap the proxy shares, and
 * {@code -XX:+ExitOnOutOfMemoryError}, as the image runs it, ended both. Read at once into a buffer
 * bounded by {@code PREFIXLOG_KV_RECEIVE_MEMORY}, what fits is kept and the rest dropped; the proxy
 * goes on answering, and once the replay ends every dropped number comes back through replay,
 * without a gap marker.
 */
@ExtendWith(KafkaExtension.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class KvReceiveMemoryIT {
  private static final int HEAP_MIB = 128;
  private static final int FLOOD = 256;
  private static final long MAX_MESSAGE = 1L << 20;
  private static final long RECEIVE_MEMORY = 48L << 20;

  /** {@code PREFIXLOG_KV_RECEIVE_HWM}'s default, left as it is. */
  private static final int HWM = 4;

  /** What a replay's socket may hold: one message ahead and the one arriving. */
  private static final long REPLAY_BUFFER = 2 * MAX_MESSAGE;

  /** A replay of eight times the heap, each message nearly the largest allowed. */
  private static final int REPLAYED = 1024;

  private static final long MAX_VALUES = 65_536;
  private static final double ENGINE_TS = 1_749_633_401.5;

  @TempDir Path dir;

  @Test
  void shouldDropWhatExceedsTheReceiveMemoryAndReplayItWithTheProxyStillServing(KafkaCluster kafka)
      throws Exception {
    // Given: the proxy and the KV subscriber in one JVM of 128 MiB, a PUB and a ROUTER that holds
    // the subscriber's first replay until told
    for (String topic : new String[] {"flood.requests.raw", "flood.kv.events", "flood.dlq"}) {
      TopicReader.createTopic(kafka.bootstrapServers(), topic);
    }
    int[] ports = Ports.free("127.0.0.1", 2);
    byte[] big = storedBatch((int) (MAX_MESSAGE - (16 << 10)) / 3);
    assertThat((long) big.length).isBetween(MAX_MESSAGE - (32 << 10), MAX_MESSAGE);
    byte[] small = storedBatch(16);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger replays = new AtomicInteger();
    try (ZContext zmq = new ZContext();
        DemoUpstream engine = DemoUpstream.start(DemoUpstream.Options.defaults());
        BridgeChild bridge = startBridge(kafka, engine, ports, "flood.", "60s")) {
      ZMQ.Socket router = zmq.createSocket(SocketType.ROUTER);
      router.bind("tcp://127.0.0.1:" + ports[1]);
      Thread replier =
          new Thread(() -> answerReplays(router, release, replays, small), "test-router");
      replier.setDaemon(true);
      replier.start();
      try {
        floodAndReplay(bridge, zmq, ports[0], release, big, small);
      } finally {
        replier.interrupt();
        replier.join(5_000);
      }
    }
  }

  @Test
  void shouldReadALongReplayAtItsOwnPaceWithTheProxyStillServing(KafkaCluster kafka)
      throws Exception {
    // Given: the proxy and the KV subscriber in one JVM of 128 MiB, and an engine whose ROUTER
    // answers the start-up replay with REPLAYED batches of nearly 1 MiB at once (8 times the heap;
    // its own queue unbounded, so that nothing is dropped on its side)
    for (String topic :
        new String[] {"replay-flood.requests.raw", "replay-flood.kv.events", "replay-flood.dlq"}) {
      TopicReader.createTopic(kafka.bootstrapServers(), topic);
    }
    int[] ports = Ports.free("127.0.0.1", 2);
    byte[] big = storedBatch((int) (MAX_MESSAGE - (16 << 10)) / 3);
    try (ZContext zmq = new ZContext();
        DemoUpstream engine = DemoUpstream.start(DemoUpstream.Options.defaults())) {
      ZMQ.Socket router = zmq.createSocket(SocketType.ROUTER);
      router.setSndHWM(0);
      router.bind("tcp://127.0.0.1:" + ports[1]);
      ZMQ.Socket pub = zmq.createSocket(SocketType.XPUB);
      pub.bind("tcp://127.0.0.1:" + ports[0]);
      // The start-up replay gets every number up to REPLAYED at once.
      Thread replier = new Thread(() -> serveReplays(router, big, from -> REPLAYED), "test-router");
      replier.setDaemon(true);
      replier.start();
      try (BridgeChild bridge = startBridge(kafka, engine, ports, "replay-flood.", "120s")) {
        // When: the replay streams in
        bridge.awaitHealthy();
        String batches = "prefixlog_kv_batches_total";
        await(bridge, batches, v -> v >= REPLAYED, 120);

        // Then: every replayed batch was handled, the bridge alive and the proxy answering
        bridge.assertAlive();
        assertThat(bridge.metric(batches)).isEqualTo((double) REPLAYED);
        assertThat(bridge.metric("prefixlog_kv_gaps_total")).isZero();
        assertThat(bridge.chat().statusCode()).isEqualTo(200);
        System.out.printf(
            "KvReceiveMemoryIT: a replay of %d batches of %d bytes read by a bridge of -Xmx%dm,"
                + " %.0f handled%n",
            REPLAYED, big.length, HEAP_MIB, bridge.metric(batches));
      } finally {
        replier.interrupt();
        replier.join(5_000);
      }
    }
  }

  private static void floodAndReplay(
      BridgeChild bridge,
      ZContext zmq,
      int pubPort,
      CountDownLatch release,
      byte[] big,
      byte[] small)
      throws Exception {
    ZMQ.Socket pub = zmq.createSocket(SocketType.XPUB);
    pub.bind("tcp://127.0.0.1:" + pubPort);
    bridge.awaitHealthy();
    pub.setReceiveTimeOut(60_000);
    assertThat(pub.recv(0)).as("the subscription").isNotNull();

    // When: the flood, while the subscriber waits for its catch-up replay
    for (long seq = 0; seq < FLOOD; seq++) {
      BridgeChild.publishBatch(pub, seq, big);
    }
    long room = RECEIVE_MEMORY - (HWM + 1) * MAX_MESSAGE - REPLAY_BUFFER - MAX_VALUES * 64;
    long held = 256 + 8 + big.length;
    long kept = room / held;
    String drops = "prefixlog_kv_receive_drops_total";
    await(bridge, drops, v -> v >= FLOOD - kept, 20);

    // Then: the proxy answers meanwhile
    bridge.assertAlive();
    HttpResponse<String> response = bridge.chat();
    assertThat(response.statusCode()).isEqualTo(200);
    // and what fits is held, the rest dropped
    double bytesHeld = bridge.metric("prefixlog_kv_receive_bytes");

    // When: the replay ends, and a next live batch shows the dropped numbers missing
    release.countDown();
    String batches = "prefixlog_kv_batches_total";
    await(bridge, batches, v -> v >= kept, 30);
    BridgeChild.publishBatch(pub, FLOOD, small);

    // Then: replay brings every dropped number back, none is a gap
    await(bridge, batches, v -> v >= FLOOD + 1, 30);
    bridge.assertAlive();
    assertThat(bridge.metric(batches)).isEqualTo(FLOOD + 1.0);
    assertThat(bridge.metric("prefixlog_kv_gaps_total")).isZero();
    assertThat(bridge.metric("prefixlog_kv_replayed_batches_total"))
        .isEqualTo(FLOOD - kept + 1.0); // from the anchor, the last batch handled, on
    assertThat(bridge.metric(drops)).isEqualTo((double) (FLOOD - kept));
    assertThat(bytesHeld).isEqualTo((double) (kept * held));
    assertThat(bridge.metric("prefixlog_kv_receive_bytes")).isZero();
    System.out.printf(
        "KvReceiveMemoryIT: %d frames of %d bytes sent to a stalled subscriber, %d kept"
            + " (%d bytes), %.0f dropped, %.0f replayed, %.0f gaps, -Xmx%dm, proxy answered"
            + " %d%n",
        FLOOD,
        big.length,
        kept,
        kept * held,
        bridge.metric(drops),
        bridge.metric("prefixlog_kv_replayed_batches_total"),
        bridge.metric("prefixlog_kv_gaps_total"),
        HEAP_MIB,
        response.statusCode());
  }

  /**
   * The engine's ROUTER: the first replay is held until {@code release}, then answered with the end
   * marker (nothing buffered before the flood); every later one with {@code payload} under each
   * number from the one asked to the last of the flood.
   */
  private static void answerReplays(
      ZMQ.Socket router, CountDownLatch release, AtomicInteger replays, byte[] payload) {
    serveReplays(
        router,
        payload,
        from -> {
          if (replays.getAndIncrement() == 0) {
            release.await();
            return from;
          }
          return FLOOD;
        });
  }

  /** The numbers a replay from {@code from} answers: up to the one returned, exclusive. */
  private interface Replies {
    long until(long from) throws InterruptedException;
  }

  /**
   * The engine's ROUTER: each replay request is answered with {@code payload} under each number of
   * its {@link Replies}, all sent at once, then the end marker.
   */
  private static void serveReplays(ZMQ.Socket router, byte[] payload, Replies replies) {
    router.setReceiveTimeOut(100);
    while (!Thread.currentThread().isInterrupted()) {
      byte[] identity;
      try {
        identity = router.recv(0);
      } catch (RuntimeException e) {
        return; // the context closed
      }
      if (identity == null) {
        continue;
      }
      router.recv(0); // empty
      long from = ByteBuffer.wrap(router.recv(0)).getLong();
      long until;
      try {
        until = replies.until(from);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      for (long seq = Math.max(0, from); seq < until; seq++) {
        router.sendMore(identity);
        router.sendMore(new byte[0]);
        router.sendMore(ByteBuffer.allocate(8).putLong(seq).array());
        router.send(payload);
      }
      router.sendMore(identity);
      router.sendMore(new byte[0]);
      router.sendMore(ByteBuffer.allocate(8).putLong(-1).array());
      router.send(new byte[0]);
    }
  }

  /**
   * A bridge of {@code HEAP_MIB} in front of {@code engine}, its KV subscriber on the PUB at {@code
   * ports[0]} and the ROUTER at {@code ports[1]}, with this test's receive limits.
   */
  private BridgeChild startBridge(
      KafkaCluster kafka, DemoUpstream engine, int[] ports, String prefix, String replayTimeout)
      throws Exception {
    return BridgeChild.start(
        dir,
        kafka,
        engine.baseUrl(),
        prefix,
        HEAP_MIB,
        Map.of(
            "PREFIXLOG_KV_ENDPOINTS",
            "tcp://127.0.0.1:" + ports[0],
            "PREFIXLOG_KV_REPLAY_ENDPOINTS",
            "tcp://127.0.0.1:" + ports[1],
            "PREFIXLOG_KV_REPLAY_TIMEOUT",
            replayTimeout,
            "PREFIXLOG_KV_RESUME_TIMEOUT",
            "0",
            "PREFIXLOG_KV_MAX_MESSAGE_BYTES",
            Long.toString(MAX_MESSAGE),
            "PREFIXLOG_KV_MAX_VALUES_PER_BATCH",
            Long.toString(MAX_VALUES),
            "PREFIXLOG_KV_RECEIVE_MEMORY",
            Long.toString(RECEIVE_MEMORY)));
  }

  /** Waits until {@code series} satisfies {@code done}, at most {@code seconds}. */
  private static void await(BridgeChild bridge, String series, DoublePredicate done, int seconds)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    do {
      bridge.assertAlive();
      double value;
      try {
        value = bridge.metric(series);
      } catch (java.net.ConnectException e) {
        bridge.process().waitFor(5, TimeUnit.SECONDS); // a bridge that is going down says so
        bridge.assertAlive();
        throw e;
      }
      if (done.test(value)) {
        return;
      }
      Thread.sleep(100);
    } while (System.nanoTime() < deadline);
  }

  /**
   * {@code [ts, [{type: BlockStored, block_hashes: [1], token_ids: [n ids of 3 bytes each],
   * block_size: 16}]]}: a long prompt's batch, its size in token ids the decoder counts only.
   */
  private static byte[] storedBatch(int tokens) {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packArrayHeader(2);
      p.packDouble(ENGINE_TS);
      p.packArrayHeader(1);
      p.packMapHeader(4);
      p.packString("type");
      p.packString("BlockStored");
      p.packString("block_hashes");
      p.packArrayHeader(1);
      p.packInt(1);
      p.packString("token_ids");
      p.packArrayHeader(tokens);
      for (int i = 0; i < tokens; i++) {
        p.packInt(1000 + i % 1000);
      }
      p.packString("block_size");
      p.packInt(16);
      return p.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
