package io.prefixlog.tools.topic;

import io.prefixlog.cli.Progress;
import io.prefixlog.cli.Terminal;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a compacted topic says now: the last committed value of every key, keys whose last record is
 * a tombstone left out — the view a consumer rebuilds by reading the topic from the start.
 */
public final class CompactedView {
  private CompactedView() {}

  /** Reads {@code topic} to its end offsets; keys sorted. */
  public static Map<String, byte[]> read(String bootstrap, String topic, String clientId)
      throws TopicScan.ScanException, IOException {
    Map<String, byte[]> view = new TreeMap<>();
    PrintStream quiet =
        new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
    try (Progress progress =
        Progress.counting(
            new Terminal(quiet, quiet, Map.of(), false), false, topic, 0, "records")) {
      TopicScan.readToEnd(
          bootstrap,
          topic,
          clientId,
          1 << 20,
          "no alternative",
          progress,
          record -> {
            if (record.value() == null) {
              view.remove(record.key());
            } else {
              view.put(record.key(), record.value());
            }
          });
    }
    return view;
  }
}
