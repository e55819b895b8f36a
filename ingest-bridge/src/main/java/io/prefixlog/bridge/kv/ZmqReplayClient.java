package io.prefixlog.bridge.kv;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMQException;

/**
 * Replays from a vLLM ROUTER endpoint with a DEALER socket: sends {@code [b"", start_seq]} and
 * reads reply messages until the handler sees the end or the time allowed runs out. Each replay
 * uses a fresh socket, closed at once afterwards, so the late replies of a replay that timed out
 * can never be mistaken for those of the next.
 */
final class ZmqReplayClient implements ReplayClient {
  private static final Logger LOGGER = LoggerFactory.getLogger(ZmqReplayClient.class);
  private static final int MAX_FRAMES = 16;

  private final ZContext context;
  private final String endpoint;
  private final Duration timeout;
  private final Duration handshakeTimeout;
  private final long maxMessageBytes;

  /**
   * @param timeout the most one replay may take
   * @param handshakeTimeout a connection not through its ZMTP handshake by then is made again (the
   *     request, still queued, then goes out on the new one)
   */
  ZmqReplayClient(
      ZContext context,
      String endpoint,
      Duration timeout,
      Duration handshakeTimeout,
      long maxMessageBytes) {
    this.context = Objects.requireNonNull(context, "context");
    this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    this.handshakeTimeout = Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
    this.maxMessageBytes = maxMessageBytes;
  }

  @Override
  public boolean replay(long fromSeq, Predicate<List<byte[]>> handler) {
    long deadline = System.nanoTime() + timeout.toNanos();
    ZMQ.Socket dealer = context.createSocket(SocketType.DEALER);
    try {
      dealer.setLinger(0);
      // A replay streams up to the engine's whole buffer: at most REPLAY_HWM messages wait here
      // (inside PREFIXLOG_KV_RECEIVE_MEMORY), the rest in the engine's queue.
      dealer.setRcvHWM(KvBridgeConfig.REPLAY_HWM);
      dealer.setMaxMsgSize(maxMessageBytes);
      dealer.setMsgAllocationHeapThreshold(Integer.MAX_VALUE); // as the subscriber's, on the heap
      // at most half the replay's time, so that a stalled handshake leaves time for a second one
      dealer.setHandshakeIvl(
          KvSubscriber.millis(
              handshakeTimeout.compareTo(timeout.dividedBy(2)) < 0
                  ? handshakeTimeout
                  : timeout.dividedBy(2)));
      dealer.connect(endpoint);
      dealer.sendMore(new byte[0]);
      dealer.send(bigEndian(fromSeq));
      while (true) {
        long remainingMs = (deadline - System.nanoTime()) / 1_000_000;
        if (remainingMs <= 0) {
          return false;
        }
        dealer.setReceiveTimeOut((int) Math.min(Integer.MAX_VALUE, remainingMs));
        byte[] first = dealer.recv(0);
        if (first == null) {
          return false;
        }
        List<byte[]> frames = new ArrayList<>(4);
        frames.add(first);
        while (dealer.hasReceiveMore()) {
          byte[] frame = dealer.recv(0);
          if (frames.size() < MAX_FRAMES) {
            frames.add(frame);
          }
        }
        if (!handler.test(frames)) {
          return true;
        }
      }
    } catch (ZMQException e) {
      LOGGER
          .atWarn()
          .setMessage("replay failed")
          .addKeyValue("endpoint", endpoint)
          .addKeyValue("error", e.toString())
          .log();
      return false;
    } finally {
      dealer.close(); // also removes it from the context
    }
  }

  static byte[] bigEndian(long value) {
    byte[] bytes = new byte[8];
    for (int i = 7; i >= 0; i--) {
      bytes[i] = (byte) value;
      value >>>= 8;
    }
    return bytes;
  }
}
