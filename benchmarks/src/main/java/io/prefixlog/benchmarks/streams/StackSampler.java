package io.prefixlog.benchmarks.streams;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A wall-clock profile of the stream thread: every period its stack and state, whether it runs Java
 * code, runs native code (RocksDB, zstd) or waits (epoll in the consumer's poll, parked on a
 * future). JFR's sampler is not used for this because it takes at most one thread in native code
 * per period across the whole JVM, and a Streams app has a dozen threads parked in epoll, so the
 * stream thread's JNI time would be under-counted several times over.
 *
 * <p>Each sample goes to exactly one <i>activity</i>: the first rule of {@link #ACTIVITIES} whose
 * pattern matches any frame of the stack (so the RocksDB reads made inside {@code
 * TurnEncoder.encode} count as RocksDB, and the SHA-256 inside validation as validation). It also
 * goes to one <i>code</i> bucket by its top frame: which library the thread was in. Stacks are
 * taken with {@link ThreadMXBean#getThreadInfo(long[], int)} (a safepoint on Java 17), so Java
 * frames carry safepoint bias; activities span whole calls and are not affected much.
 */
final class StackSampler implements AutoCloseable {
  static final Duration DEFAULT_PERIOD = Duration.ofMillis(20);

  /** Activities in priority order: a sample belongs to the first that matches one of its frames. */
  static final List<Rule> ACTIVITIES =
      List.of(
          new Rule(
              "RocksDB get/put/delete (JNI + store layers)",
              f -> f.startsWith("org.rocksdb.") || f.contains(".RocksDBStore.")),
          new Rule(
              "changelog send (serialise, producer append, zstd)",
              f -> f.contains(".ChangeLoggingKeyValueBytesStore.")),
          new Rule(
              "validation: JSON parse + bind + SHA-256",
              f -> f.startsWith("io.prefixlog.core.request.RawEventValidator.")),
          new Rule(
              "TurnEncoder.encode (fingerprints, DeltaEncoder)",
              f -> f.startsWith("io.prefixlog.core.delta.TurnEncoder.")),
          new Rule(
              "delta record build + JSON",
              f ->
                  f.startsWith("io.prefixlog.core.delta.DeltaRecords.")
                      || f.startsWith("io.prefixlog.schemas.json.JsonSerde.")),
          new Rule(
              "session state codec",
              f -> f.startsWith("io.prefixlog.core.delta.SessionStateCodec.")),
          new Rule(
              "sink send (serialise, producer append, zstd)",
              f -> f.contains(".SinkNode.") || f.contains(".RecordCollectorImpl.send")),
          new Rule("other processor code (metrics, key bytes)", f -> f.startsWith("io.prefixlog.")),
          new Rule(
              "commit (flush producer, offsets, EndTxn)",
              f ->
                  f.contains(".TaskManager.commit")
                      || f.contains(".TaskExecutor.commit")
                      || f.contains(".StreamsProducer.commit")
                      || f.contains(".StreamThread.maybeCommit")),
          new Rule(
              "consumer poll (fetch, lz4 decompress, CRC)",
              f ->
                  f.startsWith("org.apache.kafka.clients.consumer.")
                      || f.contains(".TaskManager.addRecordsToTasks")),
          new Rule("other (task loop, punctuation, …)", f -> true));

  /** Where the top frame is: which code the thread was executing, or that it waited. */
  static final List<Rule> CODE =
      List.of(
          new Rule("RocksDB JNI", f -> f.startsWith("org.rocksdb.")),
          new Rule("zstd JNI", f -> f.startsWith("com.github.luben.zstd.")),
          new Rule("lz4", f -> f.startsWith("net.jpountz.") || f.contains(".compress.Lz4")),
          new Rule("SHA-256 (sun.security.provider)", f -> f.startsWith("sun.security.provider.")),
          new Rule("Jackson", f -> f.startsWith("com.fasterxml.jackson.")),
          new Rule("prefixlog", f -> f.startsWith("io.prefixlog.")),
          new Rule("Kafka", f -> f.startsWith("org.apache.kafka.")),
          new Rule(
              "NIO (selector wakeups, socket I/O)",
              f -> f.startsWith("sun.nio.ch.") || f.startsWith("java.net.")),
          new Rule(
              "JDK (copies, strings, collections)",
              f -> f.startsWith("java.") || f.startsWith("jdk.") || f.startsWith("sun.")),
          new Rule("other", f -> true));

  /** A named predicate over {@code class.method} frame names. */
  record Rule(String label, Predicate<String> matches) {}

  /**
   * The stream thread's samples.
   *
   * @param activities per activity: {all samples, of which waiting}, in {@link #ACTIVITIES} order
   * @param code per top-frame bucket (running samples only), in {@link #CODE} order
   * @param waiting samples in which the thread waited (parked, blocked, or in epoll_wait)
   * @param topFrames running samples per top frame, most first
   */
  record Summary(
      long samples,
      long waiting,
      Map<String, long[]> activities,
      Map<String, Long> code,
      Map<String, Long> topFrames) {}

  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final Duration period;
  private final Thread thread;
  private final Map<String, long[]> activities = new LinkedHashMap<>();
  private final Map<String, Long> code = new LinkedHashMap<>();
  private final Map<String, Long> top = new HashMap<>();
  private volatile long[] ids = new long[0];
  private volatile boolean running = true;
  private long samples;
  private long waiting;

  /**
   * @param period between two samples; zero samples nothing
   */
  StackSampler(Duration period) {
    this.period = period;
    ACTIVITIES.forEach(r -> activities.put(r.label(), new long[2]));
    CODE.forEach(r -> code.put(r.label(), 0L));
    thread = new Thread(this::loop, "bench-stack-sampler");
    thread.setDaemon(true);
    thread.start();
  }

  /** Starts sampling these threads. */
  void sample(List<Long> threadIds) {
    if (period.isZero()) {
      return;
    }
    ids = threadIds.stream().mapToLong(Long::longValue).toArray();
  }

  /** Stops sampling (the counts so far stay). */
  void pause() {
    ids = new long[0];
  }

  private void loop() {
    while (running) {
      long[] current = ids;
      if (current.length > 0) {
        ThreadInfo[] infos = threads.getThreadInfo(current, Integer.MAX_VALUE);
        synchronized (this) {
          for (ThreadInfo info : infos) {
            if (info != null && info.getStackTrace().length > 0) {
              add(info);
            }
          }
        }
      }
      try {
        Thread.sleep(Math.max(1, period.toMillis()));
      } catch (InterruptedException e) {
        return; // closed
      }
    }
  }

  private void add(ThreadInfo info) {
    List<String> frames = new ArrayList<>();
    for (StackTraceElement e : info.getStackTrace()) {
      frames.add(e.getClassName() + "." + e.getMethodName());
    }
    String topFrame = frames.get(0);
    boolean waits =
        info.getThreadState() != Thread.State.RUNNABLE
            || topFrame.equals("sun.nio.ch.EPoll.wait")
            || topFrame.equals("sun.nio.ch.EPoll.epollWait");
    samples++;
    long[] a = activities.get(firstMatch(ACTIVITIES, frames));
    a[0]++;
    if (waits) {
      waiting++;
      a[1]++;
      return;
    }
    code.merge(firstMatch(CODE, List.of(topFrame)), 1L, Long::sum);
    top.merge(topFrame, 1L, Long::sum);
  }

  synchronized Summary summary() {
    Map<String, long[]> a = new LinkedHashMap<>();
    activities.forEach((k, v) -> a.put(k, v.clone()));
    Map<String, Long> sorted = new LinkedHashMap<>();
    top.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .forEach(e -> sorted.put(e.getKey(), e.getValue()));
    return new Summary(samples, waiting, a, new LinkedHashMap<>(code), sorted);
  }

  private static String firstMatch(List<Rule> rules, List<String> frames) {
    for (Rule rule : rules) {
      for (String frame : frames) {
        if (rule.matches().test(frame)) {
          return rule.label();
        }
      }
    }
    return rules.get(rules.size() - 1).label();
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
  }
}
