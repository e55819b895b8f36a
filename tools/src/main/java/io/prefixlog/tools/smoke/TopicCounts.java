package io.prefixlog.tools.smoke;

import io.prefixlog.cli.Progress;
import io.prefixlog.cli.Terminal;
import io.prefixlog.schemas.control.ControlHeaders;
import io.prefixlog.tools.topic.TopicScan;
import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.atomic.AtomicLong;

/** How many records of a topic the archive takes: committed, not tombstones, not control orders. */
final class TopicCounts {
  /** A count that may take a while (a topic read). */
  @FunctionalInterface
  interface Counter {
    long count() throws IOException, InterruptedException;
  }

  private TopicCounts() {}

  /**
   * @param withoutControl leave out control records (the archive connector drops them)
   */
  static long values(String bootstrap, String topic, boolean withoutControl) throws IOException {
    AtomicLong count = new AtomicLong();
    Terminal quiet =
        Terminal.captured(OutputStream.nullOutputStream(), OutputStream.nullOutputStream());
    try (Progress progress = Progress.counting(quiet, false, topic, 0, "records")) {
      TopicScan.readToEnd(
          bootstrap,
          topic,
          "prefixlog-compose-smoke",
          64 << 20,
          "none: the smoke test reads the compose broker's external listener",
          progress,
          record -> {
            boolean control =
                withoutControl && record.headers().lastHeader(ControlHeaders.NAME) != null;
            if (record.value() != null && !control) {
              count.incrementAndGet();
            }
          });
    } catch (TopicScan.ScanException e) {
      throw new SmokeFailure("cannot read " + topic + ": " + e.getMessage());
    }
    return count.get();
  }
}
