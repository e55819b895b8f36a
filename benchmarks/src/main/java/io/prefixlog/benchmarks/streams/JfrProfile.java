package io.prefixlog.benchmarks.streams;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * A JFR recording of execution samples during a run, kept on disk for {@code jfr print --events
 * jdk.ExecutionSample FILE} or JMC, and summarised as the stream thread's hottest Java methods in
 * the steady window: where its Java CPU goes, without safepoint bias. Native time is not in it (see
 * {@link StackSampler}).
 */
final class JfrProfile implements AutoCloseable {
  static final Duration PERIOD = Duration.ofMillis(20);

  /**
   * @param samples the stream thread's execution samples in the window
   * @param truncated of those, samples whose stack was deeper than JFR's stack depth
   * @param topFrames samples per top-frame method, most first
   */
  record Summary(Path file, long samples, long truncated, Map<String, Long> topFrames) {}

  private final Recording recording;
  private final Path file;

  private JfrProfile(Recording recording, Path file) {
    this.recording = recording;
    this.file = file;
  }

  static JfrProfile start(Path file) {
    Recording recording = new Recording();
    recording.enable("jdk.ExecutionSample").withPeriod(PERIOD);
    recording.enable("jdk.NativeMethodSample").withPeriod(PERIOD);
    try {
      recording.setDestination(file);
    } catch (IOException e) {
      recording.close();
      throw new UncheckedIOException("cannot record to " + file, e);
    }
    recording.start();
    return new JfrProfile(recording, file);
  }

  /** Stops the recording and summarises the stream thread of {@code app} within the window. */
  Summary stop(String app, Instant from, Instant to) {
    recording.stop();
    recording.close();
    long samples = 0;
    long truncated = 0;
    Map<String, Long> top = new HashMap<>();
    try {
      for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
        if (!event.getEventType().getName().equals("jdk.ExecutionSample")
            || event.getStartTime().isBefore(from)
            || event.getStartTime().isAfter(to)) {
          continue;
        }
        RecordedThread thread = event.getThread("sampledThread");
        RecordedStackTrace stack = event.getStackTrace();
        if (thread == null
            || !CpuMeter.isStreamThread(String.valueOf(thread.getJavaName()), app)
            || stack == null
            || stack.getFrames().isEmpty()) {
          continue;
        }
        samples++;
        truncated += stack.isTruncated() ? 1 : 0;
        top.merge(name(stack.getFrames().get(0)), 1L, Long::sum);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    Map<String, Long> sorted = new LinkedHashMap<>();
    top.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .forEach(e -> sorted.put(e.getKey(), e.getValue()));
    return new Summary(file, samples, truncated, sorted);
  }

  @Override
  public void close() {
    recording.close();
  }

  private static String name(RecordedFrame frame) {
    return frame.getMethod().getType().getName() + "." + frame.getMethod().getName();
  }
}
