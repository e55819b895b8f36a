package io.prefixlog.bridge.kv;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
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
 * One source's receive loop, on its own thread: a SUB socket connected to the engine's PUB
 * endpoint, every message handed to the source's {@link SourceSequencer} (which also replays, on
 * this thread, so one source's replay never delays another source).
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
 * message, so the catch-up comes before the first live message of the new connection.
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
  }

  /** Asks the loop to end; it does within about 100 ms. */
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
          sequencer.onConnected();
        }
      }
      if (first == null) {
        continue; // the receive timeout: look at running again
      }
      List<byte[]> frames = new ArrayList<>(3);
      frames.add(first);
      while (socket.hasReceiveMore()) {
        byte[] frame = socket.recv(0);
        if (frames.size() < MAX_FRAMES) {
          frames.add(frame);
        }
      }
      sequencer.onMessage(frames);
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
