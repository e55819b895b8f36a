package io.prefixlog.tools.up;

import io.prefixlog.core.kv.KvBatchEncoder;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * A stand-in for a vLLM engine's KV-event publisher, for {@code up --demo}: it speaks vLLM's
 * framing — PUB {@code [topic, seq (8 bytes big-endian), msgpack [ts, events, dp_rank]]} with
 * map-encoded events (vLLM 0.26 and later) and uint64 hashes, a ROUTER replay endpoint answering
 * {@code [identity, "", start_seq]} with {@code [topic, seq, payload]} messages and the eight-0xff
 * end marker — over a synthetic workload: sessions whose prompts grow turn by turn, a prefix cache
 * of {@value #CAPACITY} blocks of 16 tokens with LRU eviction. A request stores the blocks after
 * its cached prefix (1–64 new blocks per turn, plus any it recomputes: a block still cached further
 * on is stored again, a second copy, as vLLM does) and the eviction of each block is one
 * BlockRemoved.
 *
 * <p>It binds an XPUB socket (which sends exactly as a PUB does) so that it can wait for the first
 * subscription before publishing: ZMQ drops what a PUB sends before a subscriber has joined.
 * Everything runs on loopback, on free ports, on one thread of its own.
 */
final class DemoKvEngine implements AutoCloseable {
  static final int CAPACITY = 4096;
  private static final Logger LOGGER = LoggerFactory.getLogger(DemoKvEngine.class);
  private static final byte[] END_SEQ = {-1, -1, -1, -1, -1, -1, -1, -1};
  private static final int SESSIONS = 8;
  private static final int MAX_SESSION_BLOCKS = 256;
  private static final int REPLAY_BUFFER = 2000;

  private final ZMQ.Socket pub;
  private final ZMQ.Socket router;
  private final String pubEndpoint;
  private final String replayEndpoint;
  private final int batches;
  private final Thread thread;
  private final CountDownLatch done = new CountDownLatch(1);
  private volatile boolean closed;
  private volatile String failure;

  // Engine state, confined to the engine thread until done.
  private final Random random = new Random(20_250_611L);
  private final PrefixCacheWorkload workload =
      new PrefixCacheWorkload(SESSIONS, MAX_SESSION_BLOCKS, CAPACITY);
  private final Deque<byte[][]> buffer = new ArrayDeque<>();
  private long seq;
  private long eventsPublished;
  private long blocksStored;
  private long blocksRemoved;

  DemoKvEngine(ZContext context, int batches) {
    this.batches = batches;
    this.pub = context.createSocket(SocketType.XPUB);
    pub.setLinger(0);
    pub.setSndHWM(100_000);
    int pubPort = pub.bindToRandomPort("tcp://127.0.0.1");
    this.router = context.createSocket(SocketType.ROUTER);
    router.setLinger(0);
    int routerPort = router.bindToRandomPort("tcp://127.0.0.1");
    this.pubEndpoint = "tcp://127.0.0.1:" + pubPort;
    this.replayEndpoint = "tcp://127.0.0.1:" + routerPort;
    this.thread = new Thread(this::run, "prefixlog-demo-kv-engine");
    thread.setDaemon(true);
  }

  String pubEndpoint() {
    return pubEndpoint;
  }

  String replayEndpoint() {
    return replayEndpoint;
  }

  void start() {
    thread.start();
  }

  /** Waits until every batch was published; false when it took longer or failed. */
  boolean awaitPublished(long seconds) throws InterruptedException {
    return done.await(seconds, TimeUnit.SECONDS) && failure == null;
  }

  String failure() {
    return failure;
  }

  long batchesPublished() {
    return seq;
  }

  long eventsPublished() {
    return eventsPublished;
  }

  long blocksStored() {
    return blocksStored;
  }

  long blocksRemoved() {
    return blocksRemoved;
  }

  /** The block hashes the engine holds now, as the index renders them (16 hex digits). */
  Set<String> residentHashes() {
    Set<String> hashes = new TreeSet<>();
    workload.resident().forEach(h -> hashes.add(hex(h)));
    return hashes;
  }

  private void run() {
    try {
      awaitSubscriber();
      for (int i = 0; i < batches && !closed; i++) {
        publish(nextBatch());
        serveReplay();
        Thread.sleep(2); // an engine publishes per scheduler step, not in one burst
      }
      done.countDown();
      while (!closed) {
        serveReplay();
        Thread.sleep(20);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      failure = e.toString();
      LOGGER.atError().setMessage("demo KV engine failed").setCause(e).log();
    } finally {
      done.countDown();
      pub.close();
      router.close();
    }
  }

  private void awaitSubscriber() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!closed && System.nanoTime() < deadline) {
      byte[] frame = pub.recv(ZMQ.DONTWAIT);
      if (frame != null && frame.length >= 1 && frame[0] == 1) {
        return;
      }
      Thread.sleep(20);
    }
    throw new IllegalStateException("no subscriber joined the demo KV engine within 60 s");
  }

  private void publish(byte[] payload) {
    byte[] seqBytes = ByteBuffer.allocate(8).putLong(seq).array();
    pub.sendMore(new byte[0]);
    pub.sendMore(seqBytes);
    pub.send(payload);
    buffer.addLast(new byte[][] {seqBytes, payload});
    if (buffer.size() > REPLAY_BUFFER) {
      buffer.removeFirst();
    }
    seq++;
  }

  /** Answers the pending replay requests, if any. */
  private void serveReplay() {
    while (true) {
      byte[] identity = router.recv(ZMQ.DONTWAIT);
      if (identity == null) {
        return;
      }
      List<byte[]> rest = new ArrayList<>();
      while (router.hasReceiveMore()) {
        rest.add(router.recv());
      }
      if (rest.size() != 2 || rest.get(0).length != 0 || rest.get(1).length != 8) {
        LOGGER.atWarn().setMessage("demo KV engine: invalid replay request ignored").log();
        continue;
      }
      long start = ByteBuffer.wrap(rest.get(1)).getLong();
      for (byte[][] message : buffer) {
        if (ByteBuffer.wrap(message[0]).getLong() >= start) {
          router.sendMore(identity);
          router.sendMore(new byte[0]);
          router.sendMore(new byte[0]);
          router.sendMore(message[0]);
          router.send(message[1]);
        }
      }
      router.sendMore(identity);
      router.sendMore(new byte[0]);
      router.sendMore(new byte[0]);
      router.sendMore(END_SEQ);
      router.send(new byte[0]);
    }
  }

  /** One scheduler step: one request of a random session. */
  private byte[] nextBatch() {
    PrefixCacheWorkload.Step step = workload.next(random);
    List<Long> stored = step.stored();
    List<Long> evicted = step.evicted();
    int events = evicted.size() + (stored.isEmpty() ? 0 : 1);
    KvBatchEncoder batch = KvBatchEncoder.start(System.currentTimeMillis() / 1000.0, events);
    if (!stored.isEmpty()) {
      int[] tokens = new int[16 * stored.size()];
      for (int t = 0; t < tokens.length; t++) {
        tokens[t] = random.nextInt(150_000);
      }
      batch.blockStored(
          stored, step.parentOf(step.hit()), tokens, 16, 0, null, "demo-session-" + step.session());
      blocksStored += stored.size();
    }
    for (long hash : evicted) {
      batch.blockRemoved(hash, 0);
    }
    blocksRemoved += evicted.size();
    eventsPublished += events;
    return batch.finish(0);
  }

  static String hex(long hash) {
    return String.format(Locale.ROOT, "%016x", hash);
  }

  @Override
  public void close() {
    closed = true;
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
