package io.prefixlog.bridge.kv;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZEvent;
import org.zeromq.ZMQ;
import org.zeromq.ZMQException;
import org.zeromq.ZMonitor;

/**
 * One source's receive loop and its handler, on two threads: a SUB socket connected to the engine's
 * PUB endpoint, read by the receive thread into the source's {@link ReceiveBuffer}, and every
 * message taken from there handed to the source's {@link SourceSequencer} on the handler thread
 * (which also replays there, so one source's replay never delays another source).
 *
 * <p>The receive thread never waits for the handler: ZMQ bounds its queue by messages only ({@code
 * PREFIXLOG_KV_RECEIVE_HWM}), and counts a message only once its last frame came, so a stalled
 * reader lets it hold that many messages of up to {@code PREFIXLOG_KV_MAX_MESSAGE_BYTES}, or one
 * message of endless frames. Read at once into a buffer bounded by bytes, a burst of small batches
 * waits while a replay runs, and a message that does not fit is dropped here rather than left in
 * ZMQ: its number becomes a gap that the next message shows and replay covers, as when the engine's
 * PUB drops one. Blocking instead would hand the overflow back to ZMQ's unbounded frames.
 *
 * <p>ZMQ reconnects a dropped TCP connection by itself (first after {@code reconnectMin}, the delay
 * doubling up to {@code reconnectMax}); ZMTP heartbeats notice an engine that vanished without
 * closing the connection. Should the socket itself fail, it is closed and re-created after the same
 * kind of growing delay. Nothing a peer sends stops the loop.
 *
 * <p>Every completed handshake with the engine (the first connection, and each reconnection ZMQ
 * makes by itself) is seen on a socket monitor and tells the sequencer to {@linkplain
 * SourceSequencer#onConnected catch up}: vLLM's PUB drops what it sends while no subscriber is
 * connected, so only the engine's replay buffer still has it. The monitor is read before each
 * message and the catch-up queued in the same buffer, so it comes before the first live message of
 * the new connection.
 */
final class KvSubscriber implements Runnable {
  private static final Logger LOGGER = LoggerFactory.getLogger(KvSubscriber.class);
  private static final int POLL_MS = 100;
  private static final int MAX_FRAMES = 16;
  private static final AtomicInteger MONITORS = new AtomicInteger();

  private final ZContext context;
  private final String endpoint;
  private final byte[] topicFilter;
  private final SourceSequencer sequencer;
  private final KvBridgeConfig config;
  private final KvBridgeMetrics metrics;
  private final ReceiveBuffer buffer;
  private volatile boolean running = true;

  KvSubscriber(
      ZContext context,
      String endpoint,
      String topic,
      SourceSequencer sequencer,
      KvBridgeConfig config,
      KvBridgeMetrics metrics) {
    this.context = Objects.requireNonNull(context, "context");
    this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
    this.topicFilter = topic.getBytes(StandardCharsets.UTF_8);
    this.sequencer = Objects.requireNonNull(sequencer, "sequencer");
    this.config = Objects.requireNonNull(config, "config");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.buffer = new ReceiveBuffer(config.receiveBufferBytes());
  }

  /** The bytes of this source's messages held now, received and not yet handled. */
  long bufferedBytes() {
    return buffer.bytes();
  }

  /** The handler loop, for a thread of its own: hands each received item to the sequencer. */
  Runnable handler() {
    return this::handle;
  }

  /** Asks both loops to end; they do within about 100 ms (the handler once a replay is over). */
  void stop() {
    running = false;
  }

  @Override
  public void run() {
    Duration backoff = config.reconnectMin();
    while (running) {
      ZMQ.Socket socket = null;
      ZMQ.Socket monitor = null;
      try {
        socket = context.createSocket(SocketType.SUB);
        String monitorAddress = "inproc://prefixlog-kv-monitor-" + MONITORS.incrementAndGet();
        socket.monitor(monitorAddress, ZMQ.EVENT_HANDSHAKE_PROTOCOL);
        monitor = context.createSocket(SocketType.PAIR);
        monitor.connect(monitorAddress);
        open(socket);
        LOGGER
            .atInfo()
            .setMessage("subscribed")
            .addKeyValue("source", sequencer.source().id())
            .addKeyValue("endpoint", endpoint)
            .log();
        receive(socket, monitor);
      } catch (ZMQException | IllegalStateException e) {
        if (!running) {
          break;
        }
        metrics.reconnects.increment();
        LOGGER
            .atWarn()
            .setMessage("subscriber socket failed; re-creating it")
            .addKeyValue("source", sequencer.source().id())
            .addKeyValue("error", e.toString())
            .addKeyValue("backoffMs", backoff.toMillis())
            .log();
        sleep(backoff);
        backoff =
            backoff.multipliedBy(2).compareTo(config.reconnectMax()) > 0
                ? config.reconnectMax()
                : backoff.multipliedBy(2);
      } finally {
        if (socket != null) {
          socket.close(); // also removes it from the context
        }
        if (monitor != null) {
          monitor.close();
        }
      }
    }
  }

  private void open(ZMQ.Socket socket) {
    socket.setLinger(0);
    socket.setRcvHWM(config.receiveHwm());
    socket.setMaxMsgSize(config.maxMessageBytes());
    // JeroMQ puts a frame over 1 MiB in a direct buffer: outside the heap that -Xmx and the receive
    // memory bound (direct memory may reach another -Xmx beyond it, past a container's limit), and
    // freed only when a collection finds it. On the heap, the frame is also the array received.
    socket.setMsgAllocationHeapThreshold(Integer.MAX_VALUE);
    socket.setReconnectIVL((int) Math.min(Integer.MAX_VALUE, config.reconnectMin().toMillis()));
    socket.setReconnectIVLMax((int) Math.min(Integer.MAX_VALUE, config.reconnectMax().toMillis()));
    int heartbeatMs = (int) Math.min(Integer.MAX_VALUE, config.heartbeat().toMillis());
    if (heartbeatMs > 0) {
      socket.setHeartbeatIvl(heartbeatMs);
      socket.setHeartbeatTimeout((int) Math.min(Integer.MAX_VALUE, 3L * heartbeatMs));
    }
    socket.setHandshakeIvl(millis(config.handshakeTimeout()));
    socket.setReceiveTimeOut(POLL_MS);
    socket.subscribe(topicFilter);
    if (!socket.connect(endpoint)) {
      throw new IllegalStateException("cannot connect to " + endpoint);
    }
  }

  private void receive(ZMQ.Socket socket, ZMQ.Socket monitor) {
    while (running) {
      byte[] first = socket.recv(0);
      for (ZEvent event = ZEvent.recv(monitor, ZMQ.DONTWAIT);
          event != null;
          event = ZEvent.recv(monitor, ZMQ.DONTWAIT)) {
        if (event.getEvent() == ZMonitor.Event.HANDSHAKE_PROTOCOL) {
          LOGGER
              .atInfo()
              .setMessage("connected to the engine; catching up")
              .addKeyValue("source", sequencer.source().id())
              .addKeyValue("endpoint", endpoint)
              .log();
          buffer.connected();
        }
      }
      if (first == null) {
        continue; // the receive timeout: look at running again
      }
      // Each frame is reserved before it is kept; the rest of a message that does not fit is read
      // and let go, so ZMQ never holds it.
      long held = ReceiveBuffer.MESSAGE_OVERHEAD + first.length;
      List<byte[]> frames = buffer.reserve(held) ? new ArrayList<>(3) : null;
      if (frames != null) {
        frames.add(first);
      }
      while (socket.hasReceiveMore()) {
        byte[] frame = socket.recv(0);
        if (frames != null && frames.size() < MAX_FRAMES) {
          if (buffer.reserve(frame.length)) {
            held += frame.length;
            frames.add(frame);
          } else {
            buffer.release(held);
            frames = null;
          }
        }
      }
      if (frames != null) {
        buffer.put(new ReceiveBuffer.Message(frames, held));
      } else {
        dropped();
      }
    }
  }

  private void dropped() {
    metrics.receiveDrops.increment();
    long drops = (long) metrics.receiveDrops.count();
    if (drops == 1 || drops % 1_000 == 0) {
      LOGGER
          .atWarn()
          .setMessage("received message dropped: the source's receive memory is full")
          .addKeyValue("source", sequencer.source().id())
          .addKeyValue("receiveBytes", buffer.bytes())
          .addKeyValue("drops", drops)
          .log();
    }
  }

  private void handle() {
    while (running) {
      ReceiveBuffer.Item item;
      try {
        item = buffer.poll(POLL_MS, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      if (item instanceof ReceiveBuffer.Message message) {
        try {
          sequencer.onMessage(message.frames());
        } finally {
          buffer.release(message.bytes());
        }
      } else if (item instanceof ReceiveBuffer.Connected) {
        sequencer.onConnected();
      }
    }
  }

  static int millis(Duration duration) {
    return (int) Math.min(Integer.MAX_VALUE, duration.toMillis());
  }

  private void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }
}
