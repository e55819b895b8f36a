package io.prefixlog.bridge.kv;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMQException;

/**
 * One source's receive loop, on its own thread: a SUB socket connected to the engine's PUB
 * endpoint, every message handed to the source's {@link SourceSequencer} (which also replays, on
 * this thread, so one source's replay never delays another source).
 *
 * <p>ZMQ reconnects a dropped TCP connection by itself (first after {@code reconnectMin}, the delay
 * doubling up to {@code reconnectMax}); ZMTP heartbeats notice an engine that vanished without
 * closing the connection. Should the socket itself fail, it is closed and re-created after the same
 * kind of growing delay. Nothing a peer sends stops the loop.
 */
final class KvSubscriber implements Runnable {
  private static final Logger LOGGER = LoggerFactory.getLogger(KvSubscriber.class);
  private static final int POLL_MS = 100;
  private static final int MAX_FRAMES = 16;

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
      try {
        socket = open();
        LOGGER
            .atInfo()
            .setMessage("subscribed")
            .addKeyValue("source", sequencer.source().id())
            .addKeyValue("endpoint", endpoint)
            .log();
        receive(socket);
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
      }
    }
  }

  private ZMQ.Socket open() {
    ZMQ.Socket socket = context.createSocket(SocketType.SUB);
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
    return socket;
  }

  private void receive(ZMQ.Socket socket) {
    while (running) {
      byte[] first = socket.recv(0);
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
