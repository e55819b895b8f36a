package io.prefixlog.demo;

import io.prefixlog.core.kv.KvBatchEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
 * subscription before publishing: ZMQ drops what a PUB sends before a subscriber has joined. It
 * runs on one thread of its own: {@code up --demo} binds it to loopback on free ports, {@link
 * DemoEngineMain} (the compose smoke test's engine) to fixed ports on every interface.
 */
public final class DemoKvEngine implements AutoCloseable {
  public static final int CAPACITY = 4096;
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
  private final byte[] topic;
  private final Duration subscriberWait;
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

  /** On loopback, free ports, for {@code up --demo}: gives up if no subscriber joins in 60 s. */
  public DemoKvEngine(ZContext context, int batches) {
    this(context, batches, "", "127.0.0.1", 0, 0, Duration.ofSeconds(60));
  }

  /**
   * @param topic the topic frame of every message (vLLM's {@code topic}; empty by default)
   * @param host the interface to bind ({@code 0.0.0.0}: all)
   * @param pubPort the PUB port, 0 for a free one
   * @param replayPort the replay ROUTER port, 0 for a free one
   * @param subscriberWait how long to wait for the first subscriber before failing; {@link
   *     Duration#ZERO} waits as long as the engine runs
   */
  public DemoKvEngine(
      ZContext context,
      int batches,
      String topic,
      String host,
      int pubPort,
      int replayPort,
      Duration subscriberWait) {
    this.batches = batches;
    this.topic = topic.getBytes(StandardCharsets.UTF_8);
    this.subscriberWait = subscriberWait;
    this.pub = context.createSocket(SocketType.XPUB);
    pub.setLinger(0);
    pub.setSndHWM(100_000);
    int boundPub = bind(pub, host, pubPort);
    this.router = context.createSocket(SocketType.ROUTER);
    router.setLinger(0);
    int boundReplay = bind(router, host, replayPort);
    String advertised = "0.0.0.0".equals(host) ? "127.0.0.1" : host;
    this.pubEndpoint = "tcp://" + advertised + ":" + boundPub;
    this.replayEndpoint = "tcp://" + advertised + ":" + boundReplay;
    this.thread = new Thread(this::run, "prefixlog-demo-kv-engine");
    thread.setDaemon(true);
  }

  private static int bind(ZMQ.Socket socket, String host, int port) {
    String address = "tcp://" + ("0.0.0.0".equals(host) ? "*" : host);
    if (port == 0) {
      return socket.bindToRandomPort(address);
    }
    socket.bind(address + ":" + port);
    return port;
  }

  public String pubEndpoint() {
    return pubEndpoint;
  }

  public String replayEndpoint() {
    return replayEndpoint;
  }

  public void start() {
    thread.start();
  }

  /** Waits until every batch was published; false when it took longer or failed. */
  public boolean awaitPublished(long seconds) throws InterruptedException {
    return done.await(seconds, TimeUnit.SECONDS) && failure == null;
  }

  public String failure() {
    return failure;
  }

  public long batchesPublished() {
    return seq;
  }

  public long eventsPublished() {
    return eventsPublished;
  }

  public long blocksStored() {
    return blocksStored;
  }

  public long blocksRemoved() {
    return blocksRemoved;
  }

  /** The block hashes the engine holds now, as the index renders them (16 hex digits). */
  public Set<String> residentHashes() {
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
    long deadline = System.nanoTime() + subscriberWait.toNanos();
    while (!closed && (subscriberWait.isZero() || System.nanoTime() < deadline)) {
      byte[] frame = pub.recv(ZMQ.DONTWAIT);
      if (frame != null && frame.length >= 1 && frame[0] == 1) {
        return;
      }
      Thread.sleep(20);
    }
    if (!closed) {
      throw new IllegalStateException(
          "no subscriber joined the demo KV engine within " + subscriberWait.toSeconds() + " s");
    }
  }

  private void publish(byte[] payload) {
    byte[] seqBytes = ByteBuffer.allocate(8).putLong(seq).array();
    pub.sendMore(topic);
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

  public static String hex(long hash) {
    return String.format(Locale.ROOT, "%016x", hash);
  }

  /** True once every batch was published. */
  public boolean published() {
    return done.getCount() == 0 && failure == null;
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
