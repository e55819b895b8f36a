package io.prefixlog.bridge.proxy;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that talks to Kafka. Event loops {@link #offer} captures into the bounded {@link
 * EventQueue} and return at once; this thread encodes them (its encoder: session key, SHA-256,
 * JSON) and sends them with an idempotent producer, keyed by session key.
 *
 * <p>Online, every send is acknowledged (counted published) or fails after the producer's delivery
 * timeout. Without a spill directory a failed event is counted dropped ({@code reason=kafka}); a
 * full queue is counted dropped ({@code queue_full}). With a spill directory, the first failure
 * switches to spilling: the thread waits for every send in flight to finish, writes the failed ones
 * to the {@link SpillStore} in their original order, and from then on appends every new event to
 * the spill too (so nothing overtakes an older event of the same session). Every retry interval it
 * resends the oldest spilled records in a batch; once the spill is empty it goes back online.
 *
 * <p>Each record's timestamp is its event's capture time, spilled or not, within the bounds {@link
 * RecordTime} keeps. A record whose timestamp the broker refuses ({@link
 * InvalidTimestampException}) is not dropped: it fails like a send Kafka did not take (spilled,
 * when there is a spill, in its order), marked to go again with the bridge's clock, and without a
 * spill it is sent again at once.
 */
final class EventPublisher implements AutoCloseable {
  private static final Logger LOGGER = LoggerFactory.getLogger(EventPublisher.class);
  private static final int RESEND_BATCH_RECORDS = 500;
  private static final long RESEND_BATCH_BYTES = 8L << 20;

  private final EventQueue queue;
  private final Function<CapturedExchange, EncodedEvent> encoder;
  private final Supplier<Producer<String, byte[]>> producers;
  private final String topic;
  private final ProxyMetrics metrics;
  private final SpillStore spill;
  private final long retryMillis;
  private final long intervalMillis;
  private final int priority;
  private final Thread thread;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final ConcurrentLinkedQueue<Failed> failed = new ConcurrentLinkedQueue<>();
  private final RecordTime recordTime;

  /** Events whose capture time the broker refused, to send again (no spill to take them). */
  private final ConcurrentLinkedQueue<EncodedEvent> retimed = new ConcurrentLinkedQueue<>();

  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile boolean closing;
  private volatile boolean lastSendFailed;
  private volatile long drainDeadlineNanos = Long.MAX_VALUE;
  private Producer<String, byte[]> producer;
  private long sequence;
  private boolean spilling;
  private boolean resendProven;

  private record Failed(long sequence, EncodedEvent event) {}

  /**
   * How often the publisher resends while spilling, wakes up under load, and at which priority its
   * threads run.
   */
  record Pace(Duration retryInterval, Duration publishInterval, int priority) {
    /**
     * {@code PREFIXLOG_SPILL_RETRY_INTERVAL}, {@code PREFIXLOG_PROXY_PUBLISH_INTERVAL} and {@code
     * PREFIXLOG_PROXY_CAPTURE_PRIORITY}.
     */
    static Pace of(PublishConfig publish, SpillConfig spill) {
      return new Pace(spill.retryInterval(), publish.interval(), publish.capturePriority());
    }
  }

  /**
   * @param encoder turns a captured exchange into its record, on this thread ({@link
   *     EventFactory#encode})
   * @param spill where what Kafka refuses goes, or null to drop it
   */
  EventPublisher(
      EventQueue queue,
      Function<CapturedExchange, EncodedEvent> encoder,
      Supplier<Producer<String, byte[]>> producers,
      String topic,
      ProxyMetrics metrics,
      SpillStore spill,
      Pace pace,
      RecordTime recordTime) {
    this.queue = queue;
    this.encoder = encoder;
    this.recordTime = recordTime;
    this.producers = producers;
    this.topic = topic;
    this.metrics = metrics;
    this.spill = spill;
    this.retryMillis = pace.retryInterval().toMillis();
    this.intervalMillis = pace.publishInterval().toMillis();
    this.spilling = spill != null && spill.pending() > 0;
    this.priority = pace.priority();
    this.thread = new Thread(this::run, "prefixlog-proxy-publisher");
    this.thread.setDaemon(true);
    this.thread.setPriority(priority);
  }

  /**
   * Creates the producer, then starts the publisher thread. The producer is created on a thread of
   * the publisher's priority: its network thread (and any thread it starts, such as the producer
   * metrics') inherits its creator's priority. Lowering the caller's own priority for the while
   * would not do: without privileges the OS lets a thread lower its priority but not raise it back,
   * and the threads the caller starts later (the event loops) would inherit the lowered one.
   */
  void start() {
    producer = onThreadOfPriority(producers);
    thread.start();
  }

  private Producer<String, byte[]> onThreadOfPriority(Supplier<Producer<String, byte[]>> supplier) {
    AtomicReference<Producer<String, byte[]>> created = new AtomicReference<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread creator =
        new Thread(
            () -> {
              try {
                created.set(supplier.get());
              } catch (RuntimeException | Error e) {
                failure.set(e);
              }
            },
            "prefixlog-proxy-producer-start");
    creator.setDaemon(true);
    creator.setPriority(priority);
    creator.start();
    try {
      creator.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating the Kafka producer", e);
    }
    Throwable e = failure.get();
    if (e instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (e instanceof Error error) {
      throw error;
    }
    return created.get();
  }

  /** Never blocks: false (and a counted drop) when the queue is full or the publisher closed. */
  boolean offer(Outbound item) {
    if (closing) {
      metrics.dropped("shutdown").increment();
      return false;
    }
    if (!queue.offer(item)) {
      metrics.dropped("queue_full").increment();
      return false;
    }
    return true;
  }

  int queueDepth() {
    return queue.depth();
  }

  long queueBytes() {
    return queue.bytes();
  }

  /** True while events go to the spill rather than straight to Kafka. */
  boolean spilling() {
    return spilling;
  }

  /** {@code online}, {@code failing} (the last send failed) or {@code spilling}. */
  String kafkaState() {
    return spilling ? "spilling" : lastSendFailed ? "failing" : "online";
  }

  long spillPending() {
    return spill == null ? 0 : spill.pending();
  }

  long spillBytes() {
    return spill == null ? 0 : spill.bytes();
  }

  long spillQuarantined() {
    return spill == null ? 0 : spill.quarantined();
  }

  private void run() {
    try {
      long nextRetry = 0;
      while (true) {
        boolean draining = closing;
        if (draining && (queue.depth() == 0 || System.nanoTime() > drainDeadlineNanos)) {
          break;
        }
        if (!failed.isEmpty()) {
          spillFailed();
        }
        EncodedEvent again;
        while ((again = retimed.poll()) != null) {
          send(again, System.nanoTime());
        }
        if (spilling) {
          EventQueue.Queued item = queue.poll(Math.max(1, Math.min(50, nextRetry - now())));
          while (item != null) {
            waited(item);
            toSpill(encode(item.item()));
            item = queue.poll(0);
          }
          syncSpill();
          if (now() >= nextRetry && !draining) {
            if (!resend()) {
              nextRetry = now() + retryMillis;
            }
          }
        } else {
          EventQueue.Queued item = queue.poll(50);
          if (item != null) {
            do {
              waited(item);
              send(encode(item.item()), item.offeredNanos());
              item = queue.poll(0);
            } while (item != null);
            if (!closing && intervalMillis > 0) {
              // Under load, wake up once per interval for what came meanwhile rather than once
              // per event: fewer wake-ups here, in the producer's sender and on the broker, all
              // on cores the event loops need, and an event loop's offer rarely has a waiting
              // thread to signal (PREFIXLOG_PROXY_PUBLISH_INTERVAL). Idle, the poll above
              // returns at the first event.
              Thread.sleep(intervalMillis);
            }
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException | IOException | Error e) {
      LOGGER
          .atError()
          .setMessage("publisher thread failed; events are no longer published, /health says so")
          .setCause(e)
          .log();
    } finally {
      stopped.countDown();
    }
  }

  private static long now() {
    return System.nanoTime() / 1_000_000;
  }

  /** A captured exchange is encoded here, on this thread; an ingested event arrived encoded. */
  private EncodedEvent encode(Outbound item) {
    return item instanceof CapturedExchange exchange
        ? encoder.apply(exchange)
        : (EncodedEvent) item;
  }

  private void waited(EventQueue.Queued item) {
    metrics.queueWait.record(System.nanoTime() - item.offeredNanos(), TimeUnit.NANOSECONDS);
    if (item.item() instanceof CapturedExchange exchange) {
      metrics.recordLatencies(exchange.outcome());
    }
  }

  /**
   * Sends one event; {@code capturedNanos} is when the exchange was captured (offered to the
   * queue), from which the acknowledgement's latency is measured.
   */
  private void send(EncodedEvent event, long capturedNanos) {
    long seq = sequence++;
    inFlight.incrementAndGet();
    try {
      producer.send(
          new ProducerRecord<>(topic, null, recordTime.of(event), event.key(), event.value()),
          (RecordMetadata metadata, Exception e) -> {
            lastSendFailed = e != null;
            if (e == null) {
              metrics.published.increment();
              metrics.captureToPublish.record(
                  System.nanoTime() - capturedNanos, TimeUnit.NANOSECONDS);
            } else {
              failed(seq, event, e);
            }
            inFlight.decrementAndGet();
          });
    } catch (RuntimeException e) {
      // send() reports most failures through the callback; a few (a record too large for
      // the producer) are thrown.
      inFlight.decrementAndGet();
      failed(seq, event, e);
    }
  }

  private void failed(long seq, EncodedEvent event, Exception e) {
    metrics.publishFailures.increment();
    if (timestampRefused(event, e)) {
      EncodedEvent retimedEvent = recordTime.refused(event);
      if (spill == null) {
        retimed.add(retimedEvent);
      } else {
        failed.add(new Failed(seq, retimedEvent));
      }
    } else if (rejected(e)) {
      // Kafka will never take this record: spilling it would block every later one.
      metrics.dropped("rejected").increment();
      LOGGER
          .atWarn()
          .setMessage("Kafka rejected an event; dropped")
          .addKeyValue("requestId", event.requestId())
          .addKeyValue("error", e.getClass().getSimpleName())
          .log();
    } else if (spill == null) {
      metrics.dropped("kafka").increment();
    } else {
      failed.add(new Failed(seq, event));
    }
  }

  /**
   * Failures of the record itself (too large, invalid, a timestamp the broker refuses even from the
   * bridge's clock), not of Kafka's availability.
   */
  static boolean rejected(Exception e) {
    return e instanceof RecordTooLargeException
        || e instanceof RecordBatchTooLargeException
        || e instanceof InvalidRecordException
        || e instanceof InvalidTimestampException
        || e instanceof SerializationException;
  }

  /** The broker refused the capture time of an event that has not tried the clock's yet. */
  private static boolean timestampRefused(EncodedEvent event, Exception e) {
    return e instanceof InvalidTimestampException && event.captureMs() != RecordTime.SEND_TIME;
  }

  /**
   * The first failure: wait until every send in flight is decided, then spill the failed ones in
   * the order they were sent, and spill from now on.
   */
  private void spillFailed() throws InterruptedException {
    // flush() can return before the callback of a batch the sender expired while it was in
    // flight; the count of undecided sends is what says every failure is in.
    producer.flush();
    while (inFlight.get() > 0) {
      Thread.sleep(5);
    }
    List<Failed> batch = new ArrayList<>();
    Failed f;
    while ((f = failed.poll()) != null) {
      batch.add(f);
    }
    batch.sort(Comparator.comparingLong(Failed::sequence));
    if (!spilling) {
      LOGGER
          .atWarn()
          .setMessage("Kafka refused events; spilling to disk until it takes them again")
          .addKeyValue("topic", topic)
          .log();
    }
    spilling = true;
    resendProven = false;
    for (Failed failedEvent : batch) {
      toSpill(failedEvent.event());
    }
    syncSpill();
  }

  /** Forces the batch just spilled to disk, as PREFIXLOG_SPILL_FSYNC_INTERVAL says. */
  private void syncSpill() {
    try {
      spill.sync();
    } catch (IOException e) {
      // The events stay in the page cache and are resent from there; only a power loss before
      // the next successful force could lose them.
      metrics.spillSyncFailures.increment();
      LOGGER.atWarn().setMessage("cannot force the spill to disk").setCause(e).log();
    }
  }

  private void toSpill(EncodedEvent event) {
    try {
      if (spill.append(event)) {
        metrics.spilled.increment();
      } else {
        metrics.dropped("spill_full").increment();
      }
    } catch (IOException e) {
      // A disk that refuses a write costs this event, not the publisher.
      metrics.dropped("spill_error").increment();
      LOGGER
          .atWarn()
          .setMessage("cannot write to the spill; event dropped")
          .addKeyValue("requestId", event.requestId())
          .setCause(e)
          .log();
    }
  }

  /** False once the publisher thread died of an unexpected error (it logs why). */
  boolean healthy() {
    return closing || thread.isAlive() || stopped.getCount() == 1;
  }

  /** Resends the oldest spilled batch; true when it all went through. */
  private boolean resend() throws IOException, InterruptedException {
    // Until one record went through, only one is tried: a batch sent while the broker is still
    // coming back could have its first records expire while later ones of the same partition get
    // through, which would put them out of order in the topic.
    List<SpillStore.Spilled> batch =
        spill.next(resendProven ? RESEND_BATCH_RECORDS : 1, RESEND_BATCH_BYTES);
    if (batch.isEmpty()) {
      spilling = false;
      LOGGER.atInfo().setMessage("spill resent; publishing directly again").log();
      return true;
    }
    Resent resent = new Resent();
    // Resent events are not timed into the capture-to-publish histogram: the outage they waited
    // out is counted by the spill's meters.
    for (SpillStore.Spilled record : batch) {
      resendOne(record, resent);
    }
    producer.flush();
    while (resent.decided() < batch.size()) {
      Thread.sleep(5);
    }
    resendWithTheClock(resent.timeRefused, resent.done, resent.refused, resent.failures);
    List<SpillStore.Spilled> acked = new ArrayList<>();
    acked.addAll(resent.done);
    acked.addAll(resent.refused);
    spill.acknowledge(acked);
    metrics.resent.increment(resent.done.size());
    metrics.published.increment(resent.done.size());
    metrics.dropped("rejected").increment(resent.refused.size());
    if (resent.failures.get() > 0) {
      metrics.publishFailures.increment(resent.failures.get());
      resendProven = false;
      return false;
    }
    resendProven = true;
    return true;
  }

  /** The outcomes of a resent batch, sorted in by the producer's callbacks. */
  private static final class Resent {
    final ConcurrentLinkedQueue<SpillStore.Spilled> done = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<SpillStore.Spilled> refused = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<SpillStore.Spilled> timeRefused = new ConcurrentLinkedQueue<>();
    final AtomicInteger failures = new AtomicInteger();

    int decided() {
      return done.size() + refused.size() + timeRefused.size() + failures.get();
    }

    void failed(EncodedEvent event, SpillStore.Spilled record, Exception e) {
      if (timestampRefused(event, e)) {
        timeRefused.add(record);
      } else if (rejected(e)) {
        refused.add(record);
      } else {
        failures.incrementAndGet();
      }
    }
  }

  private void resendOne(SpillStore.Spilled record, Resent resent) {
    EncodedEvent event = spilledEvent(record);
    try {
      producer.send(
          new ProducerRecord<>(topic, null, recordTime.of(event), record.key(), record.value()),
          (metadata, e) -> {
            if (e == null) {
              resent.done.add(record);
            } else {
              resent.failed(event, record, e);
            }
          });
    } catch (RuntimeException e) {
      resent.failed(event, record, e);
    }
  }

  /**
   * Sends the records whose capture time the broker refused again at once, with the bridge's clock
   * (the spill cannot mark a record it holds), and sorts each outcome in.
   */
  private void resendWithTheClock(
      Collection<SpillStore.Spilled> timeRefused,
      Collection<SpillStore.Spilled> done,
      Collection<SpillStore.Spilled> refused,
      AtomicInteger failures)
      throws InterruptedException {
    List<SpillStore.Spilled> sent = new ArrayList<>();
    List<Future<RecordMetadata>> results = new ArrayList<>();
    for (SpillStore.Spilled record : timeRefused) {
      EncodedEvent again = recordTime.refused(spilledEvent(record));
      try {
        results.add(
            producer.send(
                new ProducerRecord<>(
                    topic, null, recordTime.of(again), record.key(), record.value())));
        sent.add(record);
      } catch (RuntimeException e) {
        sortFailure(record, e, refused, failures);
      }
    }
    producer.flush();
    for (int i = 0; i < sent.size(); i++) {
      try {
        results.get(i).get();
        done.add(sent.get(i));
      } catch (ExecutionException e) {
        sortFailure(sent.get(i), e.getCause(), refused, failures);
      }
    }
  }

  private static void sortFailure(
      SpillStore.Spilled record,
      Throwable e,
      Collection<SpillStore.Spilled> refused,
      AtomicInteger failures) {
    if (e instanceof Exception exception && rejected(exception)) {
      refused.add(record);
    } else {
      failures.incrementAndGet();
    }
  }

  private static EncodedEvent spilledEvent(SpillStore.Spilled record) {
    // The spill keeps no request id; the logs name the session and the capture time.
    return new EncodedEvent(record.key(), record.value(), "", record.captureMs());
  }

  /**
   * Publishes what is queued (spilling what Kafka refuses, when a spill is configured) for at most
   * {@code timeout}, flushes and closes the producer. What is still queued after that is counted
   * dropped ({@code shutdown}).
   */
  @Override
  public void close() {
    close(Duration.ofSeconds(30));
  }

  void close(Duration timeout) {
    if (closing) {
      return;
    }
    drainDeadlineNanos = System.nanoTime() + timeout.toNanos();
    closing = true;
    try {
      if (!stopped.await(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS)) {
        thread.interrupt();
        stopped.await(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      while (queue.poll(0) != null) {
        metrics.dropped("shutdown").increment();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (producer != null) {
      producer.close(timeout);
    }
    if (!failed.isEmpty() && spill != null) {
      for (Failed f : failed) {
        toSpill(f.event());
      }
    } else {
      failed.forEach(f -> metrics.dropped("kafka").increment());
    }
    failed.clear();
    if (spill != null) {
      try {
        spill.close();
      } catch (IOException e) {
        LOGGER.atWarn().setMessage("cannot close the spill").setCause(e).log();
      }
    }
  }
}
