package io.prefixlog.systemtests.pipeline;

import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.systemtests.pipeline.Traffic.Event;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * Raw events sent one at a time at a steady pace from a thread of their own, while a test restarts
 * stream apps: traffic that does not wait for the pipeline.
 */
final class SteadyTraffic implements AutoCloseable {
  private final List<Event> events;
  private final AtomicInteger sent = new AtomicInteger();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final Thread thread;
  private volatile boolean stopping;

  /** Starts sending {@code events} in order to {@code topic}, one every {@code interval}. */
  SteadyTraffic(KafkaCluster kafka, String topic, List<Event> events, Duration interval) {
    this.events = List.copyOf(events);
    this.thread =
        new Thread(
            () -> {
              try (KafkaProducer<String, byte[]> producer = Traffic.producer(kafka)) {
                for (Event event : this.events) {
                  if (stopping) {
                    return;
                  }
                  Traffic.send(producer, topic, List.of(event));
                  sent.incrementAndGet();
                  Thread.sleep(interval.toMillis());
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (Exception | AssertionError e) {
                failure.set(e);
              }
            },
            "steady-traffic");
    thread.setDaemon(true);
    thread.start();
  }

  /** How many events have been acknowledged so far; fails if sending failed. */
  int sent() {
    Throwable t = failure.get();
    if (t != null) {
      throw new AssertionError("sending the traffic failed", t);
    }
    return sent.get();
  }

  /** Whether every event has been sent. */
  boolean exhausted() {
    return sent() == events.size();
  }

  /** Stops sending and returns how many events were sent. */
  int stop() throws InterruptedException {
    stopping = true;
    thread.join(Duration.ofMinutes(3).toMillis());
    return sent();
  }

  /** Stops sending; a failure is left to {@link #sent()} and {@link #stop()}. */
  @Override
  public void close() {
    stopping = true;
    try {
      thread.join(Duration.ofMinutes(3).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
